"""SQL for live runs: records, leases, the signal record, pending params and commands."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backtestd.domain.live import (
    FeeLeg,
    GateChecks,
    LiveCommand,
    LiveDesired,
    LiveGate,
    LiveRunRecord,
    LiveSignal,
    LiveSource,
    LiveStage,
    LiveState,
    LiveStats,
    PaperConfig,
    ParamsChange,
    SignalType,
    Visibility,
)
from backtestd.domain.marketdata import DataType
from backtestd.storage.db.tables import live_commands, live_param_changes, live_runs, live_signals


def source_to_row(source: LiveSource) -> dict[str, object]:
    return {
        "venue_type": source.venue_type,
        "exchange": source.exchange,
        "segment": source.segment,
        "type": source.type.value,
        "instruments": list(source.instruments),
    }


def _source(value: Mapping[str, Any]) -> LiveSource:
    return LiveSource(
        venue_type=str(value["venue_type"]),
        exchange=str(value["exchange"]),
        segment=str(value["segment"]),
        type=DataType(value["type"]),
        instruments=tuple(value["instruments"]),
    )


def stats_to_row(stats: LiveStats) -> dict[str, object]:
    return {
        "processed": stats.processed,
        "ops_per_second": stats.ops_per_second,
        "instruments_seen": stats.instruments_seen,
        "as_of_ms": stats.as_of_ms,
        "progressed_at_ms": stats.progressed_at_ms,
        "position_ms": stats.position_ms,
    }


def _stats(value: Mapping[str, Any] | None) -> LiveStats | None:
    if not value:
        return None
    return LiveStats(
        processed=int(value["processed"]),
        ops_per_second=float(value["ops_per_second"]),
        instruments_seen=int(value["instruments_seen"]),
        as_of_ms=int(value["as_of_ms"]),
        progressed_at_ms=value.get("progressed_at_ms"),
        position_ms=value.get("position_ms"),
    )


def gate_to_row(gate: LiveGate | None) -> dict[str, object] | None:
    return asdict(gate) if gate is not None else None


def _gate(value: Mapping[str, Any] | None) -> LiveGate | None:
    if value is None:
        return None
    checks = value.get("checks")
    return LiveGate(
        passed=bool(value["passed"]),
        checks=GateChecks(**checks) if checks else None,
        evaluated_at_ms=value.get("evaluated_at_ms"),
        inherited_from=value.get("inherited_from"),
    )


def _paper_row(paper: PaperConfig | None) -> dict[str, object] | None:
    if paper is None:
        return None
    row = asdict(paper)
    row["fee_leg"] = paper.fee_leg.value
    return row


def _paper(value: Mapping[str, Any] | None) -> PaperConfig | None:
    if value is None:
        return None
    return PaperConfig(**{**value, "fee_leg": FeeLeg(value["fee_leg"])})


def _record(row: RowMapping) -> LiveRunRecord:
    return LiveRunRecord(
        run_id=row["run_id"],
        user_id=row["user_id"],
        strategy_id=row["strategy_id"],
        compilation=row["compilation"],
        visibility=Visibility(row["visibility"]),
        stage=LiveStage(row["stage"]),
        state=LiveState(row["state"]),
        desired=LiveDesired(row["desired"]),
        source=_source(row["source"]),
        params=dict(row["params"]),
        params_version=int(row["params_version"]),
        relay=bool(row["relay"]),
        stream=bool(row["stream"]),
        warm_from=int(row["warm_from"]),
        created_at_ms=int(row["created_at_ms"]),
        started_at_ms=int(row["started_at_ms"]),
        updated_at_ms=int(row["updated_at_ms"]),
        sandbox_minutes=row["sandbox_minutes"],
        name=row["name"],
        description=row["description"],
        reason=row["reason"],
        gate=_gate(row["gate"]),
        stats=_stats(row["stats"]),
        stream_secret=row["stream_secret"],
        stream_revoked=bool(row["stream_revoked"]),
        stopped_for_resources=bool(row["stopped_for_resources"]),
        paper=_paper(row["paper"]),
    )


class LiveRunRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    # -- records -------------------------------------------------------------------------------

    def add(self, record: LiveRunRecord) -> None:
        self._session.execute(
            insert(live_runs).values(
                run_id=record.run_id,
                user_id=record.user_id,
                strategy_id=record.strategy_id,
                compilation=record.compilation,
                visibility=record.visibility.value,
                stage=record.stage.value,
                state=record.state.value,
                desired=record.desired.value,
                source=source_to_row(record.source),
                params=dict(record.params),
                params_version=record.params_version,
                relay=record.relay,
                stream=record.stream,
                stream_secret=record.stream_secret,
                stream_revoked=record.stream_revoked,
                warm_from=record.warm_from,
                sandbox_minutes=record.sandbox_minutes,
                name=record.name,
                description=record.description,
                reason=record.reason,
                gate=gate_to_row(record.gate),
                stats=None,
                paper=_paper_row(record.paper),
                stopped_for_resources=record.stopped_for_resources,
                created_at_ms=record.created_at_ms,
                started_at_ms=record.started_at_ms,
                updated_at_ms=record.updated_at_ms,
                executions=0,
            )
        )

    def get(self, run_id: str, *, for_update: bool = False) -> LiveRunRecord | None:
        query = select(live_runs).where(live_runs.c.run_id == run_id)
        if for_update:
            query = query.with_for_update()
        row = self._session.execute(query).mappings().first()
        return _record(row) if row is not None else None

    def last_for_strategy(self, user_id: str, strategy_id: str) -> LiveRunRecord | None:
        row = (
            self._session.execute(
                select(live_runs)
                .where(live_runs.c.user_id == user_id, live_runs.c.strategy_id == strategy_id)
                .order_by(live_runs.c.created_at_ms.desc(), live_runs.c.run_id.desc())
                .limit(1)
            )
            .mappings()
            .first()
        )
        return _record(row) if row is not None else None

    def count_active(self, user_id: str | None = None) -> int:
        query = select(func.count()).where(live_runs.c.desired == LiveDesired.RUNNING.value)
        if user_id is not None:
            query = query.where(live_runs.c.user_id == user_id)
        return int(self._session.execute(query).scalar_one())

    def inherited_gate(self, user_id: str, compilation: str) -> str | None:
        """The earliest promoted run of this compilation by this user, unless one of its runs
        was stopped for resources (then every new start goes through the sandbox again)."""
        mine = and_(live_runs.c.user_id == user_id, live_runs.c.compilation == compilation)
        stopped = self._session.execute(
            select(func.count()).where(mine, live_runs.c.stopped_for_resources.is_(True))
        ).scalar_one()
        if stopped:
            return None
        row = self._session.execute(
            select(live_runs.c.run_id)
            .where(mine, live_runs.c.stage == LiveStage.LIVE.value)
            .order_by(live_runs.c.created_at_ms)
            .limit(1)
        ).first()
        return str(row[0]) if row is not None else None

    def _page(self, where: Any, cursor: LiveRunRecord | None, limit: int) -> list[LiveRunRecord]:
        query = select(live_runs).where(where)
        if cursor is not None:
            query = query.where(
                or_(
                    live_runs.c.created_at_ms < cursor.created_at_ms,
                    and_(
                        live_runs.c.created_at_ms == cursor.created_at_ms,
                        live_runs.c.run_id < cursor.run_id,
                    ),
                )
            )
        rows = self._session.execute(
            query.order_by(live_runs.c.created_at_ms.desc(), live_runs.c.run_id.desc()).limit(limit)
        ).mappings()
        return [_record(row) for row in rows]

    def list_of(
        self, user_id: str, cursor: LiveRunRecord | None, limit: int
    ) -> list[LiveRunRecord]:
        """The user's runs, newest first, after ``cursor`` (the last run of the previous page)."""
        return self._page(live_runs.c.user_id == user_id, cursor, limit)

    def list_public(self, cursor: LiveRunRecord | None, limit: int) -> list[LiveRunRecord]:
        """Public runs promoted to ``LIVE`` and running (§3.5, §7.21), newest first."""
        return self._page(
            and_(
                live_runs.c.visibility == Visibility.PUBLIC.value,
                live_runs.c.stage == LiveStage.LIVE.value,
                live_runs.c.desired == LiveDesired.RUNNING.value,
                live_runs.c.state.not_in([LiveState.FAILED.value, LiveState.STOPPED.value]),
            ),
            cursor,
            limit,
        )

    def set_values(self, run_id: str, values: Mapping[str, Any]) -> None:
        """Change columns of one run (``updated_at_ms`` moves only when given)."""
        self._session.execute(
            update(live_runs).where(live_runs.c.run_id == run_id).values(**dict(values))
        )

    def trial_started(self, run_id: str) -> int | None:
        row = self._session.execute(
            select(live_runs.c.trial_started_ms).where(live_runs.c.run_id == run_id)
        ).first()
        return int(row[0]) if row is not None and row[0] is not None else None

    def run_of_stream(self, secret: str) -> str | None:
        row = self._session.execute(
            select(live_runs.c.run_id).where(
                live_runs.c.stream_secret == secret, live_runs.c.stream_revoked.is_(False)
            )
        ).first()
        return str(row[0]) if row is not None else None

    def running_ids(self) -> list[str]:
        rows = self._session.execute(
            select(live_runs.c.run_id).where(live_runs.c.desired == LiveDesired.RUNNING.value)
        )
        return [str(r[0]) for r in rows]

    # -- leases --------------------------------------------------------------------------------

    def claimable(self, now_ms: int, limit: int) -> list[str]:
        """Runs wanted running whose lease is free or expired, oldest first."""
        rows = self._session.execute(
            select(live_runs.c.run_id)
            .where(
                live_runs.c.desired == LiveDesired.RUNNING.value,
                live_runs.c.state != LiveState.FAILED.value,
                or_(live_runs.c.lease_until_ms.is_(None), live_runs.c.lease_until_ms < now_ms),
            )
            .order_by(live_runs.c.created_at_ms)
            .limit(limit)
        )
        return [str(r[0]) for r in rows]

    def claim(self, run_id: str, owner: str, now_ms: int, until_ms: int) -> int | None:
        """Take the run's lease if it is still free; returns how many executions it had."""
        result = self._session.execute(
            update(live_runs)
            .where(
                live_runs.c.run_id == run_id,
                live_runs.c.desired == LiveDesired.RUNNING.value,
                or_(live_runs.c.lease_until_ms.is_(None), live_runs.c.lease_until_ms < now_ms),
            )
            .values(
                lease_owner=owner,
                lease_until_ms=until_ms,
                executions=live_runs.c.executions + 1,
            )
        )
        if not getattr(result, "rowcount", 0):
            return None
        row = self._session.execute(
            select(live_runs.c.executions).where(live_runs.c.run_id == run_id)
        ).first()
        return int(row[0]) if row is not None else None

    def renew(self, owner: str, run_ids: Sequence[str], until_ms: int) -> set[str]:
        """Extend the owner's leases; returns the runs it still holds."""
        if not run_ids:
            return set()
        self._session.execute(
            update(live_runs)
            .where(live_runs.c.run_id.in_(list(run_ids)), live_runs.c.lease_owner == owner)
            .values(lease_until_ms=until_ms)
        )
        rows = self._session.execute(
            select(live_runs.c.run_id).where(
                live_runs.c.run_id.in_(list(run_ids)), live_runs.c.lease_owner == owner
            )
        )
        return {str(r[0]) for r in rows}

    def release(self, run_id: str, owner: str) -> None:
        self._session.execute(
            update(live_runs)
            .where(live_runs.c.run_id == run_id, live_runs.c.lease_owner == owner)
            .values(lease_owner=None, lease_until_ms=None)
        )

    def lease_of(self, run_id: str) -> tuple[str | None, int | None]:
        row = self._session.execute(
            select(live_runs.c.lease_owner, live_runs.c.lease_until_ms).where(
                live_runs.c.run_id == run_id
            )
        ).first()
        return (None, None) if row is None else (row[0], row[1])

    # -- params and commands -------------------------------------------------------------------

    def add_params_change(self, change: ParamsChange) -> None:
        self._session.execute(
            insert(live_param_changes).values(
                run_id=change.run_id,
                version=change.version,
                params=dict(change.params),
                effective_at_ms=change.effective_at_ms,
            )
        )

    def params_changes_after(self, run_id: str, version: int) -> list[ParamsChange]:
        rows = self._session.execute(
            select(live_param_changes)
            .where(live_param_changes.c.run_id == run_id, live_param_changes.c.version > version)
            .order_by(live_param_changes.c.version)
        ).mappings()
        return [
            ParamsChange(r["run_id"], int(r["version"]), dict(r["params"]), r["effective_at_ms"])
            for r in rows
        ]

    def add_command(self, command: LiveCommand) -> None:
        self._session.execute(
            insert(live_commands).values(
                command_id=command.command_id,
                run_id=command.run_id,
                command=command.command,
                properties=dict(command.properties),
                effective_at_ms=command.effective_at_ms,
            )
        )

    def pending_commands(self, run_id: str) -> list[LiveCommand]:
        rows = self._session.execute(
            select(live_commands)
            .where(live_commands.c.run_id == run_id)
            .order_by(live_commands.c.effective_at_ms, live_commands.c.command_id)
        ).mappings()
        return [
            LiveCommand(
                r["run_id"],
                r["command_id"],
                r["command"],
                dict(r["properties"]),
                int(r["effective_at_ms"]),
            )
            for r in rows
        ]

    def forget_commands(self, command_ids: Iterable[str]) -> None:
        ids = list(command_ids)
        if ids:
            self._session.execute(delete(live_commands).where(live_commands.c.command_id.in_(ids)))


def _signal(row: RowMapping) -> LiveSignal:
    return LiveSignal(
        run_id=row["run_id"],
        seq=int(row["seq"]),
        event_ts_ms=int(row["event_ts_ms"]),
        type=SignalType(row["type"]),
        symbol=row["symbol"],
        stage=row["stage"],
        body=json.loads(row["body"]),
    )


class SequenceTaken(Exception):
    """A signal's sequence number of the run is already recorded: another executor writes it."""


class LiveSignalRepository:
    """The per-run signal record: append-only, a moving window trimmed from the oldest end."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def append(self, signals: Sequence[LiveSignal]) -> None:
        """Record ``signals``; :class:`SequenceTaken` when another executor already wrote one
        of their sequence numbers (it holds the run now: this one must stop writing)."""
        if not signals:
            return
        try:
            self._insert(signals)
        except IntegrityError as exc:
            raise SequenceTaken(signals[0].run_id) from exc

    def _insert(self, signals: Sequence[LiveSignal]) -> None:
        self._session.execute(
            insert(live_signals),
            [
                {
                    "run_id": s.run_id,
                    "seq": s.seq,
                    "event_ts_ms": s.event_ts_ms,
                    "type": s.type.value,
                    "symbol": s.symbol,
                    "stage": s.stage,
                    "body": json.dumps(s.body, separators=(",", ":")),
                }
                for s in signals
            ],
        )

    def last(self, run_id: str) -> LiveSignal | None:
        row = (
            self._session.execute(
                select(live_signals)
                .where(live_signals.c.run_id == run_id)
                .order_by(live_signals.c.seq.desc())
                .limit(1)
            )
            .mappings()
            .first()
        )
        return _signal(row) if row is not None else None

    def oldest(self, run_id: str) -> tuple[int, int] | None:
        """``(seq, eventTsMs)`` of the oldest kept signal."""
        row = self._session.execute(
            select(live_signals.c.seq, live_signals.c.event_ts_ms)
            .where(live_signals.c.run_id == run_id)
            .order_by(live_signals.c.seq)
            .limit(1)
        ).first()
        return (int(row[0]), int(row[1])) if row is not None else None

    def page(
        self,
        run_id: str,
        *,
        after_seq: int | None,
        since_ms: int | None,
        types: Sequence[str] | None,
        stages: Sequence[str] | None,
        symbols: Sequence[str] | None = None,
        limit: int,
    ) -> list[LiveSignal]:
        """``symbols`` are exact (``BTC/USDT``) or one-sided wildcards (``*/USDT``); a signal
        without an instrument symbol matches only when no symbol filter is given."""
        query = select(live_signals).where(live_signals.c.run_id == run_id)
        if symbols:
            clauses: list[Any] = []
            for symbol in symbols:
                base, _, quote = symbol.partition("/")
                if base == "*":
                    clauses.append(live_signals.c.symbol.like(f"%/{quote}"))
                elif quote == "*":
                    clauses.append(live_signals.c.symbol.like(f"{base}/%"))
                else:
                    clauses.append(live_signals.c.symbol == symbol)
            query = query.where(or_(*clauses))
        if after_seq is not None:
            query = query.where(live_signals.c.seq > after_seq)
        elif since_ms is not None:
            query = query.where(live_signals.c.event_ts_ms >= since_ms)
        if types:
            query = query.where(live_signals.c.type.in_(list(types)))
        if stages:
            query = query.where(live_signals.c.stage.in_(list(stages)))
        rows = self._session.execute(query.order_by(live_signals.c.seq).limit(limit)).mappings()
        return [_signal(row) for row in rows]

    def newer(self, positions: Mapping[str, int], limit: int) -> list[LiveSignal]:
        """Signals after each run's position, oldest first (what the channel poller pushes)."""
        if not positions:
            return []
        clause = or_(
            *(
                and_(live_signals.c.run_id == run_id, live_signals.c.seq > seq)
                for run_id, seq in positions.items()
            )
        )
        rows = self._session.execute(
            select(live_signals)
            .where(clause)
            .order_by(live_signals.c.run_id, live_signals.c.seq)
            .limit(limit)
        ).mappings()
        return [_signal(row) for row in rows]

    def last_seqs(self, run_ids: Sequence[str]) -> dict[str, int]:
        if not run_ids:
            return {}
        rows = self._session.execute(
            select(live_signals.c.run_id, func.max(live_signals.c.seq))
            .where(live_signals.c.run_id.in_(list(run_ids)))
            .group_by(live_signals.c.run_id)
        )
        return {str(r[0]): int(r[1]) for r in rows}

    def trim(self, run_id: str, keep: int, oldest_ms: int) -> int:
        """Drop the run's signals beyond the newest ``keep`` or older than ``oldest_ms``."""
        last = self.last(run_id)
        if last is None:
            return 0
        result = self._session.execute(
            delete(live_signals).where(
                live_signals.c.run_id == run_id,
                or_(live_signals.c.seq <= last.seq - keep, live_signals.c.event_ts_ms < oldest_ms),
                live_signals.c.seq < last.seq,
            )
        )
        return int(getattr(result, "rowcount", 0) or 0)

    def trim_total(self, cap: int) -> int:
        """Drop the oldest signals of all runs beyond ``cap`` (each run keeps its newest)."""
        total = self.total()
        if total <= cap:
            return 0
        cut = self._session.execute(
            select(live_signals.c.event_ts_ms)
            .order_by(live_signals.c.event_ts_ms)
            .offset(total - cap)
            .limit(1)
        ).scalar()
        if cut is None:
            return 0
        result = self._session.execute(delete(live_signals).where(live_signals.c.event_ts_ms < cut))
        return int(getattr(result, "rowcount", 0) or 0)

    def total(self) -> int:
        return int(
            self._session.execute(select(func.count()).select_from(live_signals)).scalar_one()
        )
