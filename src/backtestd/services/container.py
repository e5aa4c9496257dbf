"""Builds every long-lived part of the service from settings, and disposes of them.

The API lifespan and the CLI both call ``build_services``; nothing is created at import time.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from backtestd.domain.marketdata import hour_start
from backtestd.marketdata.catalogue import Catalogue
from backtestd.marketdata.sources import GeneratingSource
from backtestd.marketdata.store import HourlyStore
from backtestd.services.accounts import AccountService
from backtestd.services.auth import AuthService, load_or_create_secret
from backtestd.services.market import MarketService
from backtestd.services.rate_limit import RateLimiter
from backtestd.services.strategies import StrategyService
from backtestd.services.validation import DryRunner
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.objects.store import LocalObjectStore
from backtestd.strategy.jvm import EnginePool, HostConfig


@dataclass
class Services:
    settings: Settings
    database: Database
    objects: LocalObjectStore
    store: HourlyStore
    catalogue: Catalogue
    auth: AuthService
    accounts: AccountService
    market: MarketService
    engines: EnginePool
    background: ThreadPoolExecutor
    strategies: StrategyService

    def close(self) -> None:
        self.background.shutdown(wait=False, cancel_futures=True)
        self.engines.close()
        self.database.dispose()


def build_sources(settings: Settings) -> dict[str, GeneratingSource]:
    if not settings.sim_enabled:
        return {}
    from backtestd.marketdata.sim.generator import SimExchange

    start = hour_start(datetime.now(UTC) - timedelta(days=settings.sim_coverage_days))
    sim = SimExchange(coverage_start=start, seed=settings.sim_seed)
    return {sim.exchange_id: sim}


def build_services(settings: Settings) -> Services:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    database = Database(settings.resolved_database_url)
    migrate(database)
    objects = LocalObjectStore(settings.resolved_object_store_dir)
    sources = build_sources(settings)
    store = HourlyStore(objects, database, sources)
    catalogue = Catalogue(database, sources)
    auth = AuthService(settings, database, load_or_create_secret(settings), RateLimiter())
    engines = EnginePool(
        settings.engine_hosts,
        HostConfig(heap_mb=settings.engine_heap_mb, run_cpu_limit_s=settings.run_cpu_limit_seconds),
    )
    background = ThreadPoolExecutor(settings.validation_workers, thread_name_prefix="validate")
    runner = DryRunner(engines, store, settings.data_dir.resolve() / "work")
    strategies = StrategyService(
        database, engines, runner, background, settings.max_compiles_in_flight
    )
    return Services(
        settings=settings,
        database=database,
        objects=objects,
        store=store,
        catalogue=catalogue,
        auth=auth,
        accounts=AccountService(settings, database),
        market=MarketService(catalogue, store),
        engines=engines,
        background=background,
        strategies=strategies,
    )
