"""Resolve the five window forms into listener classes and ``.window(...)`` registrations.

Every inline window and every named section becomes one listener class; a window registration
pairs a listener with the indicator name it watches and a period. Named sections take effect only
through references (forms 2 and 4), except ``Main``, which watches the primary value (``price``, or
``rate`` on funding) when nothing references it. A referenced section always uses its own period.
A postfix window (forms 1 and 2) watches the name its line's call registered, as reported by the
engine at run time (:data:`naming.LAST_REGISTERED`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from backtestd.domain.marketdata import DataType

from .errors import DiagnosticSink
from .naming import LAST_REGISTERED, NameExpr
from .nodes import (
    Block,
    Period,
    Pos,
    Program,
    Section,
    SectionRef,
    SetupCall,
    SetupWindow,
    WindowTarget,
)
from .parsebase import PERIOD_HELP

MAIN = "Main"
_PERIOD_LIKE = re.compile(r"[smhd][0-9]+")
_SECTION_KEYWORDS = frozenset(
    {"strategy", "param", "instruments", "init", "setup", "window", "kline", "funding", "onCommand"}
)


@dataclass(frozen=True)
class Listener:
    """One generated ``AbstractWindowListener`` inner class."""

    class_name: str
    block: Block
    anchor: Pos
    period: Period | None


@dataclass(frozen=True)
class Attachment:
    """``indicators.window(name, period, new Listener(...))`` written at ``anchor``."""

    name: NameExpr
    listener: Listener
    anchor: Pos


@dataclass(frozen=True)
class SetupStep:
    """One ``setup:`` line: an optional builder call, then the windows it registers."""

    call: SetupCall | None
    attachments: tuple[Attachment, ...]


@dataclass(frozen=True)
class WindowPlan:
    steps: tuple[SetupStep, ...]
    listeners: tuple[Listener, ...]


def primary_value(source: DataType) -> str:
    return "rate" if source is DataType.FUNDING else "price"


def plan_windows(program: Program, source: DataType, sink: DiagnosticSink) -> WindowPlan:
    """Build the window plan, reporting unknown and duplicate sections, warning on unused ones."""
    sections = _index_sections(program.sections, sink)
    listeners = {
        name: Listener(f"NamedWindow_{name}", s.block, s.pos, s.period)
        for name, s in sections.items()
    }
    referenced: set[str] = set()
    inline: list[Listener] = []
    steps: list[SetupStep] = []

    def target_listener(target: WindowTarget) -> Listener | None:
        if isinstance(target, SectionRef):
            if target.name not in listeners:
                sink.error(target.pos.line, target.pos.column, _unknown_section(target.name))
                return None
            referenced.add(target.name)
            return listeners[target.name]
        listener = Listener(
            f"InlineWindow{len(inline) + 1}", target.block, target.pos, target.period
        )
        inline.append(listener)
        return listener

    for line in program.setup.lines if program.setup else ():
        if isinstance(line, SetupWindow):
            found = target_listener(line.target)
            attached = (
                () if found is None else (Attachment(NameExpr.of(line.indicator), found, line.pos),)
            )
            steps.append(SetupStep(None, attached))
            continue
        steps.append(SetupStep(line, _postfix(line, target_listener)))

    main = sections.get(MAIN)
    if main is not None and MAIN not in referenced:
        referenced.add(MAIN)
        steps.append(
            SetupStep(
                None, (Attachment(NameExpr.of(primary_value(source)), listeners[MAIN], main.pos),)
            )
        )
    for name, section in sections.items():
        if name not in referenced:
            sink.warn(
                section.pos.line,
                section.pos.column,
                f"section '{name}' is never attached to an indicator, so it never runs; "
                f"reference it from setup: ('window <indicator> {name}')",
            )
    ordered = inline + sorted(listeners.values(), key=lambda li: (li.anchor.line, li.anchor.column))
    return WindowPlan(tuple(steps), tuple(ordered))


def _postfix(
    line: SetupCall, target_listener: Callable[[WindowTarget], Listener | None]
) -> tuple[Attachment, ...]:
    if line.window is None or line.window_pos is None:
        return ()
    found = target_listener(line.window)
    return () if found is None else (Attachment(LAST_REGISTERED, found, line.window_pos),)


def _index_sections(sections: tuple[Section, ...], sink: DiagnosticSink) -> dict[str, Section]:
    index: dict[str, Section] = {}
    for section in sections:
        if section.name in _SECTION_KEYWORDS:
            sink.error(
                section.pos.line,
                section.pos.column,
                f"'{section.name}' is a keyword and cannot name a section",
            )
        elif section.name in index:
            sink.error(
                section.pos.line,
                section.pos.column,
                f"duplicate section '{section.name}' (first declared on line "
                f"{index[section.name].pos.line})",
            )
        else:
            index[section.name] = section
    return index


def _unknown_section(name: str) -> str:
    hint = f" (if a period was meant: {PERIOD_HELP})" if _PERIOD_LIKE.fullmatch(name) else ""
    return (
        f"unknown section '{name}': no 'window {name} [period] {{ ... }}' or "
        f"'{name} [period] {{ ... }}' section is declared{hint}"
    )
