"""Upload sessions: open, the signed PUT's body, state, and finalize into an ingest job.

At most one open session per dataset; a session is spent once it produced a version (409). With
the local store the service receives the PUT itself (``api/routes/files.py``) and caps it while
it streams; with S3 the bytes go straight to the store and are checked at finalize.
"""

from __future__ import annotations

from pathlib import Path

from backtestd.domain.accounts import Principal
from backtestd.domain.canonical import content_id
from backtestd.domain.datasets import (
    ACCEPTS_BYTES,
    DatasetIngestSpec,
    DatasetLimits,
    DatasetSession,
    IllegalTransition,
    OpenUpload,
    SessionKind,
    SessionStatus,
    UploadState,
)
from backtestd.errors import Conflict, InvalidInput, NotFound, StorageQuotaExceeded
from backtestd.services.datasets import DatasetService, too_large
from backtestd.services.upload_links import UploadLinks
from backtestd.storage.db.engine import UnitOfWork
from backtestd.storage.db.repositories.datasets import DatasetRepository
from backtestd.storage.db.repositories.usage import UsageRepository
from backtestd.storage.objects.store import ObjectStore


class DatasetUploads:
    def __init__(
        self, datasets: DatasetService, objects: ObjectStore, upload_links: UploadLinks
    ) -> None:
        self._datasets = datasets
        self._objects = objects
        self._links = upload_links

    def open_upload(self, principal: Principal, dataset_id: str) -> OpenUpload:
        """The dataset's open session, or a new one when the last was finalized."""
        now = self._datasets.clock()
        with self._datasets.database.unit_of_work() as uow:
            repo = DatasetRepository(uow.session)
            self._datasets.owned(repo, principal, dataset_id)
            session = repo.open_upload_of(dataset_id) or self._datasets.new_session(
                uow, principal, dataset_id, now
            )
        return self._datasets.with_link(session)

    def upload_state(self, principal: Principal, dataset_id: str, upload_id: str) -> UploadState:
        return self._datasets.session_state(principal, dataset_id, upload_id, SessionKind.UPLOAD)

    def upload_cap(self, upload_id: str, expires: int, signature: str) -> int:
        """Check a signed PUT link; the body cap (``max_dataset_bytes`` of the creator's tier
        when the session opened)."""
        self._links.verify(upload_id, expires, signature)
        session = self._session_by_id(upload_id)
        self._require_open(session)
        if session.upload_cap is None:
            raise RuntimeError(f"upload {upload_id} was stored without its byte cap")
        return session.upload_cap

    def receive_upload(self, upload_id: str, body: Path) -> int:
        """Store a PUT body (already capped and spooled to ``body``); the session is then
        ``uploading``. A new PUT to an unfinalized session replaces the earlier bytes.

        The bytes are published while the session's row is locked and seen to be unfinalized
        (the conditional move to ``uploading`` is that lock and that look), so a finalize
        racing the PUT either comes first (the PUT answers 409 and stores nothing) or waits
        for it (and its ingest reads these bytes); a finalized upload's file never changes
        under its ingest.
        """
        session = self._session_by_id(upload_id)
        self._require_open(session)  # the common refusal, before taking any lock
        size = body.stat().st_size
        with self._datasets.database.unit_of_work() as uow:
            repo = DatasetRepository(uow.session)
            now = self._datasets.clock()
            if not repo.move_session(upload_id, SessionStatus.UPLOADING, now, received_bytes=size):
                raise Conflict("this upload was finalized while the file arrived; nothing changed")
            self._objects.put_file(session.object_key, body)  # a link and a rename, locally
        return size

    def finalize(self, principal: Principal, dataset_id: str, upload_id: str) -> str:
        """Queue the ingest of an uploaded file; the same job id while it has not produced a
        version, 409 once it has."""
        with self._datasets.database.unit_of_work() as uow:
            repo = DatasetRepository(uow.session)
            self._datasets.owned(repo, principal, dataset_id)
            repo.lock_session(upload_id)  # a PUT publishing its bytes finishes first
            session = repo.session_of(principal.user_id, dataset_id, upload_id)
            if session is None or session.kind is not SessionKind.UPLOAD:
                raise NotFound(f"dataset {dataset_id} has no upload {upload_id!r}")
            if session.version_id is not None:
                raise Conflict(
                    f"upload {upload_id} already produced version {session.version_id}; open a "
                    f"new upload with POST /v1/datasets/{dataset_id}/uploads to add another"
                )
            if session.job_id is not None:
                return session.job_id
            limits = self._datasets.settings.tiers[principal.tier]
            if session.status is SessionStatus.OPEN:
                self._arrived_in_store(uow, session, limits.max_dataset_bytes)
            usage = UsageRepository(uow.session).usage_of(principal.user_id)
            if usage.storage_bytes_used >= limits.max_total_storage_bytes:
                raise StorageQuotaExceeded(
                    f"storage limit reached: {usage.storage_bytes_used:,} of the "
                    f"{principal.tier} tier's maxTotalStorageBytes of "
                    f"{limits.max_total_storage_bytes:,} bytes are used, so no new version can "
                    "be stored; delete datasets or strategies you no longer need"
                )
            spec = DatasetIngestSpec(
                dataset_id,
                upload_id,
                DatasetLimits(
                    principal.tier,
                    limits.max_dataset_bytes,
                    limits.max_total_storage_bytes,
                    limits.max_dataset_rows,
                ),
            )
            job_id = content_id("ingest", principal.user_id, upload_id)
            self._datasets.submit_job(uow, principal, job_id, spec)
            now = self._datasets.clock()
            if not repo.move_session(upload_id, SessionStatus.INGESTING, now, job_id=job_id):
                raise IllegalTransition(f"upload {upload_id} could not start ingesting")
        return job_id

    def _arrived_in_store(self, uow: UnitOfWork, session: DatasetSession, cap: int) -> None:
        """A session whose bytes went straight to the store (an S3 presigned PUT, which the
        service never sees): check they are there and within the cap, and record them."""
        size = self._objects.size(session.object_key)
        if size is None:
            raise InvalidInput(
                f"nothing has been uploaded to {session.session_id} yet; PUT the file to the "
                "session's upload.url first, then finalize"
            )
        if size > cap:
            self._objects.delete(session.object_key)
            raise too_large(cap)
        now = self._datasets.clock()
        moved = DatasetRepository(uow.session).move_session(
            session.session_id, SessionStatus.UPLOADING, now, received_bytes=size
        )
        if not moved:
            raise IllegalTransition(f"upload {session.session_id} could not take its bytes")

    def _session_by_id(self, upload_id: str) -> DatasetSession:
        with self._datasets.database.unit_of_work() as uow:
            repo = DatasetRepository(uow.session)
            found = repo.session_by_id(upload_id)
            dataset = repo.of(found.user_id, found.dataset_id) if found else None
        if found is None or dataset is None or found.kind is not SessionKind.UPLOAD:
            raise NotFound(f"no upload {upload_id!r}; it may have been deleted with its dataset")
        return found

    @staticmethod
    def _require_open(session: DatasetSession) -> None:
        if session.status not in ACCEPTS_BYTES:
            raise Conflict(
                f"upload {session.session_id} is already finalized ({session.status.value}); "
                f"open a new one with POST /v1/datasets/{session.dataset_id}/uploads"
            )
