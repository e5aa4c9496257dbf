"""The ``hour`` of a download: malformed or pre-epoch hours are 400, well-formed future hours
404 (however far ahead), and nothing overflows into a 500."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from backtestd.errors import InvalidInput, NotFound
from backtestd.services.market import parse_hour

NOW = datetime(2026, 6, 1, 12, 30, tzinfo=UTC)


@pytest.mark.parametrize("text", ["1969-12-31T23", "0001-01-01T00"])
def test_hours_before_the_epoch_are_invalid_input(text: str) -> None:
    with pytest.raises(InvalidInput, match="out of range"):
        parse_hour(text, NOW)


@pytest.mark.parametrize(
    "text", ["2026-06-01T13", "2026-06-02T12", "2027-01-01T00", "9999-12-31T23"]
)
def test_well_formed_hours_in_the_future_are_not_found(text: str) -> None:
    with pytest.raises(NotFound, match="not yet available"):
        parse_hour(text, NOW)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1970-01-01T00", datetime(1970, 1, 1, tzinfo=UTC)),
        ("2026-06-01T11", datetime(2026, 6, 1, 11, tzinfo=UTC)),
        ("2026-06-01T12", datetime(2026, 6, 1, 12, tzinfo=UTC)),  # current: the store says 404
    ],
)
def test_hours_up_to_the_current_one_parse(text: str, expected: datetime) -> None:
    assert parse_hour(text, NOW) == expected
