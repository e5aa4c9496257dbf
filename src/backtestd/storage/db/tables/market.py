"""Index of stored market-data hours: what the catalogue and coverage are built from."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Float, Integer, String, Table

from backtestd.storage.db.tables.base import UtcDateTime, metadata

market_hours = Table(
    "market_hours",
    metadata,
    Column("exchange_id", String(64), primary_key=True),
    Column("symbol", String(64), primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("hour", UtcDateTime(), primary_key=True),
    Column("rows", Integer, nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("last_price", Float, nullable=True),
    Column("quote_volume", Float, nullable=False),
    Column("interval", String(8), nullable=True),
    Column("stored_at", UtcDateTime(), nullable=False),
)
