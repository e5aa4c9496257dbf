"""The one wire spelling of instants: ISO-8601 UTC with a ``Z``."""

from __future__ import annotations

from datetime import datetime


def iso_z(moment: datetime | None) -> str | None:
    """``2026-08-20T09:00:00Z`` (fractional seconds kept); ``None`` stays ``None``."""
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")
