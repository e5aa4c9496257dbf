"""Live runs, their recorded signals, and what waits for their executor (param changes,
commands). Times are epoch milliseconds, as on the wire, so the executor compares them with
market time directly."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Double,
    Index,
    Integer,
    String,
    Table,
    Text,
)

from backtestd.storage.db.tables.base import metadata

live_runs = Table(
    "live_runs",
    metadata,
    Column("run_id", String(32), primary_key=True),
    Column("user_id", String(128), nullable=False),
    Column("strategy_id", String(64), nullable=False),
    Column("compilation", String(96), nullable=False),
    Column("visibility", String(16), nullable=False),
    Column("stage", String(16), nullable=False),
    Column("state", String(16), nullable=False),
    Column("desired", String(16), nullable=False),
    Column("source", JSON, nullable=False),
    Column("params", JSON, nullable=False),
    Column("params_version", Integer, nullable=False),
    Column("relay", Boolean, nullable=False),
    Column("stream", Boolean, nullable=False),
    Column("stream_secret", String(64), nullable=True),
    Column("stream_revoked", Boolean, nullable=False),
    Column("warm_from", Integer, nullable=False),
    Column("sandbox_minutes", Integer, nullable=True),
    Column("name", Text, nullable=True),
    Column("description", Text, nullable=True),
    Column("reason", Text, nullable=True),
    Column("gate", JSON, nullable=True),
    Column("stats", JSON, nullable=True),
    Column("paper", JSON, nullable=True),
    Column("stopped_for_resources", Boolean, nullable=False),
    Column("created_at_ms", BigInteger, nullable=False),
    Column("started_at_ms", BigInteger, nullable=False),
    Column("updated_at_ms", BigInteger, nullable=False),
    # The executor holding the run: who, until when (heartbeats move it), how often it began.
    Column("lease_owner", String(128), nullable=True),
    Column("lease_until_ms", BigInteger, nullable=True),
    Column("executions", Integer, nullable=False),
    Column("trial_started_ms", BigInteger, nullable=True),
    Index("ix_live_runs_user", "user_id", "created_at_ms"),
    Index("ix_live_runs_strategy", "user_id", "strategy_id", "created_at_ms"),
    Index("ix_live_runs_desired", "desired", "lease_until_ms"),
)

live_signals = Table(
    "live_signals",
    metadata,
    Column("run_id", String(32), primary_key=True),
    Column("seq", BigInteger, primary_key=True),
    Column("event_ts_ms", BigInteger, nullable=False),
    Column("type", String(16), nullable=False),
    Column("symbol", String(64), nullable=True),
    Column("stage", String(16), nullable=False),
    Column("body", Text, nullable=False),
)

live_param_changes = Table(
    "live_param_changes",
    metadata,
    Column("run_id", String(32), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("params", JSON, nullable=False),
    Column("effective_at_ms", BigInteger, nullable=False),
)

live_commands = Table(
    "live_commands",
    metadata,
    Column("command_id", String(40), primary_key=True),
    Column("run_id", String(32), nullable=False),
    Column("command", Text, nullable=False),
    Column("properties", JSON, nullable=False),
    Column("effective_at_ms", BigInteger, nullable=False),
    Index("ix_live_commands_run", "run_id"),
)

# Paper trading (docs/live.md, "Paper trading"): each run's book (accounts, positions, running
# KPIs) as one JSON document, and its curves, append-only and kept for the life of the run.
live_paper_books = Table(
    "live_paper_books",
    metadata,
    Column("run_id", String(32), primary_key=True),
    Column("state", Text, nullable=False),
    Column("updated_at_ms", BigInteger, nullable=False),
)

live_paper_points = Table(
    "live_paper_points",
    metadata,
    Column("run_id", String(32), primary_key=True),
    Column("seq", BigInteger, primary_key=True),
    Column("account", String(64), nullable=False),
    Column("kind", String(8), nullable=False),
    Column("instrument", String(64), nullable=True),
    Column("ts_ms", BigInteger, nullable=False),
    Column("value", Double, nullable=False),
    Column("total", Double, nullable=True),
    Index("ix_live_paper_points_account", "run_id", "account", "seq"),
)
