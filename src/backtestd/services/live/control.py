"""What an owner changes in a running run: parameters, commands, its stream URL (§3.8, §3.9,
§3.14, §3.15).

Parameters and commands take effect at ``effectiveAtMs``, a market time a few seconds ahead
(§7.15), so that every execution of the run (two in the sandbox) applies them before the same
update. Both wait in the database for the executor; a command row is deleted once delivered,
so nothing of it stays on the run (a restarted execution never sees it).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from backtestd.domain.accounts import Principal
from backtestd.domain.live import LiveCommand, LiveDesired, LiveRunRecord, LiveState, ParamsChange
from backtestd.errors import Conflict, InvalidInput, NotFound, PlanRequired, ServiceUnavailable
from backtestd.services.live.runs import LiveRunService, new_stream_secret
from backtestd.services.run_params import canonical_params, undeclared_params
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.live import LiveRunRepository
from backtestd.storage.db.repositories.strategies import StrategyRepository

EFFECTIVE_MARGIN_MS = 5_000
COMMAND_CAP_BYTES = 2048


@dataclass(frozen=True)
class ParamsUpdated:
    run_id: str
    params_version: int
    effective_at_ms: int


@dataclass(frozen=True)
class CommandAccepted:
    run_id: str
    command_id: str
    effective_at_ms: int


class LiveControl:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        runs: LiveRunService,
        handles_commands: Callable[[str], bool | None],
        wall_now: Callable[[], int],
    ) -> None:
        self._settings = settings
        self._database = database
        self._runs = runs
        self._handles_commands = handles_commands
        self._wall_now = wall_now

    def update_params(self, user_id: str, run_id: str, params: Mapping[str, Any]) -> ParamsUpdated:
        """One validation for REST and the channel's ``live.params`` RPC (§3.8)."""
        if not params:
            raise InvalidInput(
                "params is empty; send at least one declared property, e.g. "
                '{"params": {"fast": 12}}',
                reason="INVALID_PARAMS",
            )
        with self._database.unit_of_work() as uow:
            runs = LiveRunRepository(uow.session)
            record = runs.get(run_id, for_update=True)
            if record is None or record.user_id != user_id:
                raise NotFound(f"no live run {run_id!r} of yours; GET /v1/live lists your runs")
            strategy = StrategyRepository(uow.session).get(record.strategy_id)
            if strategy is None:
                raise Conflict(
                    "this run's compilation has no record of its declared properties; register "
                    "the strategy again and start a new run",
                    reason="NO_DECLARED_PROPERTIES",
                )
            bad = undeclared_params(params, strategy.declared_properties, record.strategy_id)
            if bad is not None:
                raise InvalidInput(bad, reason="UNDECLARED_PARAM")
            typed = canonical_params(params, strategy.declared_properties)
            _require_running(record)
            version = record.params_version + 1
            effective = self._runs.market_now() + EFFECTIVE_MARGIN_MS
            runs.add_params_change(ParamsChange(run_id, version, typed, effective))
            runs.set_values(
                run_id,
                {
                    "params": {**record.params, **typed},
                    "params_version": version,
                    "updated_at_ms": max(self._wall_now(), record.updated_at_ms + 1),
                },
            )
        return ParamsUpdated(run_id, version, effective)

    def send_command(
        self, principal: Principal, run_id: str, command: str, properties: Mapping[str, Any]
    ) -> CommandAccepted:
        if not command.strip():
            raise InvalidInput("command is blank; send the command text", reason="INVALID_COMMAND")
        record = self._runs.own(principal, run_id)
        _require_running(record)
        handles = self._handles_commands(record.strategy_id)
        if handles is None:
            raise Conflict(
                "this run's compilation has no record of whether it handles commands; register "
                "the strategy again and start a new run",
                reason="COMMANDS_UNKNOWN",
            )
        if not handles:
            raise Conflict(
                f"strategy {record.strategy_id} does not implement CommandRequestHandler (Java) "
                "or an onCommand block (QTScript), so it cannot receive commands",
                reason="COMMANDS_NOT_HANDLED",
            )
        with self._database.unit_of_work() as uow:
            runs = LiveRunRepository(uow.session)
            owner, until = runs.lease_of(run_id)
            if owner is None or until is None or until < self._wall_now():
                raise ServiceUnavailable(
                    "the run's executor is not reachable right now (it is starting or being "
                    "moved); the command was not sent, send it again in a few seconds",
                    reason="COMMAND_NOT_DELIVERABLE",
                )
            accepted = CommandAccepted(
                run_id, str(uuid.uuid4()), self._runs.market_now() + EFFECTIVE_MARGIN_MS
            )
            runs.add_command(
                LiveCommand(
                    run_id,
                    accepted.command_id,
                    command,
                    {k: _text(v) for k, v in properties.items()},
                    accepted.effective_at_ms,
                )
            )
        return accepted

    def rotate_stream(self, principal: Principal, run_id: str) -> str:
        limits = self._settings.tiers[principal.tier]
        record = self._runs.own(principal, run_id)
        if not limits.live_stream:
            raise PlanRequired(
                f"the {principal.tier} plan may not broadcast: stream URLs are not part of it",
                self._settings.upgrade_url,
                reason="PLAN_STREAM",
            )
        if not record.stream or record.stream_revoked or not record.running:
            raise Conflict(
                "the run has no stream URL to rotate: it is not running, was not started with "
                "stream: true, or its stream was revoked",
                reason="NO_STREAM",
            )
        with self._database.unit_of_work() as uow:
            LiveRunRepository(uow.session).set_values(
                run_id, {"stream_secret": new_stream_secret()}
            )
        url = self._runs.stream_url(self._runs.own(principal, run_id))
        assert url is not None
        return url

    def revoke_stream(self, principal: Principal, run_id: str) -> None:
        record = self._runs.own(principal, run_id)
        if not record.stream:
            raise Conflict(
                "the run was never started with stream: true; there is no stream URL to revoke",
                reason="NO_STREAM",
            )
        with self._database.unit_of_work() as uow:
            LiveRunRepository(uow.session).set_values(
                run_id, {"stream_revoked": True, "stream_secret": None}
            )

    def stream_run(self, secret: str) -> LiveRunRecord | None:
        """The run a stream URL serves, while it is valid (§5.4)."""
        with self._database.unit_of_work() as uow:
            run_id = LiveRunRepository(uow.session).run_of_stream(secret)
        if run_id is None:
            return None
        records = self._runs.runs_by_ids([run_id])
        record = records.get(run_id)
        if record is None or self._runs.stream_url(record) is None:
            return None
        return record


def _require_running(record: LiveRunRecord) -> None:
    if record.desired is not LiveDesired.RUNNING or record.state in (
        LiveState.FAILED,
        LiveState.STOPPED,
    ):
        raise Conflict(
            f"the run is not running (desired {record.desired.value}, state "
            f"{record.state.value}); start a new run",
            reason="RUN_NOT_RUNNING",
        )


def _text(value: Any) -> str:
    """Command properties reach the strategy as text (``CommandRequest.get``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, dict | list) else str(value)
