"""The instrument listing under concurrent first requests: built once, handed to every caller.

A cold ``sim`` listing generates a day of tickers per instrument; when thirty requests arrived
together each built its own (12 s each on two cores, the whole server stalled meanwhile).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import backtestd.marketdata.catalogue as catalogue_module
from backtestd.domain.marketdata import DataKind, HourFrame, Instrument, Segment
from backtestd.errors import NotFound
from backtestd.marketdata.catalogue import Catalogue, InstrumentListing
from backtestd.marketdata.sim.generator import SimExchange
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate

NOW = datetime(2026, 6, 2, 14, 0, 30, tzinfo=UTC)
CALLERS = 6


class CountingSim(SimExchange):
    """The sim exchange, counting the hours it generates."""

    def __init__(self) -> None:
        super().__init__(coverage_start=NOW - timedelta(days=2))
        self.generated = 0
        self._count = threading.Lock()

    def generate(self, instrument: Instrument, kind: DataKind, hour: datetime) -> HourFrame:
        with self._count:
            self.generated += 1
        return super().generate(instrument, kind, hour)


def _catalogue(tmp_path: Path, sim: SimExchange) -> Catalogue:
    tmp_path.mkdir(parents=True, exist_ok=True)
    database = Database(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(database)
    return Catalogue(database, {"sim": sim}, clock=lambda: NOW)


def _together(catalogue: Catalogue, exchange_id: str) -> list[InstrumentListing | Exception]:
    start = threading.Barrier(CALLERS)

    def ask(_: int) -> InstrumentListing | Exception:
        start.wait()
        try:
            return catalogue.listing(exchange_id, Segment.SPOT)
        except NotFound as exc:
            return exc

    with ThreadPoolExecutor(CALLERS) as pool:
        return list(pool.map(ask, range(CALLERS)))


def test_concurrent_first_listings_are_built_once_and_shared(tmp_path: Path) -> None:
    alone = CountingSim()
    expected = _catalogue(tmp_path / "alone", alone).listing("sim", Segment.SPOT)
    assert alone.generated > 0
    assert expected.entries

    sim = CountingSim()
    listings = _together(_catalogue(tmp_path / "together", sim), "sim")

    assert all(listing is listings[0] for listing in listings)  # one build, every caller's
    assert sim.generated == alone.generated
    first = listings[0]
    assert isinstance(first, InstrumentListing)
    assert first.entries == expected.entries


def test_an_unknown_exchange_is_not_found_for_every_concurrent_caller(tmp_path: Path) -> None:
    answers = _together(_catalogue(tmp_path, CountingSim()), "nowhere")
    assert all(isinstance(answer, NotFound) for answer in answers)
    assert all("nowhere" in str(answer) for answer in answers)


def test_a_listing_is_built_again_once_it_is_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalogue = _catalogue(tmp_path, CountingSim())
    first = catalogue.listing("sim", Segment.SPOT)
    assert catalogue.listing("sim", Segment.SPOT) is first  # within its 10 s
    monkeypatch.setattr(catalogue_module, "LISTING_TTL_SECONDS", 0.0)
    rebuilt = catalogue.listing("sim", Segment.SPOT)
    assert rebuilt is not first
    assert rebuilt.entries == first.entries  # the same clock, the same day of tickers
