"""Names the generator invents: the Java class name, and the name a window watches.

Class name: every character that cannot appear in a Java identifier is removed and
case is kept (``"RSI reversion"`` -> ``RSIreversion``). Decisions for the cases the spec leaves
open: only ASCII letters, digits and ``_`` are kept (``$`` and non-ASCII letters are dropped, so
class files have portable names); a result that starts with a digit or is a Java keyword gets a
``_`` prefix; an empty result becomes ``QtsStrategy``; a result that would shadow a class the
generated code or typical bodies refer to by simple name (``String``, ``Math``, ``Ticker``...) gets
a ``Strategy`` suffix.
"""

from __future__ import annotations

from dataclasses import dataclass

from .literals import java_string

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
    """The name a window watches, as a Java expression (``constant`` when known statically)."""

    java: str
    constant: str | None

    @classmethod
    def of(cls, value: str) -> NameExpr:
        return cls(java_string(value), value)


# A postfix window (forms 1 and 2) watches whatever the call on its line registered. The engine
# reports that name itself, so the generated code never re-derives the engine's default names
# (``rsi14``, ``blgr20_2``, ``percentChangePrice``...) and cannot disagree with them; for a call
# that publishes several names it is the main one (Bollinger's middle band).
LAST_REGISTERED = NameExpr("indicators.lastRegisteredName()", None)
