"""Small, valid job specs for tests that need a job row but not a run."""

from __future__ import annotations

from datetime import UTC, datetime

from backtestd.domain.backtests import ExecuteSpec, PrepareSpec
from backtestd.domain.marketdata import DataType

START = datetime(2026, 1, 1, tzinfo=UTC)
END = datetime(2026, 1, 2, tzinfo=UTC)


def prepare_spec(instrument: str = "BTC/USDT") -> PrepareSpec:
    return PrepareSpec("sim", DataType.TICKER, instrument, START, END, "1s", 1_000)


def execute_spec(strategy_id: str = "strat", **params: int) -> ExecuteSpec:
    return ExecuteSpec("prep", strategy_id, params=params)
