"""The ledger of prepared data (columns of completed prepares): bytes and last use."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, String, Table

from backtestd.storage.db.tables.base import UtcDateTime, metadata

prepared_data = Table(
    "prepared_data",
    metadata,
    Column("job_id", String(40), primary_key=True),
    Column("user_id", String(128), nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("used_at", UtcDateTime(), nullable=False),
    Index("ix_prepared_data_used_at", "used_at"),
)
