"""User datasets: the dataset record, its immutable versions and its upload/import sessions.

The records carry the wire's names and enum values; they are frozen because a version,
once ingested, never changes (a new upload makes a new version) and the service layer replaces
records instead of mutating them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from backtestd.domain.backtests import STRICT
from backtestd.domain.jobs import JobKind
from backtestd.domain.marketdata import DataKind


class DatasetStatus(enum.StrEnum):
    """``Dataset.status``: ``pending`` until the first ingest, then ``ready`` or ``failed``."""

    PENDING = "pending"
    READY = "ready"
    FAILED = "failed"


class DatasetType(enum.StrEnum):
    """``Dataset.type``; note the plural ``klines`` (the path segment is ``kline``)."""

    TICKER = "ticker"
    KLINES = "klines"


class SessionKind(enum.StrEnum):
    """Where a version's bytes come from: a presigned upload or an exchange import."""

    UPLOAD = "upload"
    IMPORT = "import"


class SessionStatus(enum.StrEnum):
    """Upload/import session status; ``open`` is internal (no bytes yet) and never on the wire."""

    OPEN = "open"
    FETCHING = "fetching"
    UPLOADING = "uploading"
    INGESTING = "ingesting"
    READY = "ready"
    FAILED = "failed"


class DataFormat(enum.StrEnum):
    """Format of a stored version file (``dataFormat``)."""

    LASTRA = "lastra"
    PARQUET = "parquet"


class TimestampUnit(enum.StrEnum):
    """``timestampUnit``: detected from the first row and enforced on every later one."""

    ISO = "iso"
    SECONDS = "s"
    MILLIS = "ms"
    MICROS = "us"


RT_CADENCE = "rt"
"""Cadence of data that does not sit on a fixed grid (native rate)."""

REQUIRED_COLUMNS: tuple[str, ...] = ("timestamp", "close")
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "open",
    "high",
    "low",
    "volume",
    "quoteVolume",
    "bid",
    "bidSize",
    "ask",
    "askSize",
)


@dataclass(frozen=True)
class DatasetVersion:
    """One immutable ingested version (``dsv_…``); ``bytes`` is the stored file, not the PUT."""

    version_id: str
    dataset_id: str
    user_id: str
    object_key: str
    data_format: DataFormat
    bytes: int
    rows: int
    cadence: str
    timestamp_unit: TimestampUnit
    gaps: int
    largest_gap_steps: int
    data_from: datetime
    data_to: datetime
    columns: tuple[str, ...]
    created_at: datetime


@dataclass(frozen=True)
class Dataset:
    """A user's dataset; ``current_version_id`` moves only when an ingest succeeds."""

    dataset_id: str
    user_id: str
    name: str
    instrument: str
    type: DatasetType
    status: DatasetStatus
    created_at: datetime
    error: str | None = None
    current_version_id: str | None = None
    updated_at: datetime | None = None
    deleted_at: datetime | None = None


@dataclass(frozen=True)
class DatasetSession:
    """An upload session (``up_…``) or an import (``imp_…``) that may produce one version."""

    session_id: str
    dataset_id: str
    user_id: str
    kind: SessionKind
    status: SessionStatus
    object_key: str
    created_at: datetime
    updated_at: datetime
    received_bytes: int | None = None
    job_id: str | None = None
    version_id: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class DatasetLimits:
    """The tier's dataset limits in force when the job was accepted; the worker enforces
    these, not the tier's limits of the moment it runs."""

    tier: str
    max_dataset_bytes: int
    max_total_storage_bytes: int


@dataclass(frozen=True)
class DatasetIngestSpec:
    """One finalized upload to ingest into a new version of ``dataset_id``."""

    __pydantic_config__ = STRICT

    dataset_id: str
    upload_id: str
    limits: DatasetLimits
    kind: Literal[JobKind.DATASET_INGEST] = field(default=JobKind.DATASET_INGEST, kw_only=True)


@dataclass(frozen=True)
class DatasetImportSpec:
    """One exchange range to fetch into a new version of ``dataset_id``: ``data_kind`` is what
    is read from the exchange's hours; with ``cadence``, bars of that width are stored."""

    __pydantic_config__ = STRICT

    dataset_id: str
    import_id: str
    exchange: str
    instrument: str
    data_kind: DataKind
    start: datetime
    end: datetime
    limits: DatasetLimits
    cadence: str | None = None
    cadence_ms: int | None = None
    kind: Literal[JobKind.DATASET_IMPORT] = field(default=JobKind.DATASET_IMPORT, kw_only=True)


@dataclass(frozen=True)
class VersionOutcome:
    """What a dataset ingest or import stored when it ended: the version it made."""

    dataset_id: str
    version_id: str
    rows: int
