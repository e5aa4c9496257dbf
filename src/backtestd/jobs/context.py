"""Everything a job handler needs on a worker, built once per worker process.

A Dask worker process receives only the settings (as JSON, without secrets: see
``Settings.without_secrets``) with each task; the first task in the process puts back the
database password from the process's own configuration, builds the database engine, object
store, hourly store and a warm engine host, and later tasks reuse them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from backtestd.marketdata.sources import build_sources
from backtestd.marketdata.store import HourlyStore
from backtestd.settings import Settings, load_settings
from backtestd.storage.db.engine import Database
from backtestd.storage.objects.store import ObjectStore, open_object_store
from backtestd.strategy.jvm import EnginePool, HostConfig


@dataclass
class WorkerContext:
    settings: Settings
    database: Database
    objects: ObjectStore
    store: HourlyStore
    engines: EnginePool
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)


_contexts: dict[str, WorkerContext] = {}
_lock = threading.Lock()


def context_for(
    settings_json: str,
    build: Callable[[Settings], WorkerContext],
    own_settings: Callable[[], Settings] = load_settings,
) -> WorkerContext:
    """The process-wide context for these shipped settings (built on first use).

    ``own_settings`` (this process's environment and config file) supplies the secrets the
    task does not carry; it is read only when the shipped database URL had a password.
    """
    with _lock:
        context = _contexts.get(settings_json)
        if context is None:
            shipped = Settings.model_validate_json(settings_json)
            context = build(shipped.with_database_password_from(own_settings))
            _contexts[settings_json] = context
        return context


def build_worker_context(settings: Settings) -> WorkerContext:
    database = Database(settings.resolved_database_url)
    objects = open_object_store(settings)
    store = HourlyStore(
        objects, database, build_sources(settings), generated_max_bytes=settings.sim_cache_max_bytes
    )
    engines = EnginePool(
        1,
        HostConfig(
            heap_mb=settings.engine_heap_mb,
            series_cache_mb=settings.engine_series_cache_mb,  # the host keeps at most half its heap
            column_cache_mb=settings.engine_column_cache_mb,  # likewise
            committed_heap_mb=settings.engine_committed_heap_mb,
            run_cpu_limit_s=settings.run_cpu_limit_seconds,
            compile_cpu_limit_s=settings.compile_cpu_limit_seconds,
            # Off unless asked for (settings.engine_warm_up, docs/engine-host.md "Warm-up").
            warm_up=settings.engine_warm_up,
        ),
    )
    return WorkerContext(settings, database, objects, store, engines)
