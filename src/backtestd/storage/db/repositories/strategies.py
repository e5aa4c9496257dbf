"""SQL for registered strategies."""

from __future__ import annotations

import struct
from dataclasses import asdict
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session

from backtestd.domain.strategies import Notice, PropertySpec, StrategyRecord, Validation
from backtestd.storage.db.insert import insert_new
from backtestd.storage.db.tables import strategies


def pack_class_files(class_files: dict[str, bytes]) -> bytes:
    """Name-sorted ``(u16 name length, name, u32 size, bytes)`` records: compact and stable."""
    out = bytearray()
    for name in sorted(class_files):
        encoded = name.encode("utf-8")
        out += struct.pack(">H", len(encoded)) + encoded
        out += struct.pack(">I", len(class_files[name])) + class_files[name]
    return bytes(out)


def unpack_class_files(blob: bytes) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    pos = 0
    while pos < len(blob):
        (name_len,) = struct.unpack_from(">H", blob, pos)
        pos += 2
        name = blob[pos : pos + name_len].decode("utf-8")
        pos += name_len
        (size,) = struct.unpack_from(">I", blob, pos)
        pos += 4
        files[name] = blob[pos : pos + size]
        pos += size
    return files


def _record(row: RowMapping) -> StrategyRecord:
    return StrategyRecord(
        strategy_id=row["strategy_id"],
        user_id=row["user_id"],
        language=row["language"],
        content_digest=row["content_digest"],
        generation=row["generation"],
        source=row["source"],
        main_class=row["main_class"],
        class_files=unpack_class_files(row["class_files"]),
        declared_properties=tuple(PropertySpec(**p) for p in row["declared_properties"]),
        required_sources=tuple(row["required_sources"]),
        compiled_at=row["compiled_at"],
        validation=Validation(row["validation"]),
        validated_at=row["validated_at"],
        notices=tuple(Notice(**n) for n in row["notices"]),
        detail=row["detail"],
        deleted_at=row["deleted_at"],
        line_map=row["line_map"],
    )


def _notices(notices: tuple[Notice, ...]) -> list[dict[str, Any]]:
    return [asdict(n) for n in notices]


class StrategyRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, record: StrategyRecord) -> bool:
        """Insert; False when a concurrent registration already took this id."""
        return insert_new(self._session, strategies, self._values(record))

    @staticmethod
    def _values(record: StrategyRecord) -> dict[str, Any]:
        return dict(
            strategy_id=record.strategy_id,
            user_id=record.user_id,
            language=record.language,
            content_digest=record.content_digest,
            generation=record.generation,
            source=record.source,
            main_class=record.main_class,
            class_files=pack_class_files(record.class_files),
            declared_properties=[asdict(p) for p in record.declared_properties],
            required_sources=list(record.required_sources),
            line_map=record.line_map,
            compiled_at=record.compiled_at,
            validation=record.validation.value,
            validated_at=record.validated_at,
            notices=_notices(record.notices),
            detail=record.detail,
            deleted_at=record.deleted_at,
        )

    def get(self, strategy_id: str) -> StrategyRecord | None:
        row = (
            self._session.execute(select(strategies).where(strategies.c.strategy_id == strategy_id))
            .mappings()
            .first()
        )
        return _record(row) if row else None

    def active_of(self, user_id: str, strategy_id: str) -> StrategyRecord | None:
        record = self.get(strategy_id)
        if record is None or record.user_id != user_id or record.deleted_at is not None:
            return None
        return record

    def registrations_of_digest(self, user_id: str, digest: str) -> int:
        """How many times (deleted included) this user registered this content."""
        count = self._session.execute(
            select(func.count()).where(
                strategies.c.user_id == user_id, strategies.c.content_digest == digest
            )
        ).scalar_one()
        return int(count)

    def list_of(self, user_id: str, include_deleted: bool) -> list[StrategyRecord]:
        query = select(strategies).where(strategies.c.user_id == user_id)
        if not include_deleted:
            query = query.where(strategies.c.deleted_at.is_(None))
        query = query.order_by(strategies.c.compiled_at.desc(), strategies.c.strategy_id)
        return [_record(r) for r in self._session.execute(query).mappings()]

    def resubmitted(
        self,
        strategy_id: str,
        source: str,
        class_files: dict[str, bytes],
        line_map: str | None,
        when: datetime,
    ) -> None:
        """Same meaning submitted again: keep the id and verdict, record the new text."""
        self._session.execute(
            update(strategies)
            .where(strategies.c.strategy_id == strategy_id)
            .values(
                source=source,
                class_files=pack_class_files(class_files),
                line_map=line_map,
                compiled_at=when,
            )
        )

    def set_validation(
        self,
        strategy_id: str,
        validation: Validation,
        when: datetime | None,
        notices: tuple[Notice, ...] = (),
        detail: str | None = None,
    ) -> None:
        self._session.execute(
            update(strategies)
            .where(strategies.c.strategy_id == strategy_id)
            .values(
                validation=validation.value,
                validated_at=when,
                notices=_notices(notices),
                detail=detail,
            )
        )

    def mark_deleted(self, strategy_id: str, when: datetime) -> None:
        self._session.execute(
            update(strategies)
            .where(strategies.c.strategy_id == strategy_id, strategies.c.deleted_at.is_(None))
            .values(deleted_at=when)
        )

    def pending(self) -> list[StrategyRecord]:
        rows = self._session.execute(
            select(strategies).where(
                strategies.c.validation == Validation.PENDING.value,
                strategies.c.deleted_at.is_(None),
            )
        ).mappings()
        return [_record(r) for r in rows]
