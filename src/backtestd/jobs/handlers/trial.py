"""One trial: a strategy's signals over a prepared dataset turned into a portfolio and metrics.

``execute`` and every sweep trial go through :func:`evaluate`, so a sweep winner re-run through
``POST .../execute`` with the same params agrees with its leaderboard row on every metric.
Prepared columns are loaded once per job (:func:`load_prepared`) and shared by all its trials.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
from pydantic import ValidationError

from backtestd.domain.backtest_results import Metrics
from backtestd.domain.backtests import BaseConfig, PreparedManifest, RunLimit
from backtestd.domain.marketdata import CLOSE_TS, DataType, Instrument, column_dtype
from backtestd.domain.serial import from_stored
from backtestd.engine.metrics import compute_metrics
from backtestd.engine.portfolio import (
    ExecutionMode,
    FeeLeg,
    Marks,
    PortfolioConfig,
    PortfolioResult,
    simulate_marks,
    trigger_prices,
)
from backtestd.jobs import prepared_cache
from backtestd.jobs.context import WorkerContext
from backtestd.storage.objects.keys import prepared_column_key, prepared_manifest_key
from backtestd.strategy.jvm import RunResult

TICKER_GRID_MS = 60_000


class TrialFailed(Exception):
    """The prepared data cannot be used; the message is shown to the user."""


@dataclass(frozen=True)
class PreparedData:
    """A prepared dataset as one job's trials see it: column files and the mark series."""

    prepare_id: str
    instrument: Instrument
    feed: DataType
    columns: dict[str, Path]
    marks_ts: npt.NDArray[np.int64]
    marks_px: npt.NDArray[np.float64]
    from_ms: int
    to_ms: int
    grid_step_ms: int
    _marks: dict[tuple[int, int], Marks] = field(default_factory=dict, compare=False, repr=False)

    @property
    def rows(self) -> int:
        return int(self.marks_ts.shape[0])

    def window_ms(self, rows: tuple[int, int] | None) -> tuple[int, int]:
        """The time range ``[from, to)`` a run over rows ``[start, stop)`` covers.

        A window starts at its first row's event time and ends where the next window's first
        row starts (or at the prepared ``to``), so consecutive windows tile the session.
        """
        if rows is None:
            return self.from_ms, self.to_ms
        start, stop = rows
        lo = self.from_ms if start == 0 else int(self.marks_ts[start])
        hi = self.to_ms if stop >= self.rows else int(self.marks_ts[stop])
        return lo, max(hi, lo + 1)

    def marks(self, rows: tuple[int, int] | None) -> Marks:
        """The marks of a window, cut once and shared by the job's trials
        (the last two windows are kept: a walk-forward fold uses its in- and out-of-sample)."""
        window = self.window_ms(rows)
        marks = self._marks.get(window)
        if marks is None:
            marks = Marks.cut(
                self.marks_ts,
                self.marks_px,
                from_ms=window[0],
                to_ms=window[1],
                grid_step_ms=self.grid_step_ms,
            )
            while len(self._marks) >= 2:
                del self._marks[next(iter(self._marks))]
            self._marks[window] = marks
        return marks


def _manifest(ctx: WorkerContext, prepare_id: str) -> PreparedManifest:
    blob = ctx.objects.get(prepared_manifest_key(prepare_id))
    if blob is None:
        raise TrialFailed(f"prepared data of {prepare_id} is missing; prepare again")
    try:
        return from_stored(PreparedManifest, json.loads(blob))
    except ValidationError:
        raise TrialFailed(
            f"prepared data of {prepare_id} was written by an earlier release of the service; "
            "prepare the range again"
        ) from None


@dataclass(frozen=True)
class RunBudget:
    """The CPU and wall-clock limits of one run on a worker."""

    cpu_s: float
    wall_s: float

    @classmethod
    def of(cls, ctx: WorkerContext, limit: RunLimit | None) -> RunBudget:
        """The server's limits (``run_cpu_limit_seconds``, wall twice that plus 5 s), narrowed
        by the tier's ``maxRunSeconds`` that travelled with the job."""
        cpu = ctx.settings.run_cpu_limit_seconds
        wall = 2 * cpu + 5
        if limit is None:
            return cls(cpu, wall)
        return cls(limit.cpu_seconds(cpu), min(wall, limit.seconds))


def load_prepared(ctx: WorkerContext, prepare_id: str, data_type: str) -> PreparedData:
    """The prepared columns of ``prepare_id``, rebuilt first when they were reclaimed
    (``jobs/prepared_cache.py``); each load refreshes the prepare's place in the LRU order."""
    manifest = _manifest(ctx, prepare_id)
    if not prepared_cache.columns_present(ctx, manifest):
        try:
            prepared_cache.rebuild(ctx, manifest)
        except prepared_cache.RebuildFailed as exc:
            raise TrialFailed(str(exc)) from None
    prepared_cache.used(ctx, prepare_id, force=True)
    paths: dict[str, Path] = {}
    for name in manifest.columns:
        path = ctx.objects.local_path(prepared_column_key(prepare_id, name))
        if path is None or not path.exists():
            raise TrialFailed(f"prepared column {name} of {prepare_id} is missing")
        paths[name] = path
    feed = DataType(data_type)
    ts_name, px_name = (CLOSE_TS, "close") if feed is DataType.KLINE else ("ts", "last")
    return PreparedData(
        prepare_id=prepare_id,
        instrument=Instrument.parse(manifest.instrument),
        feed=feed,
        columns=paths,
        marks_ts=np.fromfile(paths[ts_name], dtype=column_dtype(ts_name)).astype(
            np.int64, copy=False
        ),
        marks_px=np.fromfile(paths[px_name], dtype=column_dtype(px_name)).astype(
            np.float64, copy=False
        ),
        from_ms=manifest.window_ms()[0],
        to_ms=manifest.window_ms()[1],
        grid_step_ms=manifest.spec.cadence_ms if feed is DataType.KLINE else TICKER_GRID_MS,
    )


def portfolio_config(base: BaseConfig, run: RunResult) -> PortfolioConfig:
    """The portfolio settings of a run: the request's ``baseConfig`` and the strategy's own."""
    gain = run.percent_gain
    return PortfolioConfig(
        initial_funding=base.initial_funding,
        buy_fee_rate=base.buy_fee_rate,
        sell_fee_rate=base.sell_fee_rate,
        fee_leg=FeeLeg(base.fee_leg),
        percent_amount_to_lock=base.percent_amount_to_lock,
        mode=ExecutionMode(run.execution_mode or "LONG"),
        percent_gain=gain if gain and math.isfinite(gain) and gain > 0 else None,
        multi_entry=run.multi_entry,
    )


def evaluate(
    data: PreparedData,
    run: RunResult,
    base_config: BaseConfig,
    rows: tuple[int, int] | None = None,
) -> tuple[PortfolioResult, Metrics]:
    """Portfolio and metrics of one run over the whole session, or over rows ``[start, stop)``."""
    trading = run.signal_side != 0
    sig_ts, sig_px = run.signal_ts[trading], run.signal_price[trading]
    if data.feed is DataType.TICKER:
        # A window close is emitted at the next tick: fill at that tick, not at the stale close.
        sig_px = trigger_prices(sig_ts, sig_px, data.marks_ts, data.marks_px)
    portfolio = simulate_marks(
        sig_ts,
        run.signal_side[trading],
        sig_px,
        data.marks(rows),
        portfolio_config(base_config, run),
    )
    return portfolio, compute_metrics(portfolio)
