"""Small, valid job specs and rows for tests that need a job row but not a run."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from backtestd.domain.backtests import ExecuteSpec, PrepareSpec
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus
from backtestd.domain.marketdata import DataType

START = datetime(2026, 1, 1, tzinfo=UTC)
END = datetime(2026, 1, 2, tzinfo=UTC)


def prepare_spec(instrument: str = "BTC/USDT") -> PrepareSpec:
    return PrepareSpec("sim", DataType.TICKER, instrument, START, END, "1s", 1_000)


def execute_spec(strategy_id: str = "strat", **params: int) -> ExecuteSpec:
    return ExecuteSpec("prep", strategy_id, params=params)


def new_job(job_id: str, **fields: Any) -> JobRecord:
    """A NEW prepare job of user ``u`` over :func:`prepare_spec`, created now; ``fields``
    replace any of that (``kind``, ``created_at``, ``status_detail``, ...)."""
    job = JobRecord(
        job_id=job_id,
        user_id="u",
        kind=JobKind.PREPARE,
        exchange_id="sim",
        data_type="ticker",
        spec=prepare_spec(),
        status=JobStatus.NEW,
        created_at=datetime.now(UTC),
    )
    return replace(job, **fields)
