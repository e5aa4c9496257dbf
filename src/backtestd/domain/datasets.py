"""User datasets: the dataset record, its immutable versions and its upload/import sessions.

The records speak the domain's names (the wire's camelCase is built in ``api/schemas/datasets.py``
only); they are frozen because a version, once ingested, never changes (a new upload makes a new
version). A dataset's and a session's status move only along the transition tables below, which
the repository turns into conditional updates (``DatasetRepository.move_dataset`` and
``move_session``): the same shape as ``domain/jobs.py``'s job state machine.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from backtestd.domain.backtests import STRICT
from backtestd.domain.jobs import JobKind
from backtestd.domain.marketdata import ASK_SIZE, BID_SIZE, DataKind

USER_EXCHANGE = "user"
"""The exchange id under which a user's own datasets are prepared (``exchangeId=user``)."""


class DatasetStatus(enum.StrEnum):
    """``Dataset.status``: ``pending`` until the first ingest, then ``ready`` or ``failed``."""

    PENDING = "pending"
    READY = "ready"
    FAILED = "failed"


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

QUOTE_VOLUME = "quoteVolume"
REQUIRED_COLUMNS: tuple[str, ...] = ("timestamp", "close")
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "open",
    "high",
    "low",
    "volume",
    QUOTE_VOLUME,
    "bid",
    BID_SIZE,
    "ask",
    ASK_SIZE,
)
"""The upload format's value columns (data columns, not wire names; case-sensitive)."""
CANDLE_COLUMNS: frozenset[str] = frozenset({"open", "high", "low"})
"""A version with all of these holds candles (``klines``); without them, prices (``tickers``)."""


# -- lifecycles ---------------------------------------------------------------------------------


class IllegalTransition(Exception):
    """A status change the transition table does not allow, where no race explains it: a bug,
    reported as an internal error."""


DATASET_TRANSITION_SOURCES: Mapping[DatasetStatus, frozenset[DatasetStatus]] = {
    DatasetStatus.READY: frozenset(DatasetStatus),
    DatasetStatus.FAILED: frozenset(DatasetStatus),
}
"""The dataset lifecycle ``pending -> ready | failed``, for each target the states it may be
entered from. ``pending`` is only ever the first state; after it, every ingest that ends moves the
dataset to ``ready`` (a new current version) or ``failed`` (that ingest's error; the current
version stays preparable), whatever the last one did. A dataset moves only when one of its
sessions does (the session's table is the real guard)."""

SESSION_TRANSITION_SOURCES: Mapping[SessionStatus, frozenset[SessionStatus]] = {
    SessionStatus.UPLOADING: frozenset({SessionStatus.OPEN, SessionStatus.UPLOADING}),
    SessionStatus.INGESTING: frozenset({SessionStatus.UPLOADING, SessionStatus.FETCHING}),
    SessionStatus.READY: frozenset({SessionStatus.INGESTING}),
    SessionStatus.FAILED: frozenset({SessionStatus.FETCHING, SessionStatus.INGESTING}),
}
"""The upload/import session lifecycle, for each target the states it may be entered from:
an upload starts ``open`` (no bytes), is ``uploading`` once a PUT stored bytes (a later PUT
replaces them), ``ingesting`` once finalized; an import starts ``fetching`` and is
``ingesting`` once its rows are read. ``ready`` (a version was made) and ``failed`` are final:
a session produces at most one version, and a finalized upload never takes bytes again."""

SESSION_INITIAL: Mapping[SessionKind, SessionStatus] = {
    SessionKind.UPLOAD: SessionStatus.OPEN,
    SessionKind.IMPORT: SessionStatus.FETCHING,
}
"""The state a new session of each kind is stored in."""

ACCEPTS_BYTES: frozenset[SessionStatus] = SESSION_TRANSITION_SOURCES[SessionStatus.UPLOADING]
"""An upload not yet finalized: a PUT may (re)place its bytes; at most one per dataset."""

BUSY: frozenset[SessionStatus] = frozenset({SessionStatus.FETCHING, SessionStatus.INGESTING})
"""A session whose job is reading or ingesting: the dataset's next version is on its way."""


def can_move_dataset(current: DatasetStatus, target: DatasetStatus) -> bool:
    """Whether a dataset in ``current`` may enter ``target``."""
    return current in DATASET_TRANSITION_SOURCES.get(target, frozenset())


def can_move_session(current: SessionStatus, target: SessionStatus) -> bool:
    """Whether a session in ``current`` may enter ``target``.

    >>> can_move_session(SessionStatus.OPEN, SessionStatus.UPLOADING)
    True
    >>> can_move_session(SessionStatus.READY, SessionStatus.FAILED)
    False
    """
    return current in SESSION_TRANSITION_SOURCES.get(target, frozenset())


# -- records ------------------------------------------------------------------------------------


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

    @property
    def kind(self) -> DataKind:
        """``klines`` when the version holds candles (open, high and low), else ``tickers``."""
        return DataKind.KLINES if CANDLE_COLUMNS <= set(self.columns) else DataKind.TICKERS


@dataclass(frozen=True)
class Dataset:
    """A user's dataset; ``current_version_id`` moves only when an ingest succeeds. ``kind`` is
    what its current version holds (decided when a version becomes ready)."""

    dataset_id: str
    user_id: str
    name: str
    instrument: str
    kind: DataKind
    status: DatasetStatus
    created_at: datetime
    error: str | None = None
    current_version_id: str | None = None
    updated_at: datetime | None = None
    deleted_at: datetime | None = None


@dataclass(frozen=True)
class DatasetSession:
    """An upload session (``up_…``) or an import (``imp_…``) that may produce one version.
    ``upload_cap`` is the most bytes a PUT may send (the creator's tier's ``max_dataset_bytes``
    when the session opened); imports have none."""

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
    upload_cap: int | None = None


@dataclass(frozen=True)
class DatasetLimits:
    """The tier's dataset limits in force when the job was accepted; the worker enforces
    these, not the tier's limits of the moment it runs."""

    tier: str
    max_dataset_bytes: int
    max_total_storage_bytes: int
    max_rows: int | None = None
    """``maxDatasetRows``; ``None`` in jobs queued before the bound existed."""


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


# -- what the dataset services answer (the wire is built from these in api/schemas) -------------


@dataclass(frozen=True)
class UploadTarget:
    """Where to PUT an upload's bytes, and for how long the link is valid."""

    url: str
    expires_in_minutes: int


@dataclass(frozen=True)
class OpenUpload:
    """An upload session ready to take a file."""

    upload_id: str
    target: UploadTarget


@dataclass(frozen=True)
class CreatedDataset:
    """A new dataset with its first upload session."""

    dataset: Dataset
    upload: OpenUpload


@dataclass(frozen=True)
class DatasetView:
    """A dataset with its current version (None until one is ready) and that version's URL."""

    dataset: Dataset
    version: DatasetVersion | None
    data_url: str | None = None


@dataclass(frozen=True)
class UploadState:
    """An upload's or import's state as its owner sees it: ``status``/``error`` are the
    session's, except that an ingesting session whose job died reads as failed with the job's
    reason; ``version`` once ready."""

    session: DatasetSession
    status: SessionStatus
    error: str | None
    version: DatasetVersion | None
    data_url: str | None = None


@dataclass(frozen=True)
class ImportRequest:
    """An import as asked: the ``cex`` source's exchange (None without a ``cex`` block) and the
    data kind to read; ``source`` is the import ``type`` (``cex``; ``dex`` is refused)."""

    name: str
    instrument: str
    from_: str
    to: str
    source: str
    cadence: str | None
    exchange: str | None
    data_kind: DataKind


@dataclass(frozen=True)
class ImportStarted:
    """An accepted import: its dataset, its session and the job that fetches it."""

    dataset_id: str
    import_id: str
    job_id: str
    cadence: str | None


@dataclass(frozen=True)
class DatasetPreview:
    """At most about the asked number of points of a version's close, extremes kept."""

    dataset_id: str
    version_id: str
    rows: int
    cadence: str
    timestamps_ms: tuple[int, ...]
    close: tuple[float, ...]

    @property
    def downsampled(self) -> bool:
        return len(self.timestamps_ms) < self.rows
