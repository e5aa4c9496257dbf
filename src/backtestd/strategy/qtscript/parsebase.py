"""Shared machinery of the QTScript parsers: positions, errors, blocks, line ends, recovery.

Error recovery is line-based, matching the language: after a mistake the rest of the line is
skipped, together with any ``{ ... }`` body that starts on it, so that a body's lines are never
misread as top-level constructs and one mistake yields one diagnostic.
"""

from __future__ import annotations

from .errors import DiagnosticSink
from .javascan import find_matching, skip_literal_or_comment
from .lexer import Kind, Lexer, Token
from .literals import JAVA_INT_MAX
from .nodes import Block, Period, Pos
from .source import SourceText

WINDOW_TIMES = ("s1", "s5", "s10", "s30", "m1", "m3", "m5")
PERIOD_HELP = "a period is one of s1 s5 s10 s30 m1 m3 m5 or a whole number of seconds (s1, not 1s)"


class ParserCore:
    """Position and error helpers shared by the top-level, setup and instruments parsers."""

    def __init__(self, src: SourceText, sink: DiagnosticSink) -> None:
        self.src = src
        self.sink = sink
        self.lex = Lexer(src, sink)

    @property
    def text(self) -> str:
        return self.src.text

    def pos(self, offset: int) -> Pos:
        line, column = self.src.loc(offset)
        return Pos(line, column)

    def tok(self, offset: int) -> Token:
        return self.lex.next(offset)

    def error(self, offset: int, message: str) -> None:
        line, column = self.src.loc(offset)
        self.sink.error(line, column, message)

    def next_line(self, offset: int) -> int:
        """Offset of the start of the line after the one containing ``offset``."""
        return min(self.src.end_of_line(offset) + 1, len(self.text))

    def recover(self, offset: int) -> int:
        """Skip the rest of the line (and a body opened on it); return the next line's start."""
        text = self.text
        i = offset
        end = self.src.end_of_line(offset)
        while i < end:
            skipped = skip_literal_or_comment(text, i)
            if skipped is not None:
                if skipped > end:  # a block comment crossing the line end
                    end = self.src.end_of_line(skipped)
                i = skipped
                continue
            if text[i] == "{":
                close = find_matching(text, i, braces_only=True)
                if close is None:
                    return len(text)
                return self.next_line(close)
            i += 1
        return min(end + 1, len(text))

    def end_line(self, offset: int, after: str) -> int:
        """Require the line to end at ``offset`` (comments allowed); return the next line start."""
        tok = self.tok(offset)
        if tok.at_line_end:
            return tok.end
        self.error(tok.start, f"unexpected {tok.describe()} after {after}")
        return self.recover(tok.start)

    def block(self, brace: Token) -> Block | None:
        """The Java body opened by ``brace``; reports an unclosed body."""
        close = find_matching(self.text, brace.start, braces_only=True)
        if close is None:
            self.error(brace.start, "unclosed '{': no matching '}' before the end of the file")
            return None
        return Block(brace.start, close, self.pos(brace.start))

    def block_then_eol(self, brace: Token, after: str) -> tuple[Block | None, int]:
        """Parse a body and the end of the line after its ``}``."""
        block = self.block(brace)
        if block is None:
            return None, len(self.text)
        return block, self.end_line(block.close + 1, after)

    @staticmethod
    def is_period_token(tok: Token) -> bool:
        return tok.kind is Kind.INT or (tok.kind is Kind.IDENT and tok.text in WINDOW_TIMES)

    def period(self, tok: Token) -> Period | None:
        """Turn a period token into a :class:`Period`, reporting an out-of-range number."""
        if tok.kind is Kind.IDENT:
            return Period(tok.text, None, self.pos(tok.start))
        seconds = int(tok.text)
        if seconds < 1:
            self.error(tok.start, "a period must be at least 1 second")
            return None
        if seconds > JAVA_INT_MAX:
            self.error(tok.start, f"period {tok.text} is too large")
            return None
        return Period(None, seconds, self.pos(tok.start))

    def bad_period(self, tok: Token) -> None:
        self.error(tok.start, f"bad period {tok.describe()}: {PERIOD_HELP}")
