"""SQL for API keys."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session

from backtestd.domain.accounts import ApiKeyRecord
from backtestd.domain.scopes import ALL_SCOPES, to_wire
from backtestd.storage.db.tables import api_keys


def _record(row: RowMapping) -> ApiKeyRecord:
    return ApiKeyRecord(
        key_id=row["key_id"],
        user_id=row["user_id"],
        tier=row["tier"],
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        revoked_at=row["revoked_at"],
        scopes=ALL_SCOPES
        if row["scopes"] is None
        else {r: tuple(a) for r, a in row["scopes"].items()},
    )


class ApiKeyRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, record: ApiKeyRecord, key_hash: str) -> None:
        self._session.execute(
            insert(api_keys).values(
                key_id=record.key_id,
                key_hash=key_hash,
                user_id=record.user_id,
                tier=record.tier,
                created_at=record.created_at,
                expires_at=record.expires_at,
                revoked_at=record.revoked_at,
                scopes=to_wire(record.scopes),
            )
        )

    def by_hash(self, key_hash: str) -> ApiKeyRecord | None:
        row = (
            self._session.execute(select(api_keys).where(api_keys.c.key_hash == key_hash))
            .mappings()
            .first()
        )
        return _record(row) if row else None

    def by_id(self, key_id: str) -> ApiKeyRecord | None:
        row = (
            self._session.execute(select(api_keys).where(api_keys.c.key_id == key_id))
            .mappings()
            .first()
        )
        return _record(row) if row else None

    def all(self) -> list[ApiKeyRecord]:
        rows = self._session.execute(
            select(api_keys).order_by(api_keys.c.created_at, api_keys.c.key_id)
        ).mappings()
        return [_record(r) for r in rows]

    def revoke(self, key_id: str, when: datetime) -> bool:
        result = self._session.execute(
            update(api_keys)
            .where(api_keys.c.key_id == key_id, api_keys.c.revoked_at.is_(None))
            .values(revoked_at=when)
        )
        return bool(getattr(result, "rowcount", 0))

    def count_usable(self, now: datetime) -> int:
        rows = self._session.execute(
            select(api_keys.c.expires_at).where(api_keys.c.revoked_at.is_(None))
        ).scalars()
        return sum(1 for expires in rows if expires is None or expires > now)
