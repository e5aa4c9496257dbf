"""The typed settings tree, read once from the environment (prefix ``BACKTESTD_``).

``load_settings`` is the only place that reads the environment. Everything else receives a
``Settings`` instance, so tests and the CLI can build one explicitly and nothing happens at
import time. Nested values use ``__`` as separator, e.g. ``BACKTESTD_TIERS__PRO__MAX_EXECUTE=8``.
An optional TOML file (``BACKTESTD_CONFIG_FILE``) supplies defaults that the environment overrides.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from backtestd.errors import ConfigurationError

TIER_NAMES = ("free", "basic", "pro", "elite")


class TierLimits(BaseModel):
    """The per-tier limits published by ``GET /v1/account`` and enforced by the services."""

    max_execute: int = Field(ge=1)
    max_range_days: int = Field(ge=1)
    max_sweep_cartesian: int = Field(ge=1)
    max_import_range_hours: int = Field(ge=1)
    max_datasets: int = Field(ge=0)
    max_dataset_bytes: int = Field(ge=0)
    # Rows a dataset version may hold: bounds what a worker decodes (a parquet of one repeated
    # row compresses 500 million rows into 2.7 MB). A month of 1-second data is 2.6 M rows.
    max_dataset_rows: int = Field(default=5_000_000, ge=1)
    max_total_storage_bytes: int = Field(ge=0)
    token_requests_per_minute: int = Field(ge=1)
    # Wall clock of one run or sweep vector, blocked time included (its CPU limit is the
    # server's run_cpu_limit_seconds, never more than this), and the worker time one sweep
    # may use in total (docs/limits.md).
    max_run_seconds: float = Field(default=125.0, gt=0)
    max_sweep_worker_seconds: int = Field(default=7_200, ge=1)
    # Requests a minute to every /v1 route that needs a token, per account (all its keys and
    # tokens together): a token bucket, bursts up to this many (docs/limits.md, "Request rate").
    requests_per_minute: int = Field(default=300, ge=1)
    # Prepare cadences the tier may use (None: every one) and the one used when a prepare
    # names none (None: the finest the source allows).
    cadences: list[str] | None = None
    default_cadence: str | None = None
    # Live runs (docs/live.md, "Plans"): runs wanted running at once, instruments per run
    # (0 = unlimited), whether `*` instruments, stream URLs and public runs are allowed, and
    # the shortest sandbox trial a start may ask for.
    max_live_runs: int = Field(default=1, ge=0)
    max_live_instruments: int = Field(default=5, ge=0)
    live_wildcards: bool = False
    live_stream: bool = False
    live_public: bool = True
    min_sandbox_minutes: int = Field(default=1440, ge=5, le=1440)


MIB = 1024 * 1024

DEFAULT_TIERS: dict[str, TierLimits] = {
    "free": TierLimits(
        max_execute=1,
        max_range_days=30,
        max_sweep_cartesian=100,
        max_import_range_hours=24,
        max_datasets=3,
        max_dataset_bytes=50 * MIB,
        max_dataset_rows=5_000_000,
        max_total_storage_bytes=100 * MIB,
        token_requests_per_minute=30,
        max_run_seconds=30,
        max_sweep_worker_seconds=600,
        requests_per_minute=300,
        max_live_runs=1,
        max_live_instruments=5,
        live_wildcards=False,
        live_stream=False,
        min_sandbox_minutes=1440,
    ),
    "basic": TierLimits(
        max_execute=2,
        max_range_days=90,
        max_sweep_cartesian=1_000,
        max_import_range_hours=168,
        max_datasets=10,
        max_dataset_bytes=200 * MIB,
        max_dataset_rows=10_000_000,
        max_total_storage_bytes=1024 * MIB,
        token_requests_per_minute=60,
        max_run_seconds=60,
        max_sweep_worker_seconds=1_800,
        requests_per_minute=600,
        max_live_runs=3,
        max_live_instruments=25,
        live_wildcards=False,
        live_stream=False,
        min_sandbox_minutes=240,
    ),
    "pro": TierLimits(
        max_execute=4,
        max_range_days=365,
        max_sweep_cartesian=10_000,
        max_import_range_hours=720,
        max_datasets=50,
        max_dataset_bytes=1024 * MIB,
        max_dataset_rows=30_000_000,
        max_total_storage_bytes=10 * 1024 * MIB,
        token_requests_per_minute=120,
        max_run_seconds=125,
        max_sweep_worker_seconds=7_200,
        requests_per_minute=1_200,
        max_live_runs=10,
        max_live_instruments=200,
        live_wildcards=True,
        live_stream=True,
        min_sandbox_minutes=60,
    ),
    "elite": TierLimits(
        max_execute=8,
        max_range_days=1_095,
        max_sweep_cartesian=100_000,
        max_import_range_hours=2_160,
        max_datasets=200,
        max_dataset_bytes=4 * 1024 * MIB,
        max_dataset_rows=60_000_000,
        max_total_storage_bytes=50 * 1024 * MIB,
        token_requests_per_minute=300,
        max_run_seconds=125,
        max_sweep_worker_seconds=28_800,
        requests_per_minute=2_400,
        max_live_runs=50,
        max_live_instruments=0,
        live_wildcards=True,
        live_stream=True,
        min_sandbox_minutes=5,
    ),
}


class Settings(BaseSettings):
    """Every knob of the service; defaults give the embedded single-process deployment."""

    model_config = SettingsConfigDict(
        env_prefix="BACKTESTD_", env_nested_delimiter="__", extra="forbid"
    )

    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=1, le=65535)
    data_dir: Path = Path("./var")
    config_file: Path | None = None
    # Origin clients reach this server at (signed file links are built from it, never from the
    # request's Host header). Empty = the bound address, e.g. http://127.0.0.1:8080.
    public_base_url: str = ""

    # Storage. Empty database_url = SQLite file in the data dir.
    database_url: str = ""
    object_store_dir: Path | None = None
    # s3://bucket/prefix selects the S3-compatible store (credentials: the AWS_* variables);
    # s3_endpoint_url names a non-AWS endpoint (MinIO, Ceph, R2, a test server);
    # s3_public_endpoint_url is the one users reach it at, put in presigned URLs only (empty =
    # s3_endpoint_url), for a store the service reaches by an internal name (http://minio:9000).
    object_store_url: str = ""
    s3_endpoint_url: str = ""
    s3_public_endpoint_url: str = ""
    # Local read-through cache of S3 objects that workers memory-map (prepared columns).
    s3_cache_max_bytes: int = Field(default=2048 * MIB, ge=0)

    # Auth.
    jwt_secret: str = ""
    token_ttl_seconds: int = Field(default=3600, ge=60, le=86_400)

    # Request limits.
    max_body_bytes: int = Field(default=1 * MIB, ge=1024)
    strategy_max_bytes: int = Field(default=32_768, ge=1024)

    # Market data.
    sim_enabled: bool = True
    sim_seed: int = 0
    sim_coverage_days: int = Field(default=365, ge=1, le=3650)
    # Generated hours are a bounded LRU cache (docs/limits.md); ingested hours never count.
    sim_cache_max_bytes: int = Field(default=1024 * MIB, ge=0)
    # Live feeds (docs/live-feeds.md). Market time runs this many times faster than wall time
    # from the moment the clock is created (tests and demos; 1.0 = real time). It moves only
    # the sim feed: an exchange's feed always runs on real time.
    live_clock_rate: float = Field(default=1.0, gt=0, le=10_000)
    # The wall time (epoch ms) at which a sped-up market clock read wall time; 0 = when the
    # API process started (it passes it to its workers). Set it explicitly when several API
    # replicas run a sped-up clock, so that they agree.
    live_clock_anchor_ms: int = Field(default=0, ge=0)
    # The binance spot feed reads the exchange's public market streams; off by default because
    # it needs outbound network access. Its hours are recorded into the store as "binance".
    live_binance_enabled: bool = False
    live_binance_url: str = "wss://stream.binance.com:9443"
    # Anonymous downloads per client address and minute (token bucket); 0 = unlimited.
    downloads_per_minute: int = Field(default=240, ge=0)
    # Requests to /v1 per client address and minute, whoever sends them and whatever the
    # answer (401s included): a token bucket above every tier's own budget; 0 = unlimited.
    requests_per_minute_per_address: int = Field(default=6_000, ge=0)

    # Strategy runtime.
    engine_hosts: int = Field(default=2, ge=1, le=64)
    # 1 GiB: room for the two caches below at sizes that hold a month of 1 s bars with a bar
    # every second (2,592,000 rows: its seven columns 145 MB, each series 21 MB), where a
    # 512 MiB heap held neither: 0.72x the engine CPU a sweep vector (docs/benchmarks.md).
    engine_heap_mb: int = Field(default=1024, ge=64)
    # Indicator series kept by each worker's engine host between runs (docs/engine-host.md,
    # "Series computed ahead"); 0 turns it off. Inside the heap, and released under pressure.
    engine_series_cache_mb: int = Field(default=192, ge=0)
    # Heap copies of a sweep's input columns kept by each worker's engine host between runs
    # (docs/engine-host.md, "Columns on the heap"); 0 reads the mapped files for every run.
    engine_column_cache_mb: int = Field(default=256, ge=0)
    # Heap each worker's engine host commits and touches when it starts (-Xms with
    # -XX:+AlwaysPreTouch): what a host's first sweeps fill; 0 = as used. On a VM a page's first
    # touch costs microseconds, which the first sweeps paid while the heap grew; 384 rather than
    # 512 keeps the young generation at its size before (peaks 641-655 against 760-764 MiB after
    # 1,000 vectors, the same times; docs/engine-host.md, "A heap touched at start").
    engine_committed_heap_mb: int = Field(default=384, ge=0)
    max_compiles_in_flight: int = Field(default=4, ge=1)
    max_compiles_per_user: int = Field(default=1, ge=1)  # fairness: docs/limits.md
    validation_workers: int = Field(default=1, ge=1)
    validation_cpu_limit_seconds: float = Field(default=10.0, gt=0)
    run_cpu_limit_seconds: float = Field(default=60.0, gt=0)
    # javac's CPU budget per registration (compile bombs: docs/engine-host.md).
    compile_cpu_limit_seconds: float = Field(default=10.0, gt=0)

    # Jobs.
    dask_scheduler: str = ""  # tcp://host:8786 uses an existing cluster; empty = LocalCluster
    dask_workers: int = Field(default=0, ge=0)  # LocalCluster workers; 0 = one per core
    # Start each worker's engine host (with its built-in JIT warm-up, docs/engine-host.md) and
    # load the numba kernels as the worker joins, not in its first job (docs/sweeps.md).
    warm_workers: bool = True
    # Fork Dask's worker processes from a fork server that loaded the job stack once
    # (jobs/executors/forked_workers.py), on Linux; false, or another system, spawns each one
    # as a fresh interpreter, Dask's default (docs/deployment.md, "Forked workers").
    fork_workers: bool = True
    # Run the engine host's built-in JIT warm-up (WarmUp.java) on worker hosts. Off by default:
    # a stateless strategy now keeps one loaded class for all its runs, and the warm-up's own
    # listener classes made the engine's call into it megamorphic, about 12-16 % slower in a
    # sweep's steady state with no gain in its first round (docs/benchmarks.md). It still helps
    # strategies with static state (a fresh class per vector) a little in their first runs.
    engine_warm_up: bool = False
    # Mutual TLS for Dask (docs/jobs.md): all three or none. With them the scheduler address
    # is tls:// and only holders of a certificate signed by this CA may join or submit.
    dask_tls_ca_file: Path | None = None
    dask_tls_cert_file: Path | None = None
    dask_tls_key_file: Path | None = None
    max_queued_jobs: int = Field(default=1000, ge=1)
    # A job started this many times without ending (its worker died each time, e.g. killed
    # for memory) fails with that reason instead of being resubmitted forever.
    max_job_attempts: int = Field(default=3, ge=1)
    # A sweep shard that has run this long gives its worker back (and is queued again behind
    # them) when another user's job is waiting; 0 = never (docs/limits.md, fair sharing).
    shard_slice_seconds: float = Field(default=2.0, ge=0)
    # Every this many seconds a replica resubmits active jobs the scheduler no longer holds
    # (a replica died between commit and submit); 0 = only at start.
    job_recovery_seconds: int = Field(default=30, ge=0)
    max_active_prepares_per_user: int = Field(default=8, ge=1)
    upgrade_url: str | None = None  # sent as upgradeUrl with 402 plan-required errors
    sweep_budget: int = Field(default=20_000, ge=1)  # backtests one sweep may run, folds included
    sweep_max_folds: int = Field(default=12, ge=2)
    sweep_max_shards: int = Field(default=64, ge=1)
    # Prepared columns are a least-recently-used cache of this many bytes in all; a prepare
    # unused this long may lose its columns, rebuilt on its next execute (docs/limits.md).
    prepared_max_bytes: int = Field(default=20 * 1024**3, ge=0)
    prepared_reclaim_grace_seconds: int = Field(default=900, ge=0)
    # A retained trial's equity curve is stored with at most this many points (first, last
    # and each bucket's extremes kept); a month of busy ticks was 16.6 MB per trial.
    sweep_curve_max_points: int = Field(default=20_000, ge=4)
    # Stored trial curves of all sweeps together; over it the least recently read finished
    # sweeps lose their curves (rows kept; docs/limits.md).
    sweep_curves_max_bytes: int = Field(default=4 * 1024**3, ge=0)
    sweep_leaderboard_limit: int = Field(default=100, ge=1)  # rows in the ranked view
    prepare_lookback_days: int = Field(default=1825, ge=1)
    low_activity_rows: int = Field(default=60, ge=1)
    # A deleted dataset's files are reclaimed this long after the delete (work already under
    # way on one of its versions finishes first; docs/datasets.md).
    dataset_reap_after_seconds: int = Field(default=3600, ge=0)
    # Staged object writes and spooled uploads untouched this long are a crash's leftovers and
    # are removed as the service starts (services/leftovers.py).
    staging_max_age_seconds: int = Field(default=3600, ge=0)

    # Live runs (docs/live.md). Executors hold runs by a lease in the database, renewed every
    # third of live_lease_seconds: a run whose executor died is taken over after it expires.
    live_enabled: bool = True
    live_lease_seconds: float = Field(default=10.0, ge=1.0)
    live_runs_per_worker: int = Field(default=50, ge=0)  # 0: this worker executes no run
    live_max_runs: int = Field(default=500, ge=1)  # runs wanted running, all users together
    live_heap_mb: int = Field(default=128, ge=32)  # each execution's own engine host JVM
    live_feed_cpu_limit_seconds: float = Field(default=5.0, gt=0)  # one update's strategy call
    # The signal record's moving window (docs/live.md, "Signals"): per run and in total.
    live_signals_per_run: int = Field(default=50_000, ge=10)
    live_signal_retention_days: float = Field(default=7.0, gt=0)
    live_signals_total: int = Field(default=5_000_000, ge=100)
    live_streams_enabled: bool = True
    # Origins whose browsers may open the live channel (no Origin header: always allowed);
    # empty = only this server's own origin (the dashboard).
    live_allowed_origins: list[str] = Field(default_factory=list)
    # How often each API replica looks for new signals of runs it has subscribers for.
    live_poll_seconds: float = Field(default=0.05, gt=0)

    tiers: dict[str, TierLimits] = Field(default_factory=lambda: dict(DEFAULT_TIERS))

    @field_validator("live_binance_url")
    @classmethod
    def _check_live_binance_url(cls, value: str) -> str:
        if not value.startswith(("ws://", "wss://")):
            raise ValueError(
                f"live_binance_url {value!r} must be a ws:// or wss:// URL, "
                "e.g. wss://stream.binance.com:9443"
            )
        return value.rstrip("/")

    @field_validator("public_base_url")
    @classmethod
    def _check_public_base_url(cls, value: str) -> str:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError(
                f"public_base_url {value!r} must be an absolute http(s) URL, "
                "e.g. https://backtest.example.com"
            )
        return value

    @model_validator(mode="after")
    def _check_dask_tls(self) -> Settings:
        files = {
            "BACKTESTD_DASK_TLS_CA_FILE": self.dask_tls_ca_file,
            "BACKTESTD_DASK_TLS_CERT_FILE": self.dask_tls_cert_file,
            "BACKTESTD_DASK_TLS_KEY_FILE": self.dask_tls_key_file,
        }
        missing = [name for name, path in files.items() if path is None]
        if missing and len(missing) < len(files):
            raise ValueError(
                "Dask TLS needs all three of BACKTESTD_DASK_TLS_CA_FILE, "
                "BACKTESTD_DASK_TLS_CERT_FILE and BACKTESTD_DASK_TLS_KEY_FILE; "
                f"{', '.join(missing)} not set"
            )
        for name, path in files.items():
            if path is not None and not path.is_file():
                raise ValueError(f"{name}: {path} is not a readable file")
        scheme = self.dask_scheduler.partition("://")[0] if "://" in self.dask_scheduler else ""
        if self.dask_tls and scheme not in ("", "tls"):
            raise ValueError(
                f"with Dask TLS the scheduler address must be tls://host:port, "
                f"not {self.dask_scheduler!r}"
            )
        if scheme == "tls" and not self.dask_tls:
            raise ValueError(
                f"scheduler {self.dask_scheduler!r} uses TLS: set BACKTESTD_DASK_TLS_CA_FILE, "
                "BACKTESTD_DASK_TLS_CERT_FILE and BACKTESTD_DASK_TLS_KEY_FILE"
            )
        return self

    @field_validator("tiers", mode="before")
    @classmethod
    def _merge_tier_overrides(cls, value: Any) -> dict[str, Any]:
        """Partial overrides (one limit of one tier) are merged over the defaults."""
        if not isinstance(value, dict):
            raise ValueError("tiers must be a table of tier name -> limits")
        merged: dict[str, Any] = {
            name: limits.model_dump() for name, limits in DEFAULT_TIERS.items()
        }
        for name, limits in value.items():
            if name not in TIER_NAMES:
                raise ValueError(f"unknown tier {name!r}; tiers are {', '.join(TIER_NAMES)}")
            update = limits.model_dump() if isinstance(limits, TierLimits) else dict(limits)
            merged[name] = {**merged[name], **update}
        return merged

    @property
    def dask_tls(self) -> bool:
        """Dask traffic uses mutual TLS (the three files are set)."""
        return self.dask_tls_ca_file is not None

    def without_secrets(self) -> Settings:
        """A copy safe to ship to Dask workers inside tasks (docs/jobs.md, "Secrets").

        No JWT secret (workers never sign or verify tokens), the database password replaced
        by ``***`` (the worker puts back its own, see ``with_database_password_from``), no
        TLS file paths and no scheduler address (a worker has its own certificate and
        scheduler).
        """
        return self.model_copy(
            update={
                "jwt_secret": "",
                "database_url": mask_password(self.database_url),
                "dask_scheduler": "",
                "dask_tls_ca_file": None,
                "dask_tls_cert_file": None,
                "dask_tls_key_file": None,
            }
        )

    def with_database_password_from(self, own: Callable[[], Settings]) -> Settings:
        """These shipped settings with the database password of this process's own settings.

        ``own`` (read only when the shipped URL had a password) must name the same database:
        its URL with the password masked equals the shipped one, else ``ConfigurationError``.
        """
        if MASK not in self.database_url:
            return self
        own_url = own().database_url
        if mask_password(own_url) != self.database_url:
            raise ConfigurationError(
                "this worker's database URL "
                f"({mask_password(own_url) or 'unset'}) is not the service's "
                f"({self.database_url}): start the worker with the same BACKTESTD_DATABASE_URL"
            )
        return self.model_copy(update={"database_url": own_url})

    @property
    def sqlite_path(self) -> Path:
        """The embedded database file (used when no ``database_url`` is set)."""
        return (self.data_dir / "backtestd.sqlite3").resolve()

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.sqlite_path}"

    @property
    def masked_database_url(self) -> str:
        """The database URL with any password replaced by ``***`` (safe to print)."""
        return mask_password(self.resolved_database_url)

    @property
    def resolved_public_base_url(self) -> str:
        """The configured public origin without a trailing ``/`` or ``/v1``."""
        if self.public_base_url:
            base = self.public_base_url.rstrip("/")
            return base.removesuffix("/v1")
        host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(self.host, self.host)
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    @property
    def resolved_s3_public_endpoint_url(self) -> str:
        """The S3 endpoint presigned URLs name (empty = AWS's own)."""
        return self.s3_public_endpoint_url or self.s3_endpoint_url

    @property
    def scratch_dir(self) -> Path:
        """Work files of one process (spooled uploads, ingest and preview work directories):
        ``<data dir>/tmp``, where start-up also looks for what a crash left
        (``services/leftovers.py``)."""
        return self.data_dir.resolve() / "tmp"

    @property
    def resolved_object_store_dir(self) -> Path:
        return (self.object_store_dir or self.data_dir / "objects").resolve()


MASK = "***"


def mask_password(url: str) -> str:
    """``url`` with its password replaced by ``***`` (unchanged without one).

    The password runs from the user's ``:`` to the last ``@`` before the query (SQLAlchemy
    stops at the first ``@``; masking more never shows a password that SQLAlchemy would read);
    a ``password=`` query parameter (libpq) is masked too.

    >>> mask_password("postgresql+psycopg://app:s3/cr:et@db:5432/backtestd?sslmode=require")
    'postgresql+psycopg://app:***@db:5432/backtestd?sslmode=require'
    >>> mask_password("postgresql://app@db/backtestd?password=s3cret")
    'postgresql://app@db/backtestd?password=***'
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    userinfo = _USERINFO.match(rest)
    if userinfo:
        rest = f"{userinfo['user']}:{MASK}@{rest[userinfo.end() :]}"
    rest = _QUERY_PASSWORD.sub(lambda match: f"{match[1]}{MASK}", rest)
    return f"{scheme}{sep}{rest}"


# Greedy up to the last "@" before the query: a raw "@" in a password hides nothing.
_USERINFO = re.compile(r"(?P<user>[^:/@]*):(?P<password>[^?]*)@")
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&]*")


def _toml_defaults(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError as exc:
        raise ConfigurationError(f"configuration file {path} does not exist") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"configuration file {path} is not valid TOML: {exc}") from exc


def load_settings(**overrides: Any) -> Settings:
    """Read the environment (and the optional TOML file) once; explicit overrides win.

    Raises ``ConfigurationError`` with every invalid setting named, so ``serve`` can stop
    with a readable message instead of a traceback.
    """
    config_file = overrides.get("config_file") or os.environ.get("BACKTESTD_CONFIG_FILE")
    file_values = _toml_defaults(Path(config_file)) if config_file else {}
    explicit = {k: v for k, v in overrides.items() if v is not None}
    try:
        env_settings = Settings(**explicit)
        if not file_values:
            return env_settings
        # Environment and explicit values override the file: rebuild with the file as base.
        env_set = env_settings.model_dump(exclude_unset=True)
        return Settings(**{**file_values, **env_set, **explicit})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}"
            for err in exc.errors()
        )
        raise ConfigurationError(f"invalid configuration: {problems}") from exc
