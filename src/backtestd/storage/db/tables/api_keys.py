"""API keys, stored only as SHA-256 hashes of the secret."""

from __future__ import annotations

from sqlalchemy import JSON, Column, String, Table

from backtestd.storage.db.tables.base import UtcDateTime, metadata

api_keys = Table(
    "api_keys",
    metadata,
    Column("key_id", String(32), primary_key=True),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("user_id", String(128), nullable=False, index=True),
    Column("tier", String(16), nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("expires_at", UtcDateTime(), nullable=True),
    Column("revoked_at", UtcDateTime(), nullable=True),
    Column("scopes", JSON, nullable=True),  # resource -> actions; NULL (older keys) = all
)
