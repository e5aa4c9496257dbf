"""Dataset use cases: create, list, read, delete, upload sessions, the signed PUT and finalize.

A dataset is a name and an instrument; its data arrives as immutable versions, each produced by
one upload session (or import, see ``dataset_imports``) through an ingest job on the workers.
Storage accounting: each active dataset is one storage item (``datasetsUsed``) whose bytes are
the sum of its stored versions (earlier versions stay preparable, so they stay counted; see
docs/datasets.md). Every lookup is owner-scoped: another user's ids are 404.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from backtestd.domain.accounts import Principal
from backtestd.domain.datasets import (
    USER_EXCHANGE,
    CreatedDataset,
    Dataset,
    DatasetImportSpec,
    DatasetIngestSpec,
    DatasetSession,
    DatasetStatus,
    DatasetVersion,
    DatasetView,
    OpenUpload,
    SessionKind,
    SessionStatus,
    UploadState,
    UploadTarget,
)
from backtestd.domain.jobs import JobStatus
from backtestd.domain.marketdata import DataKind, DataType
from backtestd.errors import (
    Conflict,
    InvalidInput,
    LimitExceeded,
    NotFound,
    PayloadTooLarge,
)
from backtestd.services.admission import Admission, NewJob
from backtestd.services.signed_urls import SignedUrls
from backtestd.services.upload_links import UploadLinks
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database, UnitOfWork
from backtestd.storage.db.repositories.datasets import DatasetRepository
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.repositories.usage import UsageRepository
from backtestd.storage.objects.keys import dataset_of_key, dataset_upload_key
from backtestd.storage.objects.store import ObjectStore

MAX_NAME_LENGTH = 256
DATA_URL_TTL_SECONDS = 3 * 24 * 3600
"""``dataUrl`` validity: day-scale, as the description asks, so browser readers can page it."""


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(10)}"


def plain_pair(text: str) -> str:
    """``BASE/QUOTE`` with exactly one ``/`` and no settlement suffix, upper-cased."""
    base, sep, quote = text.strip().partition("/")
    valid = sep and base.isalnum() and quote.isalnum() and len(text) <= 64
    if not valid:
        raise InvalidInput(
            f"instrument {text!r} is not a plain spot pair; use BASE/QUOTE with exactly one '/' "
            "and letters or digits on each side, e.g. BTC/USDT (not BTC/USDT:USDT)"
        )
    return f"{base.upper()}/{quote.upper()}"


class DatasetService:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        objects: ObjectStore,
        upload_links: UploadLinks,
        signed_urls: SignedUrls,
        admission: Admission,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.settings = settings
        self.database = database
        self._objects = objects
        self._links = upload_links
        self._signed = signed_urls
        self.admission = admission
        self.clock = clock

    # -- datasets ------------------------------------------------------------------------

    def create(self, principal: Principal, name: str, instrument: str) -> CreatedDataset:
        """A new dataset and its first upload session (a name is unique among active ones)."""
        self.check_name(name)
        pair = plain_pair(instrument)
        now = self.clock()
        dataset = Dataset(
            dataset_id=new_id("ds"),
            user_id=principal.user_id,
            name=name,
            instrument=pair,
            kind=DataKind.TICKERS,
            status=DatasetStatus.PENDING,
            created_at=now,
        )
        with self.database.unit_of_work() as uow:
            self.reserve(uow, principal, dataset)
            session = self.new_session(uow, principal, dataset.dataset_id, now)
        return CreatedDataset(dataset, self.with_link(session))

    @staticmethod
    def check_name(name: str) -> None:
        if not name.strip() or len(name) > MAX_NAME_LENGTH:
            raise InvalidInput(
                f"'name' must be 1 to {MAX_NAME_LENGTH} characters and not blank; got {name!r}"
            )

    def reserve(self, uow: UnitOfWork, principal: Principal, dataset: Dataset) -> None:
        """Insert ``dataset`` if its name is free and the tier allows one more (same txn).

        The storage item is written first: on SQLite that write takes the database lock, so the
        name and count checks that follow cannot interleave with another create of this user.
        """
        usage = UsageRepository(uow.session)
        repo = DatasetRepository(uow.session)
        usage.lock_user(principal.user_id)
        usage.record(dataset.dataset_id, principal.user_id, "dataset", 0, dataset.created_at)
        if repo.active_named(principal.user_id, dataset.name) is not None:
            raise Conflict(
                f"you already have a dataset named {dataset.name!r}; choose another name or "
                "delete that dataset first"
            )
        limit = self.settings.tiers[principal.tier].max_datasets
        if repo.count_active(principal.user_id) >= limit:
            raise LimitExceeded(
                f"the {principal.tier} tier allows at most {limit} active datasets and you have "
                f"{limit}; delete one (DELETE /v1/datasets/{{datasetId}}) to create another",
                reason="DATASET_LIMIT",
                retryable=False,
                retry_after=None,
            )
        repo.add(dataset)

    def list(self, principal: Principal, include_deleted: bool) -> list[DatasetView]:
        with self.database.unit_of_work() as uow:
            repo = DatasetRepository(uow.session)
            found = repo.list_of(principal.user_id, include_deleted)
            return [DatasetView(d, self._current(repo, d)) for d in found]

    def get(self, principal: Principal, dataset_id: str) -> DatasetView:
        with self.database.unit_of_work() as uow:
            repo = DatasetRepository(uow.session)
            dataset = self.owned(repo, principal, dataset_id)
            version = self._current(repo, dataset)
        url = self.data_url(version) if version is not None else None
        return DatasetView(dataset, version, url)

    def delete(self, principal: Principal, dataset_id: str) -> None:
        """Soft delete: hidden, not preparable, storage released; objects stay for running work."""
        now = self.clock()
        with self.database.unit_of_work() as uow:
            repo = DatasetRepository(uow.session)
            self.owned(repo, principal, dataset_id)
            repo.mark_deleted(dataset_id, now)
            UsageRepository(uow.session).release(dataset_id, now)
        self.reap_deleted()

    def reap_deleted(self) -> int:
        """Reclaim the files of datasets deleted more than ``dataset_reap_after_seconds`` ago.

        Runs at start and after every delete, not on a timer: the grace period lets a prepare
        already reading a version finish. Rows go first, then objects, so a crash in between
        leaks files rather than leaving rows that point at nothing. Returns files deleted.
        """
        grace = timedelta(seconds=self.settings.dataset_reap_after_seconds)
        cutoff = self.clock() - grace
        keys: list[str] = []
        with self.database.unit_of_work() as uow:
            repo = DatasetRepository(uow.session)
            for dataset in repo.deleted_with_files(cutoff):
                keys += repo.purge_files_of(dataset.dataset_id)
        for key in keys:
            self._objects.delete(key)
        return len(keys)

    def check_link_target(self, key: str) -> None:
        """A signed link to a dataset's file stops working when the dataset is deleted (its
        file stays a grace period for work already reading it, not for downloads)."""
        owner = dataset_of_key(key)
        if owner is None:
            return
        with self.database.unit_of_work() as uow:
            dataset = DatasetRepository(uow.session).of(*owner)
        if dataset is None:
            raise NotFound("the dataset was deleted; its data link no longer works")

    def data_url(self, version: DatasetVersion) -> str | None:
        return self._signed.url_for(version.object_key, ttl=DATA_URL_TTL_SECONDS)

    # -- sessions ------------------------------------------------------------------------

    def session_state(
        self, principal: Principal, dataset_id: str, session_id: str, kind: SessionKind
    ) -> UploadState:
        """An upload's or import's state, with its version once ready."""
        with self.database.unit_of_work() as uow:
            repo = DatasetRepository(uow.session)
            self.owned(repo, principal, dataset_id)
            session = repo.session_of(principal.user_id, dataset_id, session_id)
            if session is None or session.kind is not kind:
                raise NotFound(f"dataset {dataset_id} has no {kind.value} {session_id!r}")
            status, error = self._settled(uow, session)
            version = (
                repo.version_of(principal.user_id, session.version_id)
                if session.version_id
                else None
            )
        url = self.data_url(version) if version else None
        return UploadState(session, status, error, version, url)

    # -- helpers -------------------------------------------------------------------------

    def submit_job(
        self,
        uow: UnitOfWork,
        principal: Principal,
        job_id: str,
        spec: DatasetIngestSpec | DatasetImportSpec,
    ) -> None:
        """Admit the job in this transaction (beside the session the caller writes); the
        executor gets it after the commit. An import knows the data it fetches; an upload's
        data is known only once ingested, so its job names none."""
        data_type = ""
        if isinstance(spec, DatasetImportSpec):
            data_type = DataType.of_kind(spec.data_kind).value
        job = NewJob(job_id, spec.kind, USER_EXCHANGE, data_type, spec)
        self.admission.admit(uow, principal, job)

    @staticmethod
    def _settled(uow: UnitOfWork, record: DatasetSession) -> tuple[SessionStatus, str | None]:
        """The session's status and error as its owner reads them: an ingesting session whose
        job died without saying so (a crashed worker) reads as failed with the job's reason, so
        a poller never waits forever (read only: the stored session is not changed)."""
        if record.status is not SessionStatus.INGESTING or record.job_id is None:
            return record.status, record.error
        job = JobRepository(uow.session).get(record.job_id)
        if job is None or job.status is not JobStatus.FAILED:
            return record.status, record.error
        return SessionStatus.FAILED, job.status_detail or "ingest failed"

    def new_session(
        self, uow: UnitOfWork, principal: Principal, dataset_id: str, now: datetime
    ) -> DatasetSession:
        upload_id = new_id("up")
        record = DatasetSession(
            session_id=upload_id,
            dataset_id=dataset_id,
            user_id=principal.user_id,
            kind=SessionKind.UPLOAD,
            status=SessionStatus.OPEN,
            object_key=dataset_upload_key(principal.user_id, dataset_id, upload_id),
            created_at=now,
            updated_at=now,
            upload_cap=self.settings.tiers[principal.tier].max_dataset_bytes,
        )
        DatasetRepository(uow.session).add_session(record)
        return record

    def with_link(self, session: DatasetSession) -> OpenUpload:
        """The session with a fresh link to PUT its file to."""
        seconds = self._links.ttl_minutes * 60
        url = self._objects.presigned_put(session.object_key, seconds)
        target = UploadTarget(
            url or self._links.url_for(session.session_id), self._links.ttl_minutes
        )
        return OpenUpload(session.session_id, target)

    @staticmethod
    def owned(repo: DatasetRepository, principal: Principal, dataset_id: str) -> Dataset:
        dataset = repo.of(principal.user_id, dataset_id)
        if dataset is None:
            raise NotFound(f"no dataset {dataset_id!r}; see GET /v1/datasets")
        return dataset

    @staticmethod
    def _current(repo: DatasetRepository, dataset: Dataset) -> DatasetVersion | None:
        if dataset.current_version_id is None:
            return None
        return repo.version_of(dataset.user_id, dataset.current_version_id)


def too_large(cap: int) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"the file is larger than this tier's maxDatasetBytes of {cap:,} bytes; nothing was "
        "stored. Upload a smaller range, or compress it (gzip or zip of one file)",
        reason="DATASET_TOO_LARGE",
    )
