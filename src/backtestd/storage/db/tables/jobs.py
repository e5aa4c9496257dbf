"""Jobs (prepare, execute): state, progress, spec and result."""

from __future__ import annotations

from sqlalchemy import JSON, Boolean, Column, Index, Integer, String, Table, Text

from backtestd.storage.db.tables.base import UtcDateTime, metadata

jobs = Table(
    "jobs",
    metadata,
    Column("job_id", String(40), primary_key=True),
    Column("user_id", String(128), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("exchange_id", String(64), nullable=False),
    Column("data_type", String(16), nullable=False),
    Column("spec", JSON, nullable=False),
    Column("status", String(16), nullable=False),
    Column("status_detail", Text, nullable=True),
    Column("size", Integer, nullable=False),
    Column("completed", Integer, nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("start_time", UtcDateTime(), nullable=True),
    Column("end_time", UtcDateTime(), nullable=True),
    Column("result", JSON, nullable=False),
    Column("cancel_requested", Boolean, nullable=False),
    Column("attempts", Integer, nullable=False),
    Index("ix_jobs_user_kind_status", "user_id", "kind", "status"),
    Index("ix_jobs_status", "status"),
)
