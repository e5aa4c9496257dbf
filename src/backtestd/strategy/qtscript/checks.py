"""Checks on ``param`` declarations: duplicates, reserved names, assignments in ``init``.

Reserved names are refused with the reason, because a param with such a name would
either not compile (a Java keyword), be shadowed inside bodies (``price``, ``actual``...), or
collide with an engine property key; failing at compile time names the line instead of leaving the
author with a silent misbehaviour at run time.
"""

from __future__ import annotations

from .errors import DiagnosticSink
from .javascan import iter_code_tokens
from .naming import JAVA_KEYWORDS
from .nodes import Init, QtsParam
from .source import SourceText

_KEYWORD = "it is a QTScript keyword"
_LISTENER = "it is a field of every window listener, in scope in every body"
RESERVED_PARAM_NAMES: dict[str, str] = {
    **dict.fromkeys(
        (
            "strategy",
            "param",
            "instruments",
            "init",
            "setup",
            "window",
            "kline",
            "funding",
            "onCommand",
        ),
        _KEYWORD,
    ),
    "actual": "it is the window's new value inside every body",
    "prev": "it is the window's previous value inside every body",
    "store": "it is the per-instrument StateStore inside every body",
    "value": 'it is the value("name") helper inside every body',
    **dict.fromkeys(
        ("price", "open", "high", "low", "close", "volume", "rate"),
        "it is a current-value variable inside window bodies (price; open, high, low, close, "
        "volume on kline; rate on funding)",
    ),
    "indicators": _LISTENER,
    "instrument": _LISTENER + " and the parameter of the instruments { } body",
    "percentGain": "it is an engine property key (set with setPercentGain in init)",
    "executionMode": "it is an engine property key (set with setExecutionMode in init)",
    "multiEntryEnabled": "it is an engine property key (set with setMultiEntryEnabled in init)",
}
# 'strategy' is both a keyword and a listener field; the keyword reason is the one shown.

_COMPOUND = {"+", "-", "*", "/", "%", "&", "|", "^"}


def check_params(params: tuple[QtsParam, ...], sink: DiagnosticSink) -> None:
    """Report duplicate and reserved param names at the name's position."""
    first_line: dict[str, int] = {}
    for param in params:
        reason = _reserved_reason(param.name)
        if reason is not None:
            sink.error(param.line, param.column, reason)
        elif param.name in first_line:
            sink.error(
                param.line,
                param.column,
                f"duplicate param '{param.name}' (first declared on line {first_line[param.name]})",
            )
        else:
            first_line[param.name] = param.line


def _reserved_reason(name: str) -> str | None:
    if name in RESERVED_PARAM_NAMES:
        return f"'{name}' is reserved and cannot be a param name: {RESERVED_PARAM_NAMES[name]}"
    if name in JAVA_KEYWORDS or name == "yield":
        return f"'{name}' is a Java keyword and cannot be a param name"
    if name.startswith("$"):
        return (
            f"'{name}' cannot be a param name: names starting with '$' are reserved for "
            "QTScript ($indicator, $command)"
        )
    if name.startswith("qts$"):
        return f"'{name}' cannot be a param name: the prefix 'qts$' is reserved for generated code"
    return None


def warn_param_assignments(
    init: Init | None, params: tuple[QtsParam, ...], src: SourceText, sink: DiagnosticSink
) -> None:
    """Warn where ``init`` assigns a param: defaults and run values overwrite it afterwards."""
    if init is None or not params:
        return
    names = {p.name for p in params}
    toks = list(iter_code_tokens(src.text, init.block.open + 1, init.block.close))
    for k, (offset, word) in enumerate(toks):
        if word in names and _is_assignment(toks, k):
            line, column = src.loc(offset)
            sink.warn(
                line,
                column,
                f"param '{word}' is assigned in init, but the declared default and then the "
                "run's value are applied after construction and overwrite it",
            )


def _is_assignment(toks: list[tuple[int, str]], k: int) -> bool:
    def tok(i: int) -> str:
        return toks[i][1] if 0 <= i < len(toks) else ""

    def adjacent(i: int) -> bool:  # toks[i] and toks[i + 1] touch
        return 0 <= i < len(toks) - 1 and toks[i][0] + len(toks[i][1]) == toks[i + 1][0]

    before = tok(k - 1)
    if before == "." and tok(k - 2) != "this":
        return False
    if before and (before[0].isalnum() or before in "_$>]") and before not in ("return", "else"):
        return False  # a declaration such as 'int gain = 1' (a local shadowing the param)
    if tok(k - 1) in "+-" and tok(k - 2) == tok(k - 1) and adjacent(k - 2) and tok(k - 1):
        return True  # ++gain / --gain
    ops = [tok(k + 1)]
    i = k + 1
    while adjacent(i) and len(ops) < 4:
        i += 1
        ops.append(tok(i))
    joined = "".join(ops)
    if joined.startswith("=") and not joined.startswith("=="):
        return True
    if joined[:2] in ("++", "--"):
        return True
    for op in ("<<=", ">>=", ">>>="):
        if joined.startswith(op):
            return True
    return (
        len(joined) >= 2
        and joined[0] in _COMPOUND
        and joined[1] == "="
        and (len(joined) < 3 or joined[2] != "=")
    )
