"""What a prepare and an execute produced: the typed results the workers store and the read
routes serialise (``api/schemas/backtests.py`` builds the wire from them).

The job row keeps a result through the one serialisation of ``domain/serial.py``. An execute
that failed before it loaded its data stored no identity (strategy context, instrument, host,
iops); ``services/job_views.execute_result`` is the one place that fills it in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from backtestd.domain.backtests import FrozenParams
from backtestd.domain.equity import ShapedCurve

SignalsUpload = Literal["Done", "Failed", "Skipped"]
Rationale = Literal["low_activity", "pending_conversion", "unknown"]
"""Why an hour of a managed prepare holds no row."""


@dataclass(frozen=True)
class Metrics:
    """The metric set shared by ``execute`` results and sweep rows (computed by the engine)."""

    pnl_total: float
    pnl_total_percent: float
    total_trades: int
    win_rate: float
    sharpe_ratio: float
    sortino_ratio: float
    cagr: float
    max_drawdown: float
    max_drawdown_percent: float


@dataclass(frozen=True)
class SignalsOutcome:
    """What became of the signals of an execute that asked to store them (``storeSignals``).

    ``key`` is the object key of the stored parquet file; the read side turns it into a signed
    link and never shows the key itself.
    """

    count: int
    upload: SignalsUpload
    reason: str | None = None
    signals_id: str | None = None
    key: str | None = None
    uploaded_at: str | None = None


@dataclass(frozen=True)
class ExecuteResult:
    """One execute's results.

    ``metrics`` is ``None`` without a trade (the wire then omits every metric), as is
    ``equity_curve``, already shaped by the request's options. ``notices`` are the engine's
    warnings, at most a display cap of them; ``notices_truncated`` counts the rest.
    """

    strategy_context: str = ""
    instrument: str = ""
    host_name: str = ""
    iops: float = 0
    params: FrozenParams | None = None
    metrics: Metrics | None = None
    equity_curve: ShapedCurve | None = None
    notices: tuple[str, ...] = ()
    notices_truncated: int | None = None
    signals: SignalsOutcome | None = None

    @staticmethod
    def context_of(user_id: str, strategy_id: str) -> str:
        """The execution-context id a result names its strategy by."""
        return f"strategy:{user_id}:{strategy_id}"


@dataclass(frozen=True)
class HourWithoutData:
    """One hour of a managed prepare's range that holds no row, and why."""

    hour: datetime
    expected: int
    rationale: Rationale


@dataclass(frozen=True)
class PrepareOutcome:
    """A finished prepare's report: the data actually found, and how well it covers the range.

    A managed exchange reports its hourly coverage (``total_hours`` … ``hours_without_data``);
    a prepare of a user dataset reports its grid instead (``cadence``, ``gaps``,
    ``largest_gap_steps``, and ``coverage_ratio`` as the share of grid steps that hold a row).
    """

    data_from: datetime | None = None
    data_to: datetime | None = None
    coverage_ratio: float | None = None
    total_hours: int | None = None
    hours_with_data: int | None = None
    closed_hours: int | None = None
    hours_without_data: tuple[HourWithoutData, ...] | None = None
    cadence: str | None = None
    gaps: int | None = None
    largest_gap_steps: int | None = None
