"""Start, read, list, change and stop live runs (``spec/live-execution.md`` §3.1–3.7).

The record is the truth every replica answers from; the executor on the workers
(``jobs/live``) reads what is wanted (``desired``, params, commands) from it and writes what
happens (``state``, ``stage``, ``gate``, ``stats``, signals). Lookups by run id answer 404 for a
run that is not the caller's, on purpose identical to one that does not exist.
"""

from __future__ import annotations

import secrets
import string
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from backtestd.domain.accounts import Principal
from backtestd.domain.live import (
    RUN_ID_LENGTH,
    LiveDesired,
    LiveGate,
    LiveRunRecord,
    LiveStage,
    LiveStart,
    LiveState,
    Visibility,
)
from backtestd.domain.marketdata import DataType
from backtestd.domain.strategies import StrategyRecord
from backtestd.errors import Conflict, InvalidInput, NotFound
from backtestd.services.live.plans import check_start
from backtestd.services.run_params import canonical_params, undeclared_params
from backtestd.services.validation import SOURCE_FEEDS
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.live import LiveRunRepository
from backtestd.storage.db.repositories.strategies import StrategyRepository
from backtestd.strategy.requirements import listens_to_its_execution

_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
BLOCK_MS = 15 * 60 * 1000
MAX_PAGE = 100


class LiveSegments(Protocol):
    """Which segments of an exchange have a live feed here (``GET /exchanges`` lists them)."""

    def live_segments(self, exchange: str) -> list[str]: ...


MarketNow = Callable[[], int]
"""Market time now, in epoch milliseconds (faster than the wall clock only in tests/demos)."""


def wall_ms() -> int:
    return int(time.time() * 1000)


def new_run_id() -> str:
    return "".join(secrets.choice(_BASE62) for _ in range(RUN_ID_LENGTH))


def new_stream_secret() -> str:
    return secrets.token_urlsafe(32)  # 43 characters (§7.23)


def compilation_of(record: StrategyRecord) -> str:
    """A registration's compilation: registering the strategy again starts a new one."""
    return f"{record.strategy_id}@{int(record.compiled_at.timestamp() * 1000)}"


def strategy_type(record: StrategyRecord) -> DataType:
    """The feed a strategy consumes (ticker or kline); a strategy without a declared source
    consumes tickers, as its validation run does."""
    sources = record.required_sources or ("Ticker",)
    return SOURCE_FEEDS.get(sources[0], DataType.TICKER)


@dataclass(frozen=True)
class StartedRun:
    record: LiveRunRecord
    stream_url: str | None


class LiveRunService:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        segments: LiveSegments,
        market_now: MarketNow,
        wall_now: Callable[[], int],
    ) -> None:
        self._settings = settings
        self._database = database
        self._segments = segments
        self.market_now = market_now
        self.wall_now = wall_now
        self._wall_now = wall_now

    # -- start ---------------------------------------------------------------------------------

    def start(self, principal: Principal, strategy_id: str, start: LiveStart) -> StartedRun:
        start = self._checked_source(start)
        limits = self._settings.tiers[principal.tier]
        with self._database.unit_of_work() as uow:
            strategy = StrategyRepository(uow.session).active_of(principal.user_id, strategy_id)
            if strategy is None:
                raise NotFound(
                    f"no registered strategy {strategy_id!r}; register it with POST /v1/strategy "
                    "and start the strategyId it returns"
                )
            wanted = strategy_type(strategy)
            if start.source.type is not wanted:
                raise InvalidInput(
                    f"sources[0].type is {start.source.type.value} but strategy {strategy_id} "
                    f"consumes {wanted.value} data; start it with type {wanted.value!r}",
                    reason="TYPE_MISMATCH",
                )
            if start.paper is None and listens_to_its_execution(strategy.class_files):
                raise InvalidInput(
                    f"strategy {strategy_id} overrides getExecutionCallback(): it listens to its "
                    "own execution, and paper trading is its only execution venue here; start "
                    'it with a paper block ("paper": {} suffices)',
                    reason="PAPER_REQUIRED",
                )
            bad = undeclared_params(start.params, strategy.declared_properties, strategy_id)
            if bad is not None:
                raise InvalidInput(bad, reason="UNDECLARED_PARAM")
            params = canonical_params(start.params, strategy.declared_properties)
            runs = LiveRunRepository(uow.session)
            current = runs.last_for_strategy(principal.user_id, strategy_id)
            if current is not None and current.active:
                raise Conflict(
                    f"strategy {strategy_id} already has a live run ({current.run_id}, state "
                    f"{current.state.value}); stop it first with DELETE "
                    f"/v1/strategy/{strategy_id}/live",
                    reason="LIVE_RUN_ACTIVE",
                )
            check_start(
                principal.tier,
                limits,
                start,
                runs.count_active(principal.user_id),
                runs.count_active(),
                self._settings.live_max_runs,
                self._settings.upgrade_url,
            )
            record = self._new_record(principal, strategy, start, params, runs)
            runs.add(record)
        return StartedRun(record, self.stream_url(record))

    def _checked_source(self, start: LiveStart) -> LiveStart:
        source = start.source
        if source.venue_type == "dex":
            raise InvalidInput(
                f"there is no live feed for dex sources here ({source.exchange}/"
                f"{source.segment}); live segments: {self._available()}",
                reason="NO_LIVE_FEED",
            )
        if source.venue_type != "cex":
            raise InvalidInput(
                f"sources[0].venueType {source.venue_type!r} is not cex or dex",
                reason="INVALID_SOURCE",
            )
        if source.segment not in self._segments.live_segments(source.exchange):
            raise InvalidInput(
                f"{source.exchange}/{source.segment} has no live feed here; live segments: "
                f"{self._available()} (GET /v1/exchanges lists them as liveSegments)",
                reason="NO_LIVE_FEED",
            )
        if start.stream and not self._settings.live_streams_enabled:
            raise InvalidInput("stream is not available", reason="STREAM_UNAVAILABLE")
        return start

    def _available(self) -> str:
        names = []
        for exchange in ("sim", "binance"):
            names += [f"cex {exchange}/{s}" for s in self._segments.live_segments(exchange)]
        return ", ".join(names) or "none"

    def _new_record(
        self,
        principal: Principal,
        strategy: StrategyRecord,
        start: LiveStart,
        params: Mapping[str, object],
        runs: LiveRunRepository,
    ) -> LiveRunRecord:
        limits = self._settings.tiers[principal.tier]
        compilation = compilation_of(strategy)
        inherited = None if start.sandbox else runs.inherited_gate(principal.user_id, compilation)
        now = self._wall_now()
        market = self.market_now()
        warm_from = start.warm_from
        if warm_from is None:
            warm_from = (market % BLOCK_MS) // 1000
        stream = start.stream
        return LiveRunRecord(
            run_id=new_run_id(),
            user_id=principal.user_id,
            strategy_id=strategy.strategy_id,
            compilation=compilation,
            visibility=start.visibility,
            stage=LiveStage.LIVE if inherited else LiveStage.SANDBOX,
            state=LiveState.STARTING,
            desired=LiveDesired.RUNNING,
            source=start.source,
            params=params,
            params_version=0,
            relay=start.relay or stream,
            stream=stream,
            warm_from=warm_from,
            created_at_ms=now,
            started_at_ms=now,
            updated_at_ms=now,
            sandbox_minutes=None
            if inherited
            else (start.sandbox_minutes or limits.min_sandbox_minutes),
            name=start.name,
            description=start.description,
            gate=LiveGate(passed=True, inherited_from=inherited) if inherited else None,
            stream_secret=new_stream_secret() if stream else None,
            paper=start.paper,
        )

    # -- read ----------------------------------------------------------------------------------

    def last_for_strategy(self, principal: Principal, strategy_id: str) -> LiveRunRecord:
        with self._database.unit_of_work() as uow:
            record = LiveRunRepository(uow.session).last_for_strategy(
                principal.user_id, strategy_id
            )
        if record is None:
            raise NotFound(
                f"no live run was ever started for strategy {strategy_id!r}; start one with "
                f"POST /v1/strategy/{strategy_id}/live"
            )
        return record

    def own(self, principal: Principal, run_id: str) -> LiveRunRecord:
        with self._database.unit_of_work() as uow:
            record = LiveRunRepository(uow.session).get(run_id)
        if record is None or record.user_id != principal.user_id:
            raise _no_run(run_id)
        return record

    def readable(self, user_id: str | None, run_id: str) -> LiveRunRecord:
        """The run if ``user_id`` may read its signals (§5.2), else 404."""
        with self._database.unit_of_work() as uow:
            record = LiveRunRepository(uow.session).get(run_id)
        if record is None or not record.readable_by(user_id):
            raise _no_run(run_id)
        return record

    def list_own(
        self, principal: Principal, cursor: str | None, limit: int
    ) -> tuple[list[LiveRunRecord], str | None]:
        return self._list(principal.user_id, cursor, limit)

    def list_public(self, cursor: str | None, limit: int) -> tuple[list[LiveRunRecord], str | None]:
        return self._list(None, cursor, limit)

    def _list(
        self, user_id: str | None, cursor: str | None, limit: int
    ) -> tuple[list[LiveRunRecord], str | None]:
        """A page and the cursor of the next one (the last item's runId, §2.3)."""
        size = max(1, min(limit, MAX_PAGE))
        with self._database.unit_of_work() as uow:
            runs = LiveRunRepository(uow.session)
            after = None
            if cursor is not None:
                after = runs.get(cursor)
                if after is None or (user_id is not None and after.user_id != user_id):
                    raise InvalidInput(
                        f"cursor {cursor!r} is not a position in this list; use the cursor of "
                        "_links.next from the previous page, or none for the first page",
                        reason="INVALID_CURSOR",
                    )
            page = (
                runs.list_of(user_id, after, size + 1)
                if user_id is not None
                else runs.list_public(after, size + 1)
            )
        more = len(page) > size
        page = page[:size]
        return page, (page[-1].run_id if more and page else None)

    # -- change --------------------------------------------------------------------------------

    def update(
        self,
        principal: Principal,
        run_id: str,
        visibility: Visibility | None,
        name: str | None,
        description: str | None,
    ) -> LiveRunRecord:
        limits = self._settings.tiers[principal.tier]
        if visibility is Visibility.PUBLIC and not limits.live_public:
            raise InvalidInput(
                f"the {principal.tier} plan does not publish live runs; keep it private",
                reason="PLAN_PUBLIC",
            )
        with self._database.unit_of_work() as uow:
            runs = LiveRunRepository(uow.session)
            record = runs.get(run_id, for_update=True)
            if record is None or record.user_id != principal.user_id:
                raise _no_run(run_id)
            values: dict[str, object] = {}
            if visibility is not None and visibility is not record.visibility:
                values["visibility"] = visibility.value
            if name is not None and name != record.name:
                values["name"] = name
            if description is not None and description != record.description:
                values["description"] = description
            if values:
                values["updated_at_ms"] = self._next_update(record)
                runs.set_values(run_id, values)
                record = runs.get(run_id) or record
        return record

    def stop(self, principal: Principal, strategy_id: str) -> LiveRunRecord:
        """``desired`` becomes ``STOPPED`` at once (idempotent); an executor holding the run
        winds it down, and a run nobody executes is ``STOPPED`` right away."""
        with self._database.unit_of_work() as uow:
            runs = LiveRunRepository(uow.session)
            last = runs.last_for_strategy(principal.user_id, strategy_id)
            if last is None:
                raise NotFound(
                    f"no live run was ever started for strategy {strategy_id!r}; nothing to stop"
                )
            record = runs.get(last.run_id, for_update=True) or last
            if record.desired is LiveDesired.STOPPED:
                return record
            owner, until = runs.lease_of(record.run_id)
            held = owner is not None and until is not None and until >= self._wall_now()
            values: dict[str, object] = {
                "desired": LiveDesired.STOPPED.value,
                "updated_at_ms": self._next_update(record),
            }
            if not held and record.state is not LiveState.FAILED:
                values["state"] = LiveState.STOPPED.value
            runs.set_values(record.run_id, values)
            return runs.get(record.run_id) or record

    def _next_update(self, record: LiveRunRecord) -> int:
        """``updatedAtMs`` never goes backwards, even when two replicas' clocks differ."""
        return max(self._wall_now(), record.updated_at_ms + 1)

    # -- streams -------------------------------------------------------------------------------

    def stream_url(self, record: LiveRunRecord) -> str | None:
        """The stream URL while it may be used (§3.2): started with ``stream``, wanted
        running, not revoked."""
        if (
            not record.stream
            or record.stream_secret is None
            or record.stream_revoked
            or record.desired is not LiveDesired.RUNNING
        ):
            return None
        base = self._settings.resolved_public_base_url
        ws = (
            "wss://" + base.removeprefix("https://")
            if base.startswith("https://")
            else ("ws://" + base.removeprefix("http://"))
        )
        return f"{ws}/stream/{record.stream_secret}"

    def runs_by_ids(self, run_ids: Sequence[str]) -> dict[str, LiveRunRecord]:
        with self._database.unit_of_work() as uow:
            runs = LiveRunRepository(uow.session)
            found = {run_id: runs.get(run_id) for run_id in run_ids}
        return {k: v for k, v in found.items() if v is not None}


def _no_run(run_id: str) -> NotFound:
    return NotFound(f"no live run {run_id!r} of yours; GET /v1/live lists your runs")
