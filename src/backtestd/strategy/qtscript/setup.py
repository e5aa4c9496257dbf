"""The ``setup:`` section: indentation-delimited builder calls and the window forms 1-4.

``setup:`` is the one place where indentation is grammar. Its lines are the indented lines that
follow it, all with the same indentation; the first non-blank line back in column 1 ends it.
Comment-only lines count as blank wherever they start. A call must fit on its line, but an inline
window body ``{ ... }`` may continue over the following lines, at any indentation, because it is
Java.
"""

from __future__ import annotations

from .javascan import find_matching, split_arguments
from .lexer import Kind, Token
from .literals import LiteralError, decode_string
from .nodes import Argument, InlineWindow, SectionRef, Setup, SetupCall, SetupLine, SetupWindow
from .parsebase import ParserCore


def parse_setup(core: ParserCore, kw: Token) -> tuple[Setup | None, int]:
    """Parse ``setup:`` and its lines; ``kw`` is the ``setup`` token."""
    colon = core.tok(kw.end)
    if not colon.is_punct(":"):
        core.error(colon.start, f"expected ':' after 'setup', found {colon.describe()}")
        return None, core.recover(colon.start)
    pos = core.end_line(colon.end, "'setup:' (its calls go on the indented lines below it)")
    lines: list[SetupLine] = []
    reference: tuple[str, int] | None = None  # (indentation, line number) of the first line
    text = core.text
    while pos < len(text):
        tok = core.tok(pos)
        if tok.at_line_end:
            pos = tok.end
            continue
        first = pos
        while text[first] in " \t\f\v":
            first += 1
        if first == pos:
            break  # a non-blank line in column 1 ends setup:
        indent = text[pos:first]
        line_no = core.src.loc(pos)[0]
        if reference is None:
            reference = (indent, line_no)
        elif indent != reference[0]:
            core.error(
                first,
                f"bad indentation: this setup line is indented by {_describe(indent)} but the "
                f"first one (line {reference[1]}) by {_describe(reference[0])}; every setup line "
                "uses the same indentation and a call cannot continue on the next line",
            )
        line, pos = _setup_line(core, tok)
        if line is not None:
            lines.append(line)
    return Setup(tuple(lines), core.pos(kw.start)), pos


def _describe(indent: str) -> str:
    tabs = indent.count("\t")
    spaces = len(indent) - tabs
    parts = []
    if spaces:
        parts.append(f"{spaces} space{'s' if spaces != 1 else ''}")
    if tabs:
        parts.append(f"{tabs} tab{'s' if tabs != 1 else ''}")
    return " and ".join(parts)


def _setup_line(core: ParserCore, tok: Token) -> tuple[SetupLine | None, int]:
    if tok.is_word("window"):
        return _by_name(core, tok)
    if tok.kind is Kind.IDENT:
        paren = core.tok(tok.end)
        if paren.is_punct("("):
            return _call(core, tok, paren)
    core.error(
        tok.start,
        f"expected a builder call such as ema(12) or a 'window' line, found {tok.describe()}",
    )
    return None, core.recover(tok.start)


def _call(core: ParserCore, name: Token, paren: Token) -> tuple[SetupLine | None, int]:
    text = core.text
    close = find_matching(text, paren.start, core.src.end_of_line(paren.start))
    if close is None:
        core.error(
            paren.start,
            "unclosed '(': a setup call must be complete on one line",
        )
        return None, core.recover(paren.start)
    args = tuple(
        Argument(text[a:b], core.pos(a)) for a, b in split_arguments(text, paren.start + 1, close)
    )
    call_text = text[name.start : close + 1]
    nxt = core.tok(close + 1)
    if nxt.at_line_end:
        return SetupCall(name.text, args, call_text, core.pos(name.start), None, None), nxt.end
    if nxt.is_word("window"):
        target, after = _target(core, nxt)
        if target is None:
            return None, after
        node = SetupCall(
            name.text, args, call_text, core.pos(name.start), target, core.pos(nxt.start)
        )
        return node, after
    if nxt.is_punct(";"):
        message = "remove the ';': setup lines are written without one"
    elif nxt.is_punct("."):
        message = "one builder call per line: chained calls are not allowed in setup:"
    else:
        message = f"unexpected {nxt.describe()} after the call: expected 'window' or the line end"
    core.error(nxt.start, message)
    return None, core.recover(nxt.start)


def _by_name(core: ParserCore, kw: Token) -> tuple[SetupLine | None, int]:
    name = core.tok(kw.end)
    indicator: str | None = None
    if name.kind is Kind.IDENT:
        indicator = name.text
    elif name.kind is Kind.STRING and name.closed:
        try:
            indicator = decode_string(name.text)
        except LiteralError as exc:
            core.error(name.start + exc.offset, exc.message)
            return None, core.recover(name.start)
    if indicator is None:
        core.error(
            name.start,
            f"expected the name of the indicator to watch after 'window', found {name.describe()}",
        )
        return None, core.recover(name.start)
    target, after = _target(core, kw, name.end)
    if target is None:
        return None, after
    return SetupWindow(indicator, core.pos(name.start), target, core.pos(kw.start)), after


def _target(
    core: ParserCore, kw: Token, offset: int | None = None
) -> tuple[InlineWindow | SectionRef | None, int]:
    """What follows ``window`` (after the indicator name for forms 3 and 4)."""
    tok = core.tok(kw.end if offset is None else offset)
    period = None
    if core.is_period_token(tok):
        period = core.period(tok)
        if period is None:
            return None, core.recover(tok.start)
        brace = core.tok(tok.end)
        if not brace.is_punct("{"):
            ref = core.tok(brace.end)
            if brace.kind is Kind.IDENT and ref.at_line_end:
                core.error(
                    tok.start,
                    f"a referenced section uses its own period: remove '{tok.text}' and give "
                    f"the period on section '{brace.text}'",
                )
            else:
                core.error(
                    brace.start,
                    f"expected '{{' after the period {tok.text}, found {brace.describe()}",
                )
            return None, core.recover(brace.start)
        tok = brace
    if tok.is_punct("{"):
        block, after = core.block_then_eol(tok, "the window body")
        if block is None:
            return None, after
        return InlineWindow(period, block, core.pos(kw.start)), after
    if tok.kind is Kind.IDENT:
        nxt = core.tok(tok.end)
        if nxt.at_line_end:
            return SectionRef(tok.text, core.pos(tok.start)), nxt.end
        if nxt.is_punct("{"):
            core.bad_period(tok)
        else:
            core.error(nxt.start, f"unexpected {nxt.describe()} after section name '{tok.text}'")
        return None, core.recover(tok.start)
    if tok.kind is Kind.BAD_NUMBER:
        core.bad_period(tok)
    else:
        core.error(
            tok.start,
            f"expected a period, '{{' or a section name after 'window', found {tok.describe()}",
        )
    return None, core.recover(tok.start)
