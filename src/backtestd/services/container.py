"""Builds every long-lived part of the service from settings, and disposes of them.

The API lifespan and the CLI both call ``build_services``; nothing is created at import time.
"""

from __future__ import annotations

from dataclasses import dataclass

from backtestd.jobs.executors.base import JobExecutor
from backtestd.marketdata.catalogue import Catalogue
from backtestd.marketdata.live import LiveFeeds, live_segment_map
from backtestd.marketdata.sources import build_sources
from backtestd.marketdata.store import HourlyStore
from backtestd.services.accounts import AccountService
from backtestd.services.auth import AuthService, load_or_create_secret
from backtestd.services.backtests import BacktestService
from backtestd.services.dataset_imports import DatasetImports
from backtestd.services.dataset_preview import DatasetPreviews
from backtestd.services.dataset_uploads import DatasetUploads
from backtestd.services.datasets import DatasetService
from backtestd.services.fair_queue import FairQueue
from backtestd.services.live.commands import handles_commands
from backtestd.services.live.control import LiveControl
from backtestd.services.live.paper_reads import LivePaperReads
from backtestd.services.live.runs import LiveRunService, wall_ms
from backtestd.services.live.signal_reads import LiveSignalReads
from backtestd.services.live.tokens import LiveTokens
from backtestd.services.market import MarketService
from backtestd.services.rate_limit import RateLimiter
from backtestd.services.request_limits import RequestLimits
from backtestd.services.signals import SignalFiles
from backtestd.services.signed_urls import SignedUrls
from backtestd.services.strategies import StrategyService
from backtestd.services.sweeps import SweepService
from backtestd.services.upload_links import UploadLinks
from backtestd.services.validation import DryRunner
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.migrate import migrate
from backtestd.storage.objects.store import ObjectStore, open_object_store
from backtestd.strategy.jvm import EnginePool, HostConfig


@dataclass
class Services:
    settings: Settings
    database: Database
    objects: ObjectStore
    store: HourlyStore
    catalogue: Catalogue
    auth: AuthService
    accounts: AccountService
    market: MarketService
    engines: EnginePool
    validations: FairQueue
    strategies: StrategyService
    backtests: BacktestService
    sweeps: SweepService
    signed_urls: SignedUrls
    signals: SignalFiles
    datasets: DatasetService
    dataset_uploads: DatasetUploads
    dataset_imports: DatasetImports
    dataset_previews: DatasetPreviews
    request_limits: RequestLimits
    live_runs: LiveRunService
    live_control: LiveControl
    live_signals: LiveSignalReads
    live_paper: LivePaperReads
    live_tokens: LiveTokens

    def close(self) -> None:
        if self.backtests.executor is not None:
            self.backtests.executor.close()
        self.validations.shutdown()
        self.engines.close()
        self.database.dispose()


def build_services(settings: Settings) -> Services:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    database = Database(settings.resolved_database_url)
    migrate(database)
    objects = open_object_store(settings)
    sources = build_sources(settings)
    store = HourlyStore(
        objects, database, sources, generated_max_bytes=settings.sim_cache_max_bytes
    )
    catalogue = Catalogue(database, sources, live_segments=live_segment_map(settings))
    secret = load_or_create_secret(settings)
    auth = AuthService(settings, database, secret, RateLimiter())
    engines = EnginePool(
        settings.engine_hosts,
        HostConfig(
            heap_mb=settings.engine_heap_mb,
            run_cpu_limit_s=settings.run_cpu_limit_seconds,
            compile_cpu_limit_s=settings.compile_cpu_limit_seconds,
            # These hosts compile and run each strategy's validation once: no series to share.
            series_cache_mb=0,
            column_cache_mb=0,
        ),
    )
    validations = FairQueue(settings.validation_workers, name="validate")
    runner = DryRunner(
        engines,
        store,
        settings.data_dir.resolve() / "work",
        cpu_limit_s=settings.validation_cpu_limit_seconds,
    )
    strategies = StrategyService(settings, database, objects, engines, runner, validations)
    backtests = BacktestService(settings, database, catalogue)
    signed_urls = SignedUrls(objects, secret, settings.resolved_public_base_url)
    upload_links = UploadLinks(secret, settings.resolved_public_base_url)
    datasets = DatasetService(
        settings, database, objects, upload_links, signed_urls, backtests.admission
    )
    feeds = LiveFeeds(settings, store)
    live_runs = LiveRunService(settings, database, feeds, feeds.clock.now_ms, wall_ms)
    return Services(
        settings=settings,
        database=database,
        objects=objects,
        store=store,
        catalogue=catalogue,
        auth=auth,
        accounts=AccountService(settings, database),
        market=MarketService(catalogue, store, RateLimiter(), settings.downloads_per_minute),
        engines=engines,
        validations=validations,
        strategies=strategies,
        backtests=backtests,
        sweeps=SweepService(settings, database, backtests),
        signed_urls=signed_urls,
        signals=SignalFiles(backtests, objects),
        datasets=datasets,
        dataset_uploads=DatasetUploads(datasets, objects, upload_links),
        dataset_imports=DatasetImports(datasets, catalogue),
        dataset_previews=DatasetPreviews(settings, datasets, objects),
        request_limits=RequestLimits(settings),
        live_runs=live_runs,
        live_control=LiveControl(
            settings, database, live_runs, handles_commands(database), wall_ms
        ),
        live_signals=LiveSignalReads(database, live_runs),
        live_paper=LivePaperReads(database, live_runs),
        live_tokens=LiveTokens(secret),
    )


def start_executor(settings: Settings) -> JobExecutor:
    """The Dask executor (a LocalCluster, or the scheduler in ``BACKTESTD_DASK_SCHEDULER``)."""
    from backtestd.jobs.executors.dask import DaskExecutor

    return DaskExecutor(settings)
