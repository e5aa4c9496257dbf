"""Names the generator invents or deduces: the Java class name and indicator names.

Class name (spec §17.3): every character that cannot appear in a Java identifier is removed and
case is kept (``"RSI reversion"`` -> ``RSIreversion``). Decisions for the cases the spec leaves
open: only ASCII letters, digits and ``_`` are kept (``$`` and non-ASCII letters are dropped, so
class files have portable names); a result that starts with a digit or is a Java keyword gets a
``_`` prefix; an empty result becomes ``QtsStrategy``; a result that would shadow a class the
generated code or typical bodies refer to by simple name (``String``, ``Math``, ``Ticker``...) gets
a ``Strategy`` suffix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .literals import LiteralError, decode_string, java_string
from .nodes import SetupCall

JAVA_KEYWORDS = frozenset(
    """abstract assert boolean break byte case catch char class const continue default do double
    else enum extends final finally float for goto if implements import instanceof int interface
    long native new package private protected public return short static strictfp super switch
    synchronized this throw throws transient try void volatile while true false null _""".split()
)
# Restricted identifiers that may not name a type (JLS 3.9).
_RESTRICTED_TYPE_NAMES = frozenset({"var", "yield", "record", "sealed", "permits"})
# Simple names the generated class or ordinary bodies use; a strategy class must not shadow them.
_SHADOWED = frozenset(
    """String Object Math StrictMath Integer Long Double Float Boolean Character Byte Short Number
    System Thread Runtime Override Deprecated SuppressWarnings FunctionalInterface SafeVarargs
    Exception RuntimeException Error Throwable Iterable Comparable Class Enum Record Void
    StringBuilder CharSequence Runnable List Map Set Optional Arrays Collections Duration Instant
    AbstractTickerStrategy AbstractKlineStrategy AbstractFundingRateStrategy AbstractWindowListener
    StateStore Instrument Ticker Kline FundingRate ExecutionMode InstrumentGroupRTIndicator
    RTIndicator CrossDetector StrategyProperty EngineVersion WindowTimeRTIndicator WindowTime
    InfoStrategySignal BuySignal SellSignal TickerValueSource""".split()
)
FALLBACK_CLASS_NAME = "QtsStrategy"


def derive_class_name(title: str, taken: frozenset[str] = frozenset()) -> str:
    """The Java class name for a strategy title (see the module docstring for the rules).

    ``taken`` holds names of nested classes the generator adds, which the class must not reuse.
    """
    name = "".join(ch for ch in title if ch.isascii() and (ch.isalnum() or ch == "_"))
    if not name:
        return FALLBACK_CLASS_NAME
    if name[0].isdigit() or name in JAVA_KEYWORDS or name in _RESTRICTED_TYPE_NAMES:
        name = "_" + name
    if name in _SHADOWED or name in taken:
        name += "Strategy"
    return name


@dataclass(frozen=True)
class NameExpr:
    """An indicator name as a Java expression, and its value when known at compile time."""

    java: str
    constant: str | None

    @classmethod
    def of(cls, value: str) -> NameExpr:
        return cls(java_string(value), value)


_INT_LITERAL = re.compile(r"[1-9][0-9]*|0")
_SIMPLE_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_LITERAL_NOT_NAME = re.compile(r"-?[0-9][0-9_.]*[dDfFlL]?|true|false|null|'.*'")
_JAVA_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
# Single-argument calls whose argument is a *source*: the name they publish is undocumented.
_SOURCE_FIRST = frozenset(
    {
        "percentChange",
        "rateChange",
        "distanceMa",
        "gain",
        "loss",
        "max",
        "min",
        "sum",
        "bollingerBandwidth",
    }
)
_IN_PLACE = frozenset({"clamp", "round"})
NUMBER_HELPER = "qts$number"


def _string_constant(text: str) -> str | None:
    if not _JAVA_STRING.fullmatch(text):
        return None
    try:
        return decode_string(text)
    except LiteralError:
        return None


def _prefixed(prefix: str, arg: str) -> NameExpr:
    if _INT_LITERAL.fullmatch(arg):
        return NameExpr.of(prefix + arg)
    return NameExpr(f"{java_string(prefix)} + ({arg})", None)


def _number_text(arg: str) -> str | None:
    """How a numeric literal ``k`` is spelled in ``blgr<periods>_<k>`` (2 and 2.0 give "2")."""
    if not _SIMPLE_DECIMAL.fullmatch(arg):
        return None
    value = float(arg)
    if value.is_integer():
        return str(int(value))
    if 1e-3 <= value < 1e7:
        return repr(value)
    return None


def _bollinger(periods: str, k: str) -> NameExpr:
    k_text = _number_text(k)
    if _INT_LITERAL.fullmatch(periods) and k_text is not None:
        return NameExpr.of(f"blgr{periods}_{k_text}")
    k_java = java_string(k_text) if k_text is not None else f"{NUMBER_HELPER}({k})"
    return NameExpr(f'"blgr" + ({periods}) + "_" + {k_java}', None)


def published_name(call: SetupCall) -> NameExpr | str:
    """The name a builder call publishes (for postfix windows), or why it cannot be known.

    ``sma``/``ema`` with one argument and ``rsi`` with one or two publish ``<method><periods>``;
    ``bollinger(periods, k)`` publishes ``blgr<periods>_<k>`` and the window attaches to that
    middle band (the [later] rule of spec §17.8); ``addPrice()`` publishes ``price``. Calls whose
    single argument is a source (``percentChange(src)``, ``max(src)``...) and the in-place
    transformations ``clamp``/``round`` publish undocumented names, so they are refused. Every
    other call takes its name as the first argument.
    """
    method, args = call.method, [a.text for a in call.args]
    if method == "addPrice" and not args:
        return NameExpr.of("price")
    if method in ("sma", "ema") and len(args) == 1:
        return _prefixed(method, args[0])
    if method == "rsi" and len(args) in (1, 2):
        return _prefixed(method, args[0])
    if method == "bollinger" and len(args) == 2:
        return _bollinger(args[0], args[1])
    if (
        method in _IN_PLACE
        or (method in _SOURCE_FIRST and len(args) == 1)
        or (method == "mul" and len(args) == 2)
    ):
        return f"the name that {method}(...) publishes is not documented"
    if not args:
        return f"{method}() has no name argument"
    if _LITERAL_NOT_NAME.fullmatch(args[0]):
        return f"its first argument {args[0]} is not an indicator name"
    constant = _string_constant(args[0])
    return NameExpr(args[0], constant)
