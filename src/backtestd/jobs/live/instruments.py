"""The instruments a run follows: as sent, or resolved from ``*`` against its segment.

A badly formed entry (no ``/``, an empty side, a dot or space inside a side, ``*`` mixed with
other characters) is accepted at start and fails the run with the fixed sentence
``Reasons.DEFINITION_REFUSED`` (§3.1, §7.17).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from backtestd.domain.marketdata import Instrument

_SIDE = re.compile(r"^(\*|[A-Za-z0-9-]+)$")


class DefinitionRefused(ValueError):
    """The run's instruments cannot be followed."""


def resolve(entries: Sequence[str], universe: Sequence[Instrument]) -> list[Instrument]:
    """The instruments named by ``entries`` (``["*"]``: the whole ``universe``)."""
    chosen: list[Instrument] = []
    for entry in entries:
        if entry.strip() == "*":
            matches = list(universe)
        else:
            base, sep, quote = entry.strip().upper().partition("/")
            if not sep or not _SIDE.match(base) or not _SIDE.match(quote):
                raise DefinitionRefused(f"instrument {entry!r} is not BASE/QUOTE")
            if base == "*" and quote == "*":
                matches = list(universe)
            elif base == "*" or quote == "*":
                matches = [
                    i
                    for i in universe
                    if (base == "*" or i.base == base) and (quote == "*" or i.quote == quote)
                ]
            else:
                matches = [Instrument(base, quote)]
        for instrument in matches:
            if instrument not in chosen:
                chosen.append(instrument)
    if not chosen:
        raise DefinitionRefused(f"no instrument of the segment matches {list(entries)}")
    return chosen
