"""SQL for user datasets, their immutable versions and their upload/import sessions.

Every read takes the caller's ``user_id``: another user's ids are indistinguishable from unknown
ones (404), and soft-deleted datasets are hidden unless asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlalchemy import delete, exists, func, insert, or_, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session

from backtestd.domain.datasets import (
    ACCEPTS_BYTES,
    DATASET_TRANSITION_SOURCES,
    SESSION_INITIAL,
    SESSION_TRANSITION_SOURCES,
    DataFormat,
    Dataset,
    DatasetSession,
    DatasetStatus,
    DatasetVersion,
    IllegalTransition,
    SessionKind,
    SessionStatus,
    TimestampUnit,
)
from backtestd.domain.marketdata import DataKind
from backtestd.storage.db.conditions import status_in
from backtestd.storage.db.tables import dataset_uploads, dataset_versions, datasets
from backtestd.storage.objects.keys import dataset_preview_key

UPLOAD_CAP = "upload_cap"
"""The key of a session's PUT cap in its ``spec`` JSON column (imports store ``{}``)."""


def _dataset(row: RowMapping) -> Dataset:
    return Dataset(
        dataset_id=row["dataset_id"],
        user_id=row["user_id"],
        name=row["name"],
        instrument=row["instrument"],
        kind=DataKind.parse(row["type"]),  # rows written before DataKind held "ticker"
        status=DatasetStatus(row["status"]),
        created_at=row["created_at"],
        error=row["error"],
        current_version_id=row["current_version_id"],
        updated_at=row["updated_at"],
        deleted_at=row["deleted_at"],
    )


def _version(row: RowMapping) -> DatasetVersion:
    return DatasetVersion(
        version_id=row["version_id"],
        dataset_id=row["dataset_id"],
        user_id=row["user_id"],
        object_key=row["object_key"],
        data_format=DataFormat(row["data_format"]),
        bytes=row["bytes"],
        rows=row["rows"],
        cadence=row["cadence"],
        timestamp_unit=TimestampUnit(row["timestamp_unit"]),
        gaps=row["gaps"],
        largest_gap_steps=row["largest_gap_steps"],
        data_from=row["data_from"],
        data_to=row["data_to"],
        columns=tuple(row["columns"]),
        created_at=row["created_at"],
    )


def _session_record(row: RowMapping) -> DatasetSession:
    stored: Mapping[str, object] = row["spec"] or {}
    cap = stored.get(UPLOAD_CAP)  # rows of earlier releases: revision 0008 renamed the key
    return DatasetSession(
        session_id=row["upload_id"],
        dataset_id=row["dataset_id"],
        user_id=row["user_id"],
        kind=SessionKind(row["kind"]),
        status=SessionStatus(row["status"]),
        object_key=row["object_key"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        received_bytes=row["received_bytes"],
        job_id=row["job_id"],
        version_id=row["version_id"],
        error=row["error"],
        upload_cap=int(cap) if isinstance(cap, int | float | str) else None,
    )


class DatasetRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    # datasets -----------------------------------------------------------------------------------
    def add(self, record: Dataset) -> None:
        """Insert a new dataset; it starts ``pending``."""
        if record.status is not DatasetStatus.PENDING:
            raise IllegalTransition(f"a new dataset starts pending, not {record.status.value}")
        self._session.execute(
            insert(datasets).values(
                dataset_id=record.dataset_id,
                user_id=record.user_id,
                name=record.name,
                instrument=record.instrument,
                type=record.kind.value,
                status=record.status.value,
                created_at=record.created_at,
                error=record.error,
                current_version_id=record.current_version_id,
                updated_at=record.updated_at,
                deleted_at=record.deleted_at,
            )
        )

    def move_dataset(
        self,
        dataset_id: str,
        target: DatasetStatus,
        *,
        error: str | None = None,
        kind: DataKind | None = None,
        current_version_id: str | None = None,
        updated_at: datetime | None = None,
    ) -> None:
        """Move a dataset to ``target`` along ``DATASET_TRANSITION_SOURCES``, with the fields
        that change with it: ``ready`` takes the new version's ``kind`` and id and clears the
        error; ``failed`` takes the ``error`` (the current version stays).

        Raises ``IllegalTransition`` when the dataset is missing or not in a source state: no
        race explains either (a dataset row outlives its sessions, and every state but
        ``pending`` may follow every other), so it is a bug, not a no-op.
        """
        sources = DATASET_TRANSITION_SOURCES.get(target, frozenset())
        values: dict[str, object] = {"status": target.value, "error": error}
        if kind is not None:
            values["type"] = kind.value
        if current_version_id is not None:
            values["current_version_id"] = current_version_id
        if updated_at is not None:
            values["updated_at"] = updated_at
        result = self._session.execute(
            update(datasets)
            .where(
                datasets.c.dataset_id == dataset_id,
                status_in(datasets.c.status, sources),
            )
            .values(**values)
        )
        if not getattr(result, "rowcount", 0):
            raise IllegalTransition(f"dataset {dataset_id} cannot move to {target.value}")

    def mark_deleted(self, dataset_id: str, at: datetime) -> None:
        """Soft delete: the row stays (``includeDeleted``), its name is free again."""
        self._session.execute(
            update(datasets).where(datasets.c.dataset_id == dataset_id).values(deleted_at=at)
        )

    def of(self, user_id: str, dataset_id: str, include_deleted: bool = False) -> Dataset | None:
        query = select(datasets).where(
            datasets.c.dataset_id == dataset_id, datasets.c.user_id == user_id
        )
        if not include_deleted:
            query = query.where(datasets.c.deleted_at.is_(None))
        row = self._session.execute(query).mappings().first()
        return _dataset(row) if row else None

    def active_named(self, user_id: str, name: str) -> Dataset | None:
        row = (
            self._session.execute(
                select(datasets).where(
                    datasets.c.user_id == user_id,
                    datasets.c.name == name,
                    datasets.c.deleted_at.is_(None),
                )
            )
            .mappings()
            .first()
        )
        return _dataset(row) if row else None

    def list_of(self, user_id: str, include_deleted: bool) -> list[Dataset]:
        """Most recently created first."""
        query = select(datasets).where(datasets.c.user_id == user_id)
        if not include_deleted:
            query = query.where(datasets.c.deleted_at.is_(None))
        query = query.order_by(datasets.c.created_at.desc(), datasets.c.dataset_id.desc())
        return [_dataset(r) for r in self._session.execute(query).mappings()]

    def deleted_with_files(self, before: datetime) -> list[Dataset]:
        """Datasets deleted before ``before`` that still have version or session rows."""
        has_version = exists().where(dataset_versions.c.dataset_id == datasets.c.dataset_id)
        has_session = exists().where(dataset_uploads.c.dataset_id == datasets.c.dataset_id)
        query = select(datasets).where(
            datasets.c.deleted_at.is_not(None),
            datasets.c.deleted_at < before,
            or_(has_version, has_session),
        )
        return [_dataset(r) for r in self._session.execute(query).mappings()]

    def purge_files_of(self, dataset_id: str) -> list[str]:
        """Forget a deleted dataset's versions and sessions; the object keys to delete (each
        version's file and its preview base)."""
        versions = [
            str(key)
            for key in self._session.execute(
                select(dataset_versions.c.object_key).where(
                    dataset_versions.c.dataset_id == dataset_id
                )
            ).scalars()
        ]
        keys = versions + [dataset_preview_key(key) for key in versions]
        keys += [
            str(key)
            for key in self._session.execute(
                select(dataset_uploads.c.object_key).where(
                    dataset_uploads.c.dataset_id == dataset_id
                )
            ).scalars()
            if key
        ]
        self._session.execute(
            delete(dataset_versions).where(dataset_versions.c.dataset_id == dataset_id)
        )
        self._session.execute(
            delete(dataset_uploads).where(dataset_uploads.c.dataset_id == dataset_id)
        )
        return keys

    def count_active(self, user_id: str) -> int:
        count = self._session.execute(
            select(func.count()).where(
                datasets.c.user_id == user_id, datasets.c.deleted_at.is_(None)
            )
        ).scalar_one()
        return int(count)

    # versions -----------------------------------------------------------------------------------
    def add_version(self, version: DatasetVersion) -> None:
        self._session.execute(
            insert(dataset_versions).values(
                version_id=version.version_id,
                dataset_id=version.dataset_id,
                user_id=version.user_id,
                object_key=version.object_key,
                data_format=version.data_format.value,
                bytes=version.bytes,
                rows=version.rows,
                cadence=version.cadence,
                timestamp_unit=version.timestamp_unit.value,
                gaps=version.gaps,
                largest_gap_steps=version.largest_gap_steps,
                data_from=version.data_from,
                data_to=version.data_to,
                columns=list(version.columns),
                created_at=version.created_at,
            )
        )

    def version_bytes(self, dataset_id: str) -> int:
        """Bytes of every stored version of a dataset (what its storage item counts)."""
        total = self._session.execute(
            select(func.coalesce(func.sum(dataset_versions.c.bytes), 0)).where(
                dataset_versions.c.dataset_id == dataset_id
            )
        ).scalar_one()
        return int(total)

    def version_of(self, user_id: str, version_id: str) -> DatasetVersion | None:
        row = (
            self._session.execute(
                select(dataset_versions).where(
                    dataset_versions.c.version_id == version_id,
                    dataset_versions.c.user_id == user_id,
                )
            )
            .mappings()
            .first()
        )
        return _version(row) if row else None

    # sessions -----------------------------------------------------------------------------------
    def add_session(self, record: DatasetSession) -> None:
        """Insert a new session, in its kind's first state (``SESSION_INITIAL``)."""
        if record.status is not SESSION_INITIAL[record.kind]:
            raise IllegalTransition(
                f"a new {record.kind.value} session starts {SESSION_INITIAL[record.kind].value}, "
                f"not {record.status.value}"
            )
        spec = {} if record.upload_cap is None else {UPLOAD_CAP: record.upload_cap}
        self._session.execute(
            insert(dataset_uploads).values(
                upload_id=record.session_id,
                dataset_id=record.dataset_id,
                user_id=record.user_id,
                kind=record.kind.value,
                status=record.status.value,
                object_key=record.object_key,
                created_at=record.created_at,
                updated_at=record.updated_at,
                received_bytes=record.received_bytes,
                job_id=record.job_id,
                version_id=record.version_id,
                error=record.error,
                spec=spec,
            )
        )

    def move_session(
        self,
        session_id: str,
        target: SessionStatus,
        at: datetime,
        *,
        received_bytes: int | None = None,
        job_id: str | None = None,
        version_id: str | None = None,
        error: str | None = None,
    ) -> bool:
        """Move a session to ``target`` along ``SESSION_TRANSITION_SOURCES`` (one conditional
        UPDATE), setting the fields given; True when it moved.

        A session that is missing or not in a source state is left as it is and the answer is
        False: there a race or a rerun is expected (a PUT after a finalize, a resubmitted job
        whose session already ended), and the caller decides what that means (a 409, nothing
        to do, or ``IllegalTransition`` where it holds the row and has seen its state).
        """
        sources = SESSION_TRANSITION_SOURCES.get(target, frozenset())
        values: dict[str, object] = {"status": target.value, "updated_at": at}
        if received_bytes is not None:
            values["received_bytes"] = received_bytes
        if job_id is not None:
            values["job_id"] = job_id
        if version_id is not None:
            values["version_id"] = version_id
        if error is not None:
            values["error"] = error
        result = self._session.execute(
            update(dataset_uploads)
            .where(
                dataset_uploads.c.upload_id == session_id,
                status_in(dataset_uploads.c.status, sources),
            )
            .values(**values)
        )
        return bool(getattr(result, "rowcount", 0))

    def lock_session(self, session_id: str) -> bool:
        """Hold the session's row until the unit of work ends; False when there is none.

        An UPDATE that changes nothing: PostgreSQL locks the row, SQLite takes its write lock
        (a plain SELECT takes neither, on SQLite it is not even in the transaction). A signed
        PUT and a finalize of the same session each lock it before reading it, so one of them
        waits for the other and reads what the other wrote.
        """
        result = self._session.execute(
            update(dataset_uploads)
            .where(dataset_uploads.c.upload_id == session_id)
            .values(upload_id=dataset_uploads.c.upload_id)
        )
        return bool(getattr(result, "rowcount", 0))

    def session_of(self, user_id: str, dataset_id: str, session_id: str) -> DatasetSession | None:
        row = (
            self._session.execute(
                select(dataset_uploads).where(
                    dataset_uploads.c.upload_id == session_id,
                    dataset_uploads.c.dataset_id == dataset_id,
                    dataset_uploads.c.user_id == user_id,
                )
            )
            .mappings()
            .first()
        )
        return _session_record(row) if row else None

    def sessions_of(self, dataset_id: str) -> list[DatasetSession]:
        rows = self._session.execute(
            select(dataset_uploads).where(dataset_uploads.c.dataset_id == dataset_id)
        ).mappings()
        return [_session_record(row) for row in rows]

    def open_upload_of(self, dataset_id: str) -> DatasetSession | None:
        """The one not-yet-finalized upload session of a dataset, if any."""
        row = (
            self._session.execute(
                select(dataset_uploads).where(
                    dataset_uploads.c.dataset_id == dataset_id,
                    dataset_uploads.c.kind == SessionKind.UPLOAD.value,
                    status_in(dataset_uploads.c.status, ACCEPTS_BYTES),
                )
            )
            .mappings()
            .first()
        )
        return _session_record(row) if row else None

    def session_by_id(self, session_id: str) -> DatasetSession | None:
        """A session by id alone: for the signed PUT, whose link is the credential, and for the
        workers, whose job names it."""
        row = (
            self._session.execute(
                select(dataset_uploads).where(dataset_uploads.c.upload_id == session_id)
            )
            .mappings()
            .first()
        )
        return _session_record(row) if row else None
