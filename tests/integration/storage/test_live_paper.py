"""The paper book and its curves on both databases: exact floats, one book per run, and the
curve selections the equity route reads (an account's equity and marks with its gaps, an
instrument's trades and marks)."""

from __future__ import annotations

from backtestd.domain.paper import PaperPoint, PointKind
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.paper import PaperRepository

RUN = "r" * 22
AWKWARD = 0.1 + 0.2  # 0.30000000000000004: survives only an exact round trip


def _points() -> list[PaperPoint]:
    return [
        PaperPoint(1, "USDT", PointKind.EQUITY, 1_000, None, 1000.0 + AWKWARD),
        PaperPoint(2, "USDT", PointKind.TRADE, 1_000, "BTC/USDT", AWKWARD, AWKWARD),
        PaperPoint(3, "USDT", PointKind.MARK, 60_000, None, 999.5),
        PaperPoint(4, "USDT", PointKind.INSTRUMENT_MARK, 60_000, "ETH/USDT", 0.0, -0.5),
        PaperPoint(5, "USDT", PointKind.GAP, 70_000, "ETH/USDT", 123.0),
        PaperPoint(6, "BTC", PointKind.EQUITY, 80_000, None, 1.5),
        PaperPoint(7, "USDT", PointKind.TRADE, 90_000, "ETH/USDT", -1e-300, -1e-300),
    ]


def test_the_book_is_stored_once_per_run_and_reads_back_bit_for_bit(database: Database) -> None:
    with database.unit_of_work() as uow:
        books = PaperRepository(uow.session)
        assert books.book(RUN) is None
        books.save(RUN, {"free": AWKWARD, "n": 1}, 10)
        books.save(RUN, {"free": AWKWARD * 3, "n": 2}, 20)
    with database.unit_of_work() as uow:
        book = PaperRepository(uow.session).book(RUN)
    assert book is not None
    assert dict(book.state) == {"free": AWKWARD * 3, "n": 2}
    assert book.updated_at_ms == 20


def test_curves_select_an_accounts_or_an_instruments_entries(database: Database) -> None:
    with database.unit_of_work() as uow:
        PaperRepository(uow.session).add_points(RUN, _points())
    with database.unit_of_work() as uow:
        books = PaperRepository(uow.session)
        account = books.points(
            RUN,
            "USDT",
            kinds=(PointKind.EQUITY, PointKind.MARK),
            gap_kinds=(PointKind.GAP,),
        )
        realised = books.points(RUN, "USDT", kinds=(PointKind.TRADE,), instrument="ETH/USDT")
        total = books.points(
            RUN,
            "USDT",
            kinds=(PointKind.TRADE, PointKind.INSTRUMENT_MARK),
            instrument="ETH/USDT",
        )
        since = books.points(RUN, "USDT", kinds=(PointKind.EQUITY, PointKind.MARK), since_ms=2_000)
        after = books.points(
            RUN, "USDT", kinds=(PointKind.EQUITY, PointKind.MARK), after_seq=1, since_ms=0, limit=1
        )
        assert books.count(RUN) == 7
    assert [p.seq for p in account] == [1, 3, 5]
    assert account[0].value == 1000.0 + AWKWARD
    assert [p.seq for p in realised] == [7]
    assert realised[0].value == -1e-300
    assert [(p.seq, p.total) for p in total] == [(4, -0.5), (7, -1e-300)]
    assert [p.seq for p in since] == [3]
    assert [p.seq for p in after] == [3]  # a cursor wins over sinceMs
