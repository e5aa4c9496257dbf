"""Rows of parameter sweeps: one per finished trial (or walk-forward fold), keyed by ``runIx``.

The sweep itself is a job row (kind ``sweep``) and its shards are job rows (kind
``sweep_shard``); only the per-trial results need a table of their own.
"""

from __future__ import annotations

from sqlalchemy import JSON, Boolean, Column, Integer, String, Table, Text

from backtestd.storage.db.tables.base import UtcDateTime, metadata

sweep_rows = Table(
    "sweep_rows",
    metadata,
    Column("sweep_id", String(40), primary_key=True),
    Column("run_ix", Integer, primary_key=True),
    Column("params", JSON, nullable=False),
    Column("metrics", JSON, nullable=False),
    Column("aborted", Boolean, nullable=False),
    Column("error", Text, nullable=True),
    Column("runtime_ms", Integer, nullable=False),
    Column("daily_returns", JSON, nullable=False),
    Column("curve", JSON, nullable=True),
    Column("fold", JSON, nullable=True),
    Column("created_at", UtcDateTime(), nullable=False),
)
