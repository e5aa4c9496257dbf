"""The QTScript syntax tree: frozen dataclasses, one per construct of the QTScript grammar.

Java bodies are not parsed; a :class:`Block` only records where its braces are, and the generator
copies the text between them. Every node keeps the position the author wrote it at, because every
diagnostic and every line-map entry points back there.
"""

from __future__ import annotations

from dataclasses import dataclass

from backtestd.domain.marketdata import DataType


@dataclass(frozen=True)
class Pos:
    """A 1-based line and column in the QTScript text."""

    line: int
    column: int


@dataclass(frozen=True)
class Header:
    """``strategy NAME [kline|funding]``; ``name`` is the decoded title."""

    name: str
    quoted: bool
    source: DataType
    pos: Pos


@dataclass(frozen=True)
class QtsParam:
    """A ``param``: also the public description of a declared property.

    ``default`` is the ``defaultValue`` string (a string param's decoded value, or the number or
    boolean as written); ``literal`` is the literal exactly as written in the source.
    """

    name: str
    java_type: str
    default: str
    literal: str
    description: str | None
    line: int
    column: int


@dataclass(frozen=True)
class Block:
    """A ``{ ... }`` Java body: offsets of its two braces in the canonical text."""

    open: int
    close: int
    pos: Pos


@dataclass(frozen=True)
class Init:
    block: Block
    pos: Pos


@dataclass(frozen=True)
class PairEntry:
    """``BASE/QUOTE``; ``None`` stands for the ``*`` wildcard. Codes are upper-cased."""

    base: str | None
    quote: str | None
    pos: Pos


@dataclass(frozen=True)
class RegexEntry:
    """``~"..."``: ``pattern`` is the text between the quotes, taken raw (no escapes decoded)."""

    pattern: str
    pos: Pos


@dataclass(frozen=True)
class InstrumentList:
    """The declarative form; no entries means ``instruments *`` (accept what the default does)."""

    entries: tuple[PairEntry | RegexEntry, ...]
    pos: Pos


@dataclass(frozen=True)
class InstrumentNative:
    """``instruments { ... }``: the body of ``acceptInstrument``."""

    block: Block
    pos: Pos


@dataclass(frozen=True)
class Period:
    """A window period: a ``WindowTime`` member name or a whole number of seconds."""

    window_time: str | None
    seconds: int | None
    pos: Pos


@dataclass(frozen=True)
class InlineWindow:
    """``window [period] { body }`` after a call or an indicator name (forms 1 and 3)."""

    period: Period | None
    block: Block
    pos: Pos


@dataclass(frozen=True)
class SectionRef:
    """``window SectionName`` (forms 2 and 4): body and period come from the section."""

    name: str
    pos: Pos


WindowTarget = InlineWindow | SectionRef


@dataclass(frozen=True)
class Argument:
    """One argument of a setup call, as Java text."""

    text: str
    pos: Pos


@dataclass(frozen=True)
class SetupCall:
    """A builder call line, optionally followed by a postfix window (forms 1 and 2)."""

    method: str
    args: tuple[Argument, ...]
    text: str
    pos: Pos
    window: WindowTarget | None
    window_pos: Pos | None


@dataclass(frozen=True)
class SetupWindow:
    """``window indicatorName target`` inside ``setup:`` (forms 3 and 4)."""

    indicator: str
    indicator_pos: Pos
    target: WindowTarget
    pos: Pos


SetupLine = SetupCall | SetupWindow


@dataclass(frozen=True)
class Setup:
    lines: tuple[SetupLine, ...]
    pos: Pos


@dataclass(frozen=True)
class Section:
    """A named window section at column 1 (form 5)."""

    name: str
    period: Period | None
    block: Block
    pos: Pos


@dataclass(frozen=True)
class OnCommand:
    """``onCommand { ... }`` ([later] in the spec): compiled, never invoked by this service."""

    block: Block
    pos: Pos


@dataclass(frozen=True)
class Program:
    """A whole file. ``header`` is ``None`` only when the file had errors."""

    header: Header | None
    params: tuple[QtsParam, ...]
    init: Init | None
    instruments: InstrumentList | InstrumentNative | None
    setup: Setup | None
    sections: tuple[Section, ...]
    on_command: OnCommand | None
