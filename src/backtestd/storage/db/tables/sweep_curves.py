"""The ledger of stored sweep curves: per sweep, the bytes its stored curves take and when they
were last read (or written), so stored curves are a bounded, least-recently-read cache
(``jobs/sweep_curve_cache.py``); and which runs' curves were reclaimed, to say so when one is
asked for."""

from __future__ import annotations

from sqlalchemy import JSON, BigInteger, Column, Index, String, Table

from backtestd.storage.db.tables.base import UtcDateTime, metadata

sweep_curves = Table(
    "sweep_curves",
    metadata,
    Column("sweep_id", String(40), primary_key=True),
    Column("user_id", String(128), nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("read_at", UtcDateTime(), nullable=False),
    Column("reclaimed", JSON, nullable=True),  # runIx of the curves reclaimed, or NULL
    Column("reclaimed_at", UtcDateTime(), nullable=True),
    Index("ix_sweep_curves_user_read", "user_id", "read_at"),
)
