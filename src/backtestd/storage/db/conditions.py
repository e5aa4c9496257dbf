"""SQL conditions shared by the repositories that move rows along a transition table."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Column
from sqlalchemy.sql.elements import ColumnElement


def status_in(column: Column[Any], states: Iterable[enum.StrEnum]) -> ColumnElement[bool]:
    """``column IN (states)``, the values sorted so that the statement's text, and with it
    SQLAlchemy's statement cache, is the same whatever order the set iterates in."""
    return column.in_(sorted(state.value for state in states))
