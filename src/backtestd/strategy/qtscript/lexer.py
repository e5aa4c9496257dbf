"""Tokens of the QTScript layer (everything outside Java bodies).

QTScript is line-oriented, so the lexer hands out one token at a time from an offset and reports
line ends as ``EOL`` tokens; comments are skipped (a ``/* */`` comment may cross lines). It never
looks inside ``{ ... }`` bodies or call arguments: the parser jumps over those with
:mod:`javascan`, because they are Java, not QTScript.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from .errors import DiagnosticSink
from .javascan import is_ident_part, is_ident_start
from .source import SourceText

_INT = re.compile(r"[0-9]+\Z")
_DECIMAL = re.compile(r"[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?\Z")
_WORD_TAIL = re.compile(r"[A-Za-z0-9_.$]*")


class Kind(enum.Enum):
    IDENT = "identifier"
    INT = "integer"
    DECIMAL = "decimal"
    BAD_NUMBER = "malformed number"
    STRING = "string"
    PUNCT = "punctuation"
    EOL = "end of line"
    EOF = "end of file"


@dataclass(frozen=True)
class Token:
    """A token; ``start``/``end`` are offsets into the canonical text."""

    kind: Kind
    text: str
    start: int
    end: int
    closed: bool = True  # False only for a string that reached the end of its line

    def is_word(self, word: str) -> bool:
        return self.kind is Kind.IDENT and self.text == word

    def is_punct(self, char: str) -> bool:
        return self.kind is Kind.PUNCT and self.text == char

    @property
    def at_line_end(self) -> bool:
        return self.kind in (Kind.EOL, Kind.EOF)

    def describe(self) -> str:
        """How the token is named in messages."""
        if self.kind is Kind.EOL:
            return "the end of the line"
        if self.kind is Kind.EOF:
            return "the end of the file"
        return f"'{self.text}'"


class Lexer:
    """Produces tokens on demand; reports unterminated block comments to the sink once."""

    def __init__(self, src: SourceText, sink: DiagnosticSink) -> None:
        self.src = src
        self.sink = sink

    def skip_blanks(self, pos: int) -> int:
        """Skip spaces, tabs and comments (not line ends outside block comments)."""
        text = self.src.text
        n = len(text)
        while pos < n:
            ch = text[pos]
            if ch in " \t\f\v":
                pos += 1
            elif text.startswith("//", pos):
                pos = self.src.end_of_line(pos)
            elif text.startswith("/*", pos):
                end = text.find("*/", pos + 2)
                if end < 0:
                    line, col = self.src.loc(pos)
                    self.sink.error(line, col, "unterminated comment: '/*' has no closing '*/'")
                    return n
                pos = end + 2
            else:
                break
        return pos

    def next(self, pos: int) -> Token:
        """The token at or after ``pos`` (after skipping blanks and comments)."""
        text = self.src.text
        pos = self.skip_blanks(pos)
        if pos >= len(text):
            return Token(Kind.EOF, "", pos, pos)
        ch = text[pos]
        if ch == "\n":
            return Token(Kind.EOL, "\n", pos, pos + 1)
        if is_ident_start(ch):
            end = pos + 1
            while end < len(text) and is_ident_part(text[end]):
                end += 1
            return Token(Kind.IDENT, text[pos:end], pos, end)
        if ch.isdigit() and ch.isascii():
            return self._number(pos)
        if ch == '"':
            return self._string(pos)
        return Token(Kind.PUNCT, ch, pos, pos + 1)

    def _number(self, pos: int) -> Token:
        text = self.src.text
        match = _WORD_TAIL.match(text, pos)
        assert match is not None  # the pattern accepts the empty string
        end = match.end()
        if text[end - 1] in "eE" and end + 1 < len(text) and text[end] in "+-":
            tail = _WORD_TAIL.match(text, end + 1)
            assert tail is not None
            end = tail.end()
        word = text[pos:end]
        if _INT.match(word):
            kind = Kind.INT
        elif _DECIMAL.match(word):
            kind = Kind.DECIMAL
        else:
            kind = Kind.BAD_NUMBER
        return Token(kind, word, pos, end)

    def _string(self, pos: int) -> Token:
        text = self.src.text
        i = pos + 1
        while i < len(text) and text[i] != "\n":
            if text[i] == "\\":
                i += 2 if i + 1 < len(text) and text[i + 1] != "\n" else 1
                continue
            if text[i] == '"':
                return Token(Kind.STRING, text[pos : i + 1], pos, i + 1)
            i += 1
        return Token(Kind.STRING, text[pos:i], pos, i, closed=False)
