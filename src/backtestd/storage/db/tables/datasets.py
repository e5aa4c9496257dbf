"""User datasets, their immutable versions and upload sessions (deleted datasets stay, marked)."""

from __future__ import annotations

from sqlalchemy import JSON, BigInteger, Column, Index, String, Table, Text

from backtestd.storage.db.tables.base import UtcDateTime, metadata

datasets = Table(
    "datasets",
    metadata,
    Column("dataset_id", String(40), primary_key=True),
    Column("user_id", String(128), nullable=False),
    Column("name", String(256), nullable=False),
    Column("instrument", String(64), nullable=False),
    Column("type", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("error", Text, nullable=True),
    Column("current_version_id", String(40), nullable=True),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("updated_at", UtcDateTime(), nullable=True),
    Column("deleted_at", UtcDateTime(), nullable=True),
    Index("ix_datasets_user_name", "user_id", "name"),
)

dataset_versions = Table(
    "dataset_versions",
    metadata,
    Column("version_id", String(40), primary_key=True),
    Column("dataset_id", String(40), nullable=False),
    Column("user_id", String(128), nullable=False),
    Column("object_key", String(512), nullable=False),
    Column("data_format", String(16), nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("rows", BigInteger, nullable=False),
    Column("cadence", String(8), nullable=False),
    Column("timestamp_unit", String(8), nullable=False),
    Column("gaps", BigInteger, nullable=False),
    Column("largest_gap_steps", BigInteger, nullable=False),
    Column("data_from", UtcDateTime(), nullable=False),
    Column("data_to", UtcDateTime(), nullable=False),
    Column("columns", JSON, nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Index("ix_dataset_versions_dataset", "dataset_id"),
)

dataset_uploads = Table(
    "dataset_uploads",
    metadata,
    Column("upload_id", String(40), primary_key=True),
    Column("dataset_id", String(40), nullable=False),
    Column("user_id", String(128), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("object_key", String(512), nullable=False),
    Column("received_bytes", BigInteger, nullable=True),
    Column("job_id", String(40), nullable=True),
    Column("version_id", String(40), nullable=True),
    Column("error", Text, nullable=True),
    Column("spec", JSON, nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("updated_at", UtcDateTime(), nullable=False),
    Index("ix_dataset_uploads_dataset", "dataset_id"),
)
