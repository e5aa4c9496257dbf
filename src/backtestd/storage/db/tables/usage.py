"""Stored objects that count against a user's storage pool.

Strategies, datasets and signal uploads each get their full tables in their own features;
these rows are the accounting view ``/v1/account/usage`` sums, one per stored object.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, String, Table

from backtestd.storage.db.tables.base import UtcDateTime, metadata

storage_items = Table(
    "storage_items",
    metadata,
    Column("item_id", String(96), primary_key=True),
    Column("user_id", String(128), nullable=False),
    Column("kind", String(16), nullable=False),  # strategy | dataset | signals
    Column("bytes", BigInteger, nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("deleted_at", UtcDateTime(), nullable=True),
    Index("ix_storage_items_user_kind", "user_id", "kind"),
)
