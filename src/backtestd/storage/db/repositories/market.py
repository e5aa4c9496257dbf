"""SQL for the index of stored market-data hours.

For generated exchanges (``sim``) ``stored_at`` is the hour's last use: ``touch`` refreshes it,
and the bounded cache of generated hours evicts the oldest first. Ingested hours are never
touched or evicted, so for them it stays the time they were written.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session

from backtestd.domain.catalogue import HourStats, StoredRange
from backtestd.storage.db.insert import upsert
from backtestd.storage.db.tables import market_hours


class MarketHourRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def put(self, stats: HourStats, when: datetime) -> None:
        """Record (or re-record) one stored hour; safe when processes record it at once."""
        upsert(
            self._session,
            market_hours,
            {
                "exchange_id": stats.exchange_id,
                "symbol": stats.symbol,
                "kind": stats.kind,
                "hour": stats.hour,
                "rows": stats.rows,
                "bytes": stats.bytes,
                "last_price": stats.last_price,
                "quote_volume": stats.quote_volume,
                "interval": stats.interval,
                "stored_at": when,
            },
        )

    def touch(
        self, exchange_id: str, symbol: str, kind: str, hour: datetime, when: datetime
    ) -> None:
        """Mark a stored hour as used at ``when`` (the LRU clock of generated hours)."""
        self._session.execute(
            update(market_hours)
            .where(
                market_hours.c.exchange_id == exchange_id,
                market_hours.c.symbol == symbol,
                market_hours.c.kind == kind,
                market_hours.c.hour == hour,
            )
            .values(stored_at=when)
        )

    def total_bytes(self, exchange_ids: list[str]) -> int:
        """Bytes of every stored hour of these exchanges."""
        value = self._session.execute(
            select(func.coalesce(func.sum(market_hours.c.bytes), 0)).where(
                market_hours.c.exchange_id.in_(exchange_ids)
            )
        ).scalar_one()
        return int(value)

    def least_recently_used(
        self, exchange_ids: list[str], limit: int
    ) -> list[tuple[HourStats, datetime]]:
        """Up to ``limit`` hours of these exchanges with their last use, oldest use first."""
        rows = self._session.execute(
            select(market_hours)
            .where(market_hours.c.exchange_id.in_(exchange_ids))
            .order_by(market_hours.c.stored_at, market_hours.c.hour)
            .limit(limit)
        ).mappings()
        return [(_stats(r), r["stored_at"]) for r in rows]

    def remove_if_unused_since(self, stats: HourStats, used_at: datetime) -> bool:
        """Delete the hour's row unless it was used (or re-stored) after ``used_at``."""
        result = self._session.execute(
            delete(market_hours).where(
                market_hours.c.exchange_id == stats.exchange_id,
                market_hours.c.symbol == stats.symbol,
                market_hours.c.kind == stats.kind,
                market_hours.c.hour == stats.hour,
                market_hours.c.stored_at <= used_at,
            )
        )
        return bool(getattr(result, "rowcount", 0))

    def exchange_ids(self) -> list[str]:
        rows = self._session.execute(
            select(market_hours.c.exchange_id).distinct().order_by(market_hours.c.exchange_id)
        ).scalars()
        return list(rows)

    def intervals(self, exchange_id: str, symbol: str, kind: str) -> list[str]:
        """The distinct native intervals recorded for one instrument's stored hours of a kind."""
        rows = self._session.execute(
            select(market_hours.c.interval)
            .where(
                market_hours.c.exchange_id == exchange_id,
                market_hours.c.symbol == symbol,
                market_hours.c.kind == kind,
                market_hours.c.interval.is_not(None),
            )
            .distinct()
        ).scalars()
        return [str(r) for r in rows]

    def hours_with_rows(self, exchange_id: str, symbol: str, kind: str) -> list[datetime]:
        """Every stored hour of one instrument and kind that holds at least one row."""
        rows = self._session.execute(
            select(market_hours.c.hour).where(
                market_hours.c.exchange_id == exchange_id,
                market_hours.c.symbol == symbol,
                market_hours.c.kind == kind,
                market_hours.c.rows > 0,
            )
        ).scalars()
        return [_aware(r) for r in rows]

    def ranges(self, exchange_id: str) -> list[StoredRange]:
        rows = self._session.execute(
            select(
                market_hours.c.symbol,
                market_hours.c.kind,
                func.min(market_hours.c.hour),
                func.max(market_hours.c.hour),
                func.max(market_hours.c.interval),
            )
            .where(market_hours.c.exchange_id == exchange_id)
            .group_by(market_hours.c.symbol, market_hours.c.kind)
        ).all()
        return [
            StoredRange(exchange_id, symbol, kind, _aware(first), _aware(last), interval)
            for symbol, kind, first, last, interval in rows
        ]

    def hours(
        self, exchange_id: str, symbol: str, kind: str, start: datetime, end: datetime
    ) -> list[HourStats]:
        """Stats of stored hours with ``start <= hour < end``, oldest first."""
        rows = self._session.execute(
            select(market_hours)
            .where(
                market_hours.c.exchange_id == exchange_id,
                market_hours.c.symbol == symbol,
                market_hours.c.kind == kind,
                market_hours.c.hour >= start,
                market_hours.c.hour < end,
            )
            .order_by(market_hours.c.hour)
        ).mappings()
        return [_stats(r) for r in rows]


def _stats(r: RowMapping) -> HourStats:
    return HourStats(
        exchange_id=r["exchange_id"],
        symbol=r["symbol"],
        kind=r["kind"],
        hour=r["hour"],
        rows=r["rows"],
        bytes=r["bytes"],
        last_price=r["last_price"],
        quote_volume=r["quote_volume"],
        interval=r["interval"],
    )


def _aware(value: datetime) -> datetime:
    """Aggregates bypass the column type on some backends; restore the UTC zone."""
    from datetime import UTC

    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
