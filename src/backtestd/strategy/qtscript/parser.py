"""Top-level QTScript parser: header, ``param``, ``init``, named sections, ``onCommand``.

The file is read line by line. A top-level construct starts in column 1 (only ``setup:`` lines
are indented) and is recognised by its first word; anything else is reported and the line skipped,
so the parser always reaches the end of the file and reports every mistake in one pass.
``setup:`` and ``instruments`` have their own modules.
"""

from __future__ import annotations

from backtestd.domain.marketdata import DataType

from .errors import DiagnosticSink
from .instruments import parse_instruments
from .lexer import Kind, Token
from .literals import LiteralError, check_decimal, check_int, decode_string
from .nodes import (
    Header,
    Init,
    InstrumentList,
    InstrumentNative,
    OnCommand,
    Program,
    QtsParam,
    Section,
    Setup,
)
from .parsebase import ParserCore
from .setup import parse_setup
from .source import SourceText

SECTION_HELP = (
    "expected param, init, instruments, setup:, or a window section "
    "('window Name [period] { ... }' or 'Name [period] { ... }')"
)
_SOURCE_WORDS = {
    "ticker": DataType.TICKER,
    "kline": DataType.KLINE,
    "funding": DataType.FUNDING,
}


def parse_program(source: str, sink: DiagnosticSink) -> tuple[Program, SourceText]:
    """Parse ``source``; every error goes to ``sink`` and the tree holds what could be read."""
    src = SourceText.of(source)
    parser = _Parser(src, sink)
    return parser.parse(), src


class _Parser(ParserCore):
    def __init__(self, src: SourceText, sink: DiagnosticSink) -> None:
        super().__init__(src, sink)
        self.header: Header | None = None
        self.params: list[QtsParam] = []
        self.init: Init | None = None
        self.instruments: InstrumentList | InstrumentNative | None = None
        self.setup: Setup | None = None
        self.sections: list[Section] = []
        self.on_command: OnCommand | None = None

    def parse(self) -> Program:
        pos = self._header()
        while pos < len(self.text):
            pos = self._top_line(pos)
        return Program(
            self.header,
            tuple(self.params),
            self.init,
            self.instruments,
            self.setup,
            tuple(self.sections),
            self.on_command,
        )

    # -- header ---------------------------------------------------------------------------

    def _header(self) -> int:
        tok = self.tok(0)
        while tok.kind is Kind.EOL:
            tok = self.tok(tok.end)
        if tok.kind is Kind.EOF:
            self.error(tok.start, "empty source: a QTScript file starts with 'strategy <name>'")
            return len(self.text)
        if not tok.is_word("strategy"):
            self.error(
                tok.start,
                f"missing strategy header: expected 'strategy <name>' as the first token, "
                f"found {tok.describe()}",
            )
            return self.recover(tok.start)
        name_tok = self.tok(tok.end)
        name = self._header_name(name_tok)
        if name is None:
            return self.recover(name_tok.start)
        source = DataType.TICKER
        nxt = self.tok(name_tok.end)
        if nxt.kind is Kind.IDENT:
            if nxt.text not in _SOURCE_WORDS:
                self.error(
                    nxt.start, f"unknown data source '{nxt.text}': expected kline or funding"
                )
                return self.recover(nxt.start)
            source = _SOURCE_WORDS[nxt.text]
            nxt = self.tok(nxt.end)
        self.header = Header(name, name_tok.kind is Kind.STRING, source, self.pos(tok.start))
        return self.end_line(nxt.start, "the strategy header")

    def _header_name(self, tok: Token) -> str | None:
        if tok.kind is Kind.IDENT:
            return tok.text
        if tok.kind is not Kind.STRING:
            self.error(
                tok.start,
                f'expected the strategy name (a "quoted title" or an identifier) after '
                f"'strategy', found {tok.describe()}",
            )
            return None
        value = self._string_value(tok)
        if value is not None and not value.strip():
            self.error(tok.start, "the strategy name must not be empty")
            return None
        return value

    def _string_value(self, tok: Token) -> str | None:
        if not tok.closed:
            self.error(tok.start, "unterminated string: missing closing '\"' on this line")
            return None
        try:
            return decode_string(tok.text)
        except LiteralError as exc:
            self.error(tok.start + exc.offset, exc.message)
            return None

    # -- dispatch -------------------------------------------------------------------------

    def _top_line(self, line_start: int) -> int:
        tok = self.tok(line_start)
        if tok.at_line_end:
            return tok.end
        first = line_start
        while self.text[first] in " \t\f\v":
            first += 1
        if first > line_start and first == tok.start:
            self.error(
                tok.start,
                "unexpected indentation: only the lines of 'setup:' are indented; "
                "top-level constructs start in column 1",
            )
            return self.recover(tok.start)
        if tok.kind is not Kind.IDENT:
            self.error(tok.start, f"unexpected {tok.describe()}: {SECTION_HELP}")
            return self.recover(tok.start)
        return self._dispatch(tok)

    def _dispatch(self, tok: Token) -> int:
        word = tok.text
        if word == "param":
            return self._param(tok)
        if word == "init":
            return self._init(tok)
        if word == "instruments":
            return self._instruments(tok)
        if word == "setup":
            return self._setup(tok)
        if word == "window":
            return self._section(tok, self.tok(tok.end))
        if word == "onCommand":
            return self._on_command(tok)
        if word == "strategy":
            where = f" (the header is on line {self.header.pos.line})" if self.header else ""
            self.error(tok.start, f"duplicate 'strategy' header{where}")
            return self.recover(tok.start)
        if word in _SOURCE_WORDS:
            self.error(tok.start, f"'{word}' is only allowed in the header, after the name")
            return self.recover(tok.start)
        nxt = self.tok(tok.end)
        bad_period = nxt.kind is Kind.IDENT and self.tok(nxt.end).is_punct("{")
        if (
            nxt.is_punct("{")
            or self.is_period_token(nxt)
            or nxt.kind is Kind.BAD_NUMBER
            or bad_period
        ):
            return self._section(None, tok)
        self.error(tok.start, f"unknown section '{word}': {SECTION_HELP}")
        return self.recover(tok.start)

    def _duplicate(self, tok: Token, first_line: int) -> None:
        self.error(tok.start, f"duplicate '{tok.text}' section (the first is on line {first_line})")

    # -- param ----------------------------------------------------------------------------

    def _param(self, kw: Token) -> int:
        name = self.tok(kw.end)
        if name.kind is not Kind.IDENT:
            self.error(name.start, f"expected a param name after 'param', found {name.describe()}")
            return self.recover(name.start)
        eq = self.tok(name.end)
        if not eq.is_punct("="):
            self.error(eq.start, f"expected '=' after param '{name.text}', found {eq.describe()}")
            return self.recover(eq.start)
        lit = self.tok(eq.end)
        typed = self._param_literal(lit)
        if typed is None:
            return self.recover(lit.start)
        java_type, default, literal, end = typed
        desc_tok = self.tok(end)
        description = None
        if desc_tok.kind is Kind.STRING:
            description = self._string_value(desc_tok)
            if description is None:
                return self.recover(desc_tok.start)
            end = desc_tok.end
        elif not desc_tok.at_line_end:
            self.error(
                desc_tok.start,
                f"unexpected {desc_tok.describe()} after the value of param '{name.text}': "
                'only an optional "description" may follow',
            )
            return self.recover(desc_tok.start)
        line, column = self.src.loc(name.start)
        self.params.append(
            QtsParam(name.text, java_type, default, literal, description, line, column)
        )
        return self.end_line(end, f"param '{name.text}'")

    def _param_literal(self, lit: Token) -> tuple[str, str, str, int] | None:
        """(java type, defaultValue, literal as written, end offset) or ``None`` after an error."""
        if lit.at_line_end:
            self.error(
                lit.start,
                "missing param value after '=': expected a number, true, false or a \"string\"",
            )
            return None
        sign = ""
        start = lit.start
        if lit.is_punct("-"):
            num = self.tok(lit.end)
            if num.start != lit.end or num.kind not in (Kind.INT, Kind.DECIMAL):
                self.error(lit.start, "malformed param value: '-' must be followed by a number")
                return None
            sign, lit = "-", num
        text = sign + lit.text
        try:
            if lit.kind is Kind.INT:
                check_int(text)
                return "int", text, text, lit.end
            if lit.kind is Kind.DECIMAL:
                check_decimal(text)
                return "double", text, text, lit.end
        except LiteralError as exc:
            self.error(start, exc.message)
            return None
        if lit.kind is Kind.IDENT and lit.text in ("true", "false"):
            return "boolean", lit.text, lit.text, lit.end
        if lit.kind is Kind.STRING:
            value = self._string_value(lit)
            return None if value is None else ("String", value, lit.text, lit.end)
        kind = "malformed number" if lit.kind is Kind.BAD_NUMBER else "malformed param value"
        self.error(
            start,
            f"{kind} {lit.describe()}: expected an integer (9), a decimal with a point (0.5), "
            'true, false or a "string"',
        )
        return None

    # -- sections with a body ------------------------------------------------------------

    def _init(self, kw: Token) -> int:
        brace = self.tok(kw.end)
        if not brace.is_punct("{"):
            self.error(brace.start, f"expected '{{' after 'init', found {brace.describe()}")
            return self.recover(brace.start)
        block, nxt = self.block_then_eol(brace, "the init body")
        if block is not None:
            if self.init is not None:
                self._duplicate(kw, self.init.pos.line)
            else:
                self.init = Init(block, self.pos(kw.start))
        return nxt

    def _on_command(self, kw: Token) -> int:
        brace = self.tok(kw.end)
        if not brace.is_punct("{"):
            self.error(brace.start, f"expected '{{' after 'onCommand', found {brace.describe()}")
            return self.recover(brace.start)
        block, nxt = self.block_then_eol(brace, "the onCommand body")
        if block is not None:
            if self.on_command is not None:
                self._duplicate(kw, self.on_command.pos.line)
            else:
                self.on_command = OnCommand(block, self.pos(kw.start))
        return nxt

    def _instruments(self, kw: Token) -> int:
        node, nxt = parse_instruments(self, kw)
        if node is not None:
            if self.instruments is not None:
                self.error(
                    kw.start,
                    "duplicate 'instruments' section (the first is on line "
                    f"{self.instruments.pos.line}); one file uses one form, once",
                )
            else:
                self.instruments = node
        return nxt

    def _setup(self, kw: Token) -> int:
        node, nxt = parse_setup(self, kw)
        if node is not None:
            if self.setup is not None:
                self._duplicate(kw, self.setup.pos.line)
            else:
                self.setup = node
        return nxt

    def _section(self, kw: Token | None, name: Token) -> int:
        """``window Name [period] { ... }`` (``kw`` is the ``window`` token) or ``Name ...``."""
        if name.kind is not Kind.IDENT:
            self.error(
                name.start, f"expected a section name after 'window', found {name.describe()}"
            )
            return self.recover(name.start)
        if self.is_period_token(name):
            self.error(name.start, f"'{name.text}' is a period and cannot name a section")
            return self.recover(name.start)
        nxt = self.tok(name.end)
        period = None
        if self.is_period_token(nxt):
            period = self.period(nxt)
            if period is None:
                return self.recover(nxt.start)
            nxt = self.tok(nxt.end)
        elif nxt.kind in (Kind.IDENT, Kind.BAD_NUMBER):
            self.bad_period(nxt)
            return self.recover(nxt.start)
        if not nxt.is_punct("{"):
            self.error(
                nxt.start,
                f"expected '{{' to open the body of section '{name.text}' on this line, "
                f"found {nxt.describe()}",
            )
            return self.recover(nxt.start)
        block, after = self.block_then_eol(nxt, f"the body of section '{name.text}'")
        if block is not None:
            self.sections.append(Section(name.text, period, block, self.pos(name.start)))
        return after
