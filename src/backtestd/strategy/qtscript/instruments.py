"""The ``instruments`` section: the declarative list and the native ``{ ... }`` form.

Mistakes in the list are compile errors with a position because nothing later would
catch them: a malformed pair, a side that is not a currency code, a stray comma, a duplicate, a
regular expression that does not compile. A regex is written ``~"..."`` and its text is taken raw:
backslashes reach the regex engine unchanged (``~"^\\w+/USDT$"``), and ``\\"`` stands for a quote.
"""

from __future__ import annotations

import re
import warnings

from .javascan import skip_literal_or_comment
from .lexer import Kind, Token
from .nodes import InstrumentList, InstrumentNative, PairEntry, RegexEntry
from .parsebase import ParserCore

MAX_CODE_LENGTH = 20
_SETTLE_HELP = 'use a regular expression such as ~"^BTC/USDT:USDT$"'

# Java-only regex syntax rewritten to a Python equivalent before the compile check, so that a
# pattern valid for java.util.regex is not refused because Python spells a feature differently.
_JAVA_ONLY = (
    (re.compile(r"\\[pP]\{\w+\}|\\[pP][A-Z]"), "a"),
    (re.compile(r"\(\?<(?=[A-Za-z])"), "(?P<"),
    (re.compile(r"\\k<(\w+)>"), r"(?P=\1)"),
    (re.compile(r"\\[hHvVRXz]"), "a"),
)
_QUOTED = re.compile(r"\\Q(.*?)(?:\\E|$)", re.DOTALL)


def regex_problem(pattern: str) -> tuple[int, str] | None:
    """``(offset, message)`` if ``pattern`` does not compile, else ``None``.

    The check runs Python's ``re`` after rewriting the common Java-only constructs; offsets are
    only exact when no rewrite happened before the problem, which is the usual case.
    """
    translated = _QUOTED.sub(lambda m: re.escape(m.group(1)), pattern)
    for java, python in _JAVA_ONLY:
        translated = java.sub(python, translated)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            re.compile(translated)
        except re.error as exc:
            offset = exc.pos if exc.pos is not None and translated == pattern else 0
            return min(offset, len(pattern)), exc.msg
    return None


def parse_instruments(
    core: ParserCore, kw: Token
) -> tuple[InstrumentList | InstrumentNative | None, int]:
    """Parse what follows ``instruments``; ``kw`` is the keyword token."""
    tok = core.tok(kw.end)
    if tok.is_punct("{"):
        block, nxt = core.block_then_eol(tok, "the instruments body")
        return (None if block is None else InstrumentNative(block, core.pos(kw.start))), nxt
    if tok.at_line_end:
        core.error(
            tok.start,
            "expected an instrument list after 'instruments' (such as */usdt, btc/usdt or "
            "~\"regex\") or '{' for the native form",
        )
        return None, tok.end
    return _ListParser(core, kw).parse(tok)


class _ListParser:
    def __init__(self, core: ParserCore, kw: Token) -> None:
        self.core = core
        self.text = core.text
        self.kw = kw
        self.entries: list[PairEntry | RegexEntry] = []
        self.seen: dict[object, int] = {}
        self.star: int | None = None
        self.ok = True

    def fail(self, offset: int, message: str) -> None:
        self.ok = False
        self.core.error(offset, message)

    def parse(self, tok: Token) -> tuple[InstrumentList | None, int]:
        expect_entry = True
        last_comma: Token | None = None
        count = 0
        while True:
            if tok.at_line_end:
                if expect_entry and last_comma is not None:
                    self.fail(last_comma.start, "stray comma: no entry follows it")
                break
            if tok.is_punct(","):
                if expect_entry:
                    self.fail(tok.start, "stray comma: expected an entry before it")
                expect_entry, last_comma = True, tok
                tok = self.core.tok(tok.end)
                continue
            if not expect_entry:
                self.fail(tok.start, f"expected ',' between entries, found {tok.describe()}")
            count += 1
            tok = self.core.tok(self.entry(tok.start))
            expect_entry, last_comma = False, None
        if self.star is not None and count > 1:
            self.fail(self.star, "'*' accepts every instrument and cannot be combined with entries")
        if not self.ok:
            return None, tok.end
        return InstrumentList(tuple(self.entries), self.core.pos(self.kw.start)), tok.end

    def resume(self, offset: int) -> int:
        """The next ',' or line end on this line, skipping quoted text."""
        i = offset
        end = self.core.src.end_of_line(offset)
        while i < end and self.text[i] != ",":
            skipped = skip_literal_or_comment(self.text, i) if self.text[i] in "\"'" else None
            i = skipped if skipped is not None else i + 1
        return min(i, end)

    def add(self, key: object, offset: int, entry: PairEntry | RegexEntry, shown: str) -> None:
        if key in self.seen:
            first = self.core.pos(self.seen[key]).column
            self.fail(offset, f"duplicate entry '{shown}' (already listed at column {first})")
            return
        self.seen[key] = offset
        self.entries.append(entry)

    def entry(self, start: int) -> int:
        """Parse one entry at ``start``; return the offset after it (or the resume point)."""
        ch = self.text[start]
        if ch == "~":
            return self.regex(start)
        if ch == "!":
            self.fail(start, "exclusions are not supported in an instrument list")
            return self.resume(start)
        if ch == "*" and self.text[start + 1 : start + 2] != "/" and self.ends_entry(start + 1):
            self.star = start
            return start + 1
        base, mid = self.side(start)
        if mid is None:
            return self.resume(start)
        if self.text[mid : mid + 1] != "/":
            word = self.text[start : self.resume(start)].strip()
            self.fail(start, f"malformed pair '{word}': expected BASE/QUOTE such as btc/usdt")
            return self.resume(start)
        quote, end = self.side(mid + 1)
        if end is None:
            return self.resume(start)
        if self.text[end : end + 1] == ":":
            self.fail(end, f"a settle currency inside a pair is not supported; {_SETTLE_HELP}")
            return self.resume(start)
        if not self.ends_entry(end):
            word = self.text[start : self.resume(start)].strip()
            self.fail(start, f"malformed pair '{word}': expected BASE/QUOTE such as btc/usdt")
            return self.resume(start)
        shown = f"{base or '*'}/{quote or '*'}"
        self.add(("pair", base, quote), start, PairEntry(base, quote, self.core.pos(start)), shown)
        return end

    def ends_entry(self, offset: int) -> bool:
        tok = self.core.tok(offset)
        return tok.at_line_end or tok.is_punct(",") or (tok.start > offset)

    def side(self, start: int) -> tuple[str | None, int | None]:
        """A currency code (upper-cased) or ``None`` for ``*``, and the offset after it."""
        text = self.text
        if text[start : start + 1] == "*":
            if start + 1 < len(text) and text[start + 1].isalnum():
                self.fail(start, "partial wildcards (such as '*BTC') are not supported")
                return None, None
            return None, start + 1
        end = start
        while end < len(text) and text[end].isascii() and text[end].isalnum():
            end += 1
        if end < len(text) and text[end] == "*":
            self.fail(
                start, f"partial wildcards (such as '{text[start : end + 1]}') are not supported"
            )
            return None, None
        junk = end
        while junk < len(text) and (text[junk].isalnum() or text[junk] in "_$-.#@%&+"):
            junk += 1
        if end == start or junk > end:
            found = text[start:junk] or text[start : start + 1].strip() or "nothing"
            self.fail(
                start,
                f"'{found}' is not a currency code: a side is letters and digits only, or '*'",
            )
            return None, None
        if end - start > MAX_CODE_LENGTH:
            self.fail(start, f"currency code '{text[start:end]}' is longer than {MAX_CODE_LENGTH}")
            return None, None
        return text[start:end].upper(), end

    def regex(self, start: int) -> int:
        tok = self.core.tok(start + 1)
        if tok.kind is not Kind.STRING:
            self.fail(
                tok.start,
                f"expected a \"quoted regular expression\" after '~', found {tok.describe()}",
            )
            return self.resume(tok.start)
        if not tok.closed:
            self.fail(tok.start, "unterminated string: missing closing '\"' on this line")
            return tok.end
        pattern = tok.text[1:-1]
        problem = regex_problem(pattern)
        if problem is not None:
            offset, message = problem
            self.fail(tok.start + 1 + offset, f"invalid regular expression: {message}")
            return tok.end
        self.add(("regex", pattern), start, RegexEntry(pattern, self.core.pos(start)), tok.text)
        return tok.end
