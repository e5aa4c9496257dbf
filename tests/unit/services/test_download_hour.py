"""The ``hour`` of a download: malformed or impossible hours are 400 (never a 500)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from backtestd.errors import InvalidInput
from backtestd.services.market import parse_hour

NOW = datetime(2026, 6, 1, 12, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "text", ["9999-12-31T23", "2027-01-01T00", "1969-12-31T23", "0001-01-01T00"]
)
def test_hours_outside_any_possible_coverage_are_invalid_input(text: str) -> None:
    with pytest.raises(InvalidInput, match="out of range"):
        parse_hour(text, NOW)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1970-01-01T00", datetime(1970, 1, 1, tzinfo=UTC)),
        ("2026-06-01T12", datetime(2026, 6, 1, 12, tzinfo=UTC)),
        ("2026-06-02T12", datetime(2026, 6, 2, 12, tzinfo=UTC)),  # a day ahead: 404 later
    ],
)
def test_hours_up_to_a_day_ahead_parse(text: str, expected: datetime) -> None:
    assert parse_hour(text, NOW) == expected
