"""Registered strategies (one row per registration; deleted rows are kept, marked)."""

from __future__ import annotations

from sqlalchemy import JSON, Column, Index, Integer, LargeBinary, String, Table, Text

from backtestd.storage.db.tables.base import UtcDateTime, metadata

strategies = Table(
    "strategies",
    metadata,
    Column("strategy_id", String(40), primary_key=True),
    Column("user_id", String(128), nullable=False),
    Column("language", String(16), nullable=False),
    Column("content_digest", String(64), nullable=False),
    Column("generation", Integer, nullable=False),
    Column("source", Text, nullable=False),
    Column("main_class", String(256), nullable=False),
    Column("class_files", LargeBinary, nullable=False),
    Column("declared_properties", JSON, nullable=False),
    Column("required_sources", JSON, nullable=False),
    Column("line_map", Text, nullable=True),
    Column("compiled_at", UtcDateTime(), nullable=False),
    Column("validation", String(16), nullable=False),
    Column("validated_at", UtcDateTime(), nullable=True),
    Column("notices", JSON, nullable=False),
    Column("detail", Text, nullable=True),
    Column("deleted_at", UtcDateTime(), nullable=True),
    Index("ix_strategies_user_digest", "user_id", "content_digest"),
)
