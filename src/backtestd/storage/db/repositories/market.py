"""SQL for the index of stored market-data hours."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from backtestd.domain.catalogue import HourStats, StoredRange
from backtestd.storage.db.tables import market_hours


class MarketHourRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def put(self, stats: HourStats, when: datetime) -> None:
        """Record (or re-record) one stored hour."""
        key = (
            (market_hours.c.exchange_id == stats.exchange_id)
            & (market_hours.c.symbol == stats.symbol)
            & (market_hours.c.kind == stats.kind)
            & (market_hours.c.hour == stats.hour)
        )
        self._session.execute(delete(market_hours).where(key))
        self._session.execute(
            insert(market_hours).values(
                exchange_id=stats.exchange_id,
                symbol=stats.symbol,
                kind=stats.kind,
                hour=stats.hour,
                rows=stats.rows,
                bytes=stats.bytes,
                last_price=stats.last_price,
                quote_volume=stats.quote_volume,
                interval=stats.interval,
                stored_at=when,
            )
        )

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
        return [
            HourStats(
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
            for r in rows
        ]


def _aware(value: datetime) -> datetime:
    """Aggregates bypass the column type on some backends; restore the UTC zone."""
    from datetime import UTC

    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
