"""The validation dry run: a registered strategy over a short sample of ``sim`` data.

For each data source the strategy requires, it runs with its declared defaults over one recent
complete hour of ``sim`` data (tickers or one-second klines of BTC/USDT; for funding, the last
three days of BTC/USDT:USDT funding). Sandbox violations, unknown indicator names, property
problems and runtime exceptions make the verdict ``failed`` with notices that say what and
where (``QTS line N`` for QTScript).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from backtestd.domain.marketdata import DataKind, DataType, HourFrame, Instrument, hour_start
from backtestd.domain.strategies import Notice, StrategyRecord, Validation
from backtestd.engine.prepare import assemble
from backtestd.marketdata.store import HourlyStore
from backtestd.strategy.failures import describe_run_failure
from backtestd.strategy.jvm import EnginePool, RunFailure, RunRequest, write_columns

PROVENANCE = "compile-dry-run"
SPOT = Instrument("BTC", "USDT")
PERP = Instrument("BTC", "USDT", "USDT")
SAMPLE_CADENCE_MS = 1000  # one-second bars, the store's native kline cadence
SOURCE_FEEDS = {"Ticker": DataType.TICKER, "KLine": DataType.KLINE, "FundingRate": DataType.FUNDING}


@dataclass(frozen=True)
class Verdict:
    validation: Validation
    notices: tuple[Notice, ...]
    detail: str | None


class DryRunner:
    def __init__(
        self,
        pool: EnginePool,
        store: HourlyStore,
        work_dir: Path,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        cpu_limit_s: float = 10.0,
    ) -> None:
        self._pool = pool
        self._store = store
        self._work_dir = work_dir
        self._clock = clock
        self._cpu_limit_s = cpu_limit_s

    def validate(self, record: StrategyRecord) -> Verdict:
        notices: list[Notice] = []
        failures: list[str] = []
        sources = record.required_sources or ("Ticker",)
        for source in sources:
            feed = SOURCE_FEEDS.get(source)
            if feed is None:
                failures.append(f"unknown data source {source!r}")
                continue
            notices.extend(self._run_one(record, feed, failures))
        if failures:
            return Verdict(Validation.FAILED, tuple(notices), "; ".join(failures))
        return Verdict(Validation.PASSED, tuple(notices), None)

    def _sample(self, feed: DataType) -> tuple[Instrument, list[HourFrame]]:
        last = hour_start(self._clock()) - timedelta(hours=2)
        if feed is DataType.FUNDING:
            hours = [last - timedelta(hours=h) for h in range(71, -1, -1)]
            instrument, kind = PERP, DataKind.FUNDING
        else:
            hours = [last]
            instrument = SPOT
            kind = DataKind.TICKERS if feed is DataType.TICKER else DataKind.KLINES
        frames = [f for h in hours if (f := self._store.read_frame("sim", instrument, kind, h))]
        return instrument, frames

    def _run_one(self, record: StrategyRecord, feed: DataType, failures: list[str]) -> list[Notice]:
        instrument, frames = self._sample(feed)
        run_dir = Path(tempfile.mkdtemp(prefix=f"dryrun-{feed.value}-", dir=self._ensure_dir()))
        try:
            columns = write_columns(run_dir, feed, assemble(feed.value, frames, SAMPLE_CADENCE_MS))
            request = RunRequest.of_strategy(
                record,
                feed,
                columns,
                instrument,
                cpu_limit_s=self._cpu_limit_s,
                wall_limit_s=self._cpu_limit_s * 3,
            )
            try:
                result = self._pool.run(request)
            except RunFailure as failure:
                message = describe_run_failure(record, failure)
                failures.append(message)
                return [Notice("ERROR", f"dry-run.{failure.kind.value}", message, PROVENANCE)]
            return [Notice("WARN", "engine.notice", text, PROVENANCE) for text in result.notices]
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)

    def _ensure_dir(self) -> Path:
        self._work_dir.mkdir(parents=True, exist_ok=True)
        return self._work_dir
