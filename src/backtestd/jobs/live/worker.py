"""Builds a worker process's live supervisor and the executions it claims."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from backtestd.domain.live import LiveRunRecord, LiveState, Reasons
from backtestd.domain.marketdata import Instrument
from backtestd.errors import BacktestdError
from backtestd.jobs.context import WorkerContext, build_worker_context, context_for
from backtestd.jobs.live.engine import JvmLiveEngine
from backtestd.jobs.live.execution import LiveExecution
from backtestd.jobs.live.instruments import DefinitionRefused, resolve
from backtestd.jobs.live.supervisor import LiveSupervisor
from backtestd.jobs.live.window import SignalWindow
from backtestd.marketdata.catalogue import Catalogue
from backtestd.marketdata.live.registry import LiveFeeds
from backtestd.marketdata.sources import build_sources
from backtestd.storage.db.repositories.live import LiveRunRepository
from backtestd.storage.db.repositories.strategies import StrategyRepository

log = logging.getLogger(__name__)


def wall_ms() -> int:
    return int(time.time() * 1000)


def start_supervisor(settings_json: str) -> LiveSupervisor:
    """The supervisor of this worker process, started (one per process)."""
    ctx = context_for(settings_json, build_worker_context)
    supervisor = build_supervisor(ctx)
    supervisor.start()
    return supervisor


def build_supervisor(ctx: WorkerContext, owner: str | None = None) -> LiveSupervisor:
    settings = ctx.settings
    feeds = LiveFeeds(settings, ctx.store)
    catalogue = Catalogue(ctx.database, build_sources(settings))
    window = SignalWindow(ctx.database, settings, wall_ms)

    def fail(run_id: str, reason: str) -> None:
        with ctx.database.unit_of_work() as uow:
            runs = LiveRunRepository(uow.session)
            record = runs.get(run_id)
            if record is not None:
                runs.set_values(
                    run_id,
                    {
                        "state": LiveState.FAILED.value,
                        "reason": reason,
                        "updated_at_ms": max(wall_ms(), record.updated_at_ms + 1),
                    },
                )

    def build(run_id: str, executions: int) -> LiveExecution | None:
        with ctx.database.unit_of_work() as uow:
            record = LiveRunRepository(uow.session).get(run_id)
            strategy = StrategyRepository(uow.session).get(record.strategy_id) if record else None
        if record is None or strategy is None:
            return None
        feed = feeds.feed_for(record.source.exchange, record.source.segment)
        if feed is None:
            fail(run_id, Reasons.FEED_LOST)
            return None
        try:
            universe = catalogue.instruments(record.source.exchange)
            instruments = resolve(record.source.instruments, universe)
            feed.check_instruments(instruments)
        except (DefinitionRefused, BacktestdError) as refused:
            log.info("live run %s refused: %s", run_id, refused)
            fail(run_id, Reasons.DEFINITION_REFUSED)
            return None

        def engines(run: LiveRunRecord, chosen: Sequence[Instrument]) -> JvmLiveEngine:
            return JvmLiveEngine(
                strategy,
                run,
                chosen,
                heap_mb=settings.live_heap_mb,
                cpu_limit_s=settings.live_feed_cpu_limit_seconds,
            )

        def stream(
            run: LiveRunRecord, chosen: Sequence[Instrument], from_ms: int, stop: threading.Event
        ) -> Iterator[Any]:
            for event in feed.stream(chosen, run.source.type, from_ms, stop):
                if hasattr(event, "values"):
                    yield event

        return LiveExecution(
            record,
            executions,
            instruments,
            ctx.database,
            engines,
            stream,
            feed.clock.now_ms,
            wall_ms,
            window.after_append,
            clock_rate=feed.clock.rate,
        )

    return LiveSupervisor(
        ctx.database,
        build,
        capacity=settings.live_runs_per_worker,
        lease_seconds=settings.live_lease_seconds,
        wall_now=wall_ms,
        owner=owner,
    )
