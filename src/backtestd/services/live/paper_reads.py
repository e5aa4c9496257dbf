"""Reads of a run's paper trading (§3.11, §3.12, §6.4): its accounts and its equity curves.

The executor stores the book and the curves in the database (``jobs/live/paper.py``), so any
API replica answers. Readers are those of the run's signals (the owner; anyone once the run is
public, ``LIVE`` and running); a run started without ``paper`` has none (404).

Curves (§6.4): without ``instrument`` an account's equity (after each closed trade, and each
minute's mark while a position is open) with its gaps; with ``instrument`` in a shared
(``currency``) run that instrument's cumulative realised PnL (``realisedPnl``), or realised
plus unrealised at its trades and marks (``totalPnl``); in an ``instrument`` run,
``instrument`` picks that instrument's account. Unpaged reads give the whole curve from
``sinceMs`` shaped by ``resample``/``differential``/``outMode`` (the server forces ``SHORT``
above 5,000 points, resamples to 10,000 when more exist and no ``resample`` was given, and
refuses more than 200,000 raw entries, §7.10); paged reads (``limit``/``cursor``) give raw
entries, a gap counting as one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from backtestd.domain.equity import OutMode, ShapedCurve
from backtestd.domain.live import LiveRunRecord, LiveStage
from backtestd.domain.paper import AccountsMode, AccountView, PointKind
from backtestd.engine.equity_curve import build_equity_curve
from backtestd.engine.paper import PaperSimulation
from backtestd.errors import InvalidInput, NotFound
from backtestd.jobs.live.paper import paper_settings
from backtestd.services.live.runs import LiveRunService
from backtestd.services.live.signal_reads import decode_cursor, encode_cursor
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.paper import PaperRepository

DEFAULT_PAGE = 100
MAX_PAGE = 1000
FORCE_SHORT_ABOVE = 5_000
RESAMPLE_ABOVE = 10_000
MAX_UNPAGED = 200_000
MEASURES = ("realised_pnl", "total_pnl")
MAX_MS = 2**63 - 1
_SYMBOL = re.compile(r"^[A-Za-z0-9-]+/[A-Za-z0-9-]+$")


@dataclass(frozen=True)
class PaperView:
    """``LivePaper``: the run's accounts as last recorded."""

    run_id: str
    stage: LiveStage
    accounts: tuple[AccountView, ...]


@dataclass(frozen=True)
class CurveQuery:
    """A ``GET /live/{runId}/paper/equity`` as asked (checked by :func:`curve_query`)."""

    currency: str | None = None
    instrument: str | None = None
    measure: str | None = None
    since_ms: int | None = None
    out_mode: OutMode = OutMode.ARRAY
    resample: int | None = None
    differential: bool = False
    limit: int | None = None
    after_seq: int | None = None

    @property
    def paged(self) -> bool:
        return self.limit is not None or self.after_seq is not None


@dataclass(frozen=True)
class CurvePage:
    """``LivePaperEquityCurve``: what was read, shaped."""

    measure: str
    gaps: tuple[int, ...]
    curve: ShapedCurve
    currency: str | None = None
    instrument: str | None = None
    next_cursor: str | None = None


def curve_query(
    currency: str | None,
    instrument: str | None,
    measure: str | None,
    since_ms: int | None,
    out_mode: str | None,
    resample: int | None,
    differential: bool | None,
    limit: int | None,
    cursor: str | None,
) -> CurveQuery:
    """The query's values checked one by one; every problem is a 400 naming the parameter."""
    if measure is not None and measure not in MEASURES:
        raise InvalidInput(
            f"measure {measure!r} is not realisedPnl or totalPnl", reason="INVALID_MEASURE"
        )
    if since_ms is not None and not 0 <= since_ms <= MAX_MS:
        raise InvalidInput(
            f"sinceMs {since_ms} must be epoch milliseconds (0 to {MAX_MS})",
            reason="INVALID_SINCE",
        )
    mode = (out_mode or OutMode.ARRAY.value).strip().upper()
    if mode not in OutMode.__members__:
        raise InvalidInput(f"outMode {out_mode!r} is not ARRAY or SHORT", reason="INVALID_OUT_MODE")
    if limit is not None and limit < 1:
        raise InvalidInput(f"limit {limit} must be at least 1", reason="INVALID_LIMIT")
    if resample is not None:
        if limit is not None or cursor is not None:
            raise InvalidInput(
                "resample shapes a whole curve; a paged read (limit or cursor) is raw: drop "
                "resample, or drop limit and cursor",
                reason="RESAMPLE_WITH_PAGING",
            )
        if resample < 2:
            raise InvalidInput(
                f"resample {resample} must be at least 2 (the first and last points are kept)",
                reason="INVALID_RESAMPLE",
            )
    if instrument is not None and not _SYMBOL.match(instrument.strip()):
        raise InvalidInput(
            f"instrument {instrument!r} is not one instrument BASE/QUOTE (no wildcards here)",
            reason="INVALID_INSTRUMENT",
        )
    if currency is not None and not currency.strip():
        raise InvalidInput(
            "currency is empty; name an account's currency", reason="INVALID_CURRENCY"
        )
    return CurveQuery(
        currency=currency.strip() if currency is not None else None,
        instrument=instrument.strip() if instrument is not None else None,
        measure=measure,
        since_ms=since_ms,
        out_mode=OutMode(mode),
        resample=resample,
        differential=bool(differential),
        limit=min(limit, MAX_PAGE) if limit is not None else (DEFAULT_PAGE if cursor else None),
        after_seq=decode_cursor(cursor) if cursor is not None else None,
    )


@dataclass(frozen=True)
class _Target:
    """Which entries make the asked curve."""

    measure: str
    account: str | None
    currency: str | None
    instrument: str | None
    kinds: tuple[PointKind, ...]
    instrument_filter: str | None
    with_gaps: bool
    use_total: bool = False


class LivePaperReads:
    def __init__(self, database: Database, runs: LiveRunService) -> None:
        self._database = database
        self._runs = runs

    def paper(self, user_id: str | None, run_id: str) -> PaperView:
        record, simulation = self._book(user_id, run_id)
        return PaperView(run_id, record.stage, simulation.views())

    def equity(self, user_id: str | None, run_id: str, query: CurveQuery) -> CurvePage:
        record, simulation = self._book(user_id, run_id)
        target = _target(record, simulation, query)
        gaps: list[int] = []
        ts: list[int] = []
        values: list[float] = []
        next_cursor = None
        if target.account is not None:
            wanted = (query.limit + 1) if query.limit is not None else MAX_UNPAGED + 1
            with self._database.unit_of_work() as uow:
                entries = PaperRepository(uow.session).points(
                    run_id,
                    target.account,
                    kinds=target.kinds,
                    instrument=target.instrument_filter,
                    gap_kinds=(PointKind.GAP,) if target.with_gaps else (),
                    since_ms=query.since_ms,
                    after_seq=query.after_seq,
                    limit=wanted,
                )
            if query.limit is not None:
                if len(entries) > query.limit:
                    entries = entries[: query.limit]
                    next_cursor = encode_cursor(entries[-1].seq)
            elif len(entries) > MAX_UNPAGED:
                raise InvalidInput(
                    f"the curve has more than {MAX_UNPAGED} entries from sinceMs="
                    f"{query.since_ms or 0}; narrow it with a later sinceMs, or page it with limit",
                    reason="CURVE_TOO_LONG",
                )
            for entry in entries:
                if entry.kind is PointKind.GAP:
                    gaps.append(entry.ts_ms)
                    continue
                ts.append(entry.ts_ms)
                value = entry.total if target.use_total else entry.value
                values.append(entry.value if value is None else value)
        curve = self._shape(query, np.array(ts, dtype=np.int64), np.array(values, dtype=np.float64))
        return CurvePage(
            measure=target.measure,
            gaps=tuple(gaps),
            curve=curve,
            currency=target.currency,
            instrument=target.instrument,
            next_cursor=next_cursor,
        )

    def _shape(self, query: CurveQuery, ts: np.ndarray, values: np.ndarray) -> ShapedCurve:
        if query.paged:
            return build_equity_curve(ts, values, delta=query.differential, out_mode=query.out_mode)
        resample = query.resample
        if resample is None and ts.shape[0] > RESAMPLE_ABOVE:
            resample = RESAMPLE_ABOVE
        return build_equity_curve(
            ts,
            values,
            resample_to=resample,
            delta=query.differential,
            out_mode=query.out_mode,
            force_short_above=FORCE_SHORT_ABOVE,
        )

    def _book(self, user_id: str | None, run_id: str) -> tuple[LiveRunRecord, PaperSimulation]:
        record = self._runs.readable(user_id, run_id)
        if record.paper is None:
            raise NotFound(
                f"live run {run_id!r} was started without paper trading; start a run with a "
                'paper block ("paper": {}) to trade it on paper'
            )
        with self._database.unit_of_work() as uow:
            stored = PaperRepository(uow.session).book(run_id)
        state = stored.state if stored is not None else None
        return record, PaperSimulation(paper_settings(record.paper), state)


def _target(record: LiveRunRecord, simulation: PaperSimulation, query: CurveQuery) -> _Target:
    """Which account, and which of its entries, ``query`` asks for (§6.4)."""
    assert record.paper is not None
    isolated = record.paper.accounts == AccountsMode.INSTRUMENT.value
    accounts = list(simulation.accounts.values())
    instrument = query.instrument
    if instrument is not None:
        quote = instrument.rsplit("/", 1)[1]
        if query.currency is not None and query.currency != quote:
            raise InvalidInput(
                f"instrument {instrument} trades in {quote}, not in currency {query.currency}; "
                "drop currency or name the instrument's own",
                reason="CURRENCY_MISMATCH",
            )
        if isolated:
            _no_total(query, "an instrument account's curve is its equity")
            return _Target(
                "equity", instrument, quote, instrument, (PointKind.EQUITY, PointKind.MARK),
                None, with_gaps=True,
            )  # fmt: skip
        total = query.measure == "total_pnl"
        kinds = (PointKind.TRADE, PointKind.INSTRUMENT_MARK) if total else (PointKind.TRADE,)
        return _Target(
            "total_pnl" if total else "realised_pnl", quote, quote, instrument, kinds, instrument,
            with_gaps=False, use_total=total,
        )  # fmt: skip
    _no_total(query, "an account's curve is its equity; totalPnl applies to instrument curves")
    if query.currency is not None:
        named = [a for a in accounts if a.currency == query.currency]
        if len(named) > 1:
            raise InvalidInput(
                f"currency {query.currency} names {len(named)} accounts of this run (one per "
                "instrument); choose one with instrument",
                reason="SEVERAL_ACCOUNTS",
            )
        chosen = named[0] if named else None
        key = chosen.key if chosen is not None else (None if isolated else query.currency)
        shown = chosen.instrument if chosen is not None else None
        return _Target(
            "equity", key, query.currency, shown, (PointKind.EQUITY, PointKind.MARK), None,
            with_gaps=True,
        )  # fmt: skip
    if len(accounts) > 1:
        names = ", ".join(a.instrument or a.currency for a in accounts)
        raise InvalidInput(
            f"this run has {len(accounts)} accounts ({names}); choose one with "
            + ("instrument" if isolated else "currency"),
            reason="SEVERAL_ACCOUNTS",
        )
    if not accounts:
        return _Target("equity", None, None, None, (), None, with_gaps=False)
    only = accounts[0]
    return _Target(
        "equity", only.key, only.currency, only.instrument, (PointKind.EQUITY, PointKind.MARK),
        None, with_gaps=True,
    )  # fmt: skip


def _no_total(query: CurveQuery, why: str) -> None:
    """``realisedPnl`` (what the generated client always sends) is ignored where it does not
    apply; ``totalPnl`` there is a 400 (§7.11)."""
    if query.measure == "total_pnl":
        raise InvalidInput(f"measure=totalPnl does not apply here: {why}", reason="INVALID_MEASURE")
