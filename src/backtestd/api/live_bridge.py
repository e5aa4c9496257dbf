"""Connects the live channel of this API replica to the run records: who may subscribe, the
``live.params`` RPC, stream URL secrets, and the signal bus.

The signal bus is the database: a run's signals are recorded by whichever worker executes it,
and each replica polls the record of the runs its sockets watch (every
``live_poll_seconds``) and hands what is new to its hub. One path for every deployment (one
process or many replicas, SQLite or PostgreSQL), and a replica started later needs nothing
but the database. Every second it also re-reads those runs' records: a run turned private
evicts non-owners, a stream URL rotated, revoked or stopped closes its connections.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

from anyio import to_thread

from backtestd.api.errors import status_for
from backtestd.api.live_channel.hub import ChannelHub
from backtestd.api.live_channel.ports import LiveParamsRpcError
from backtestd.api.live_wire import params_result_wire, signal_wire
from backtestd.domain.live import LiveRunRecord
from backtestd.errors import BacktestdError
from backtestd.services.live.control import LiveControl
from backtestd.services.live.runs import LiveRunService
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.live import LiveSignalRepository

log = logging.getLogger(__name__)

BATCH = 500
RECHECK_S = 1.0


class RunAccess:
    """``ChannelAccess`` and ``StreamAccess`` over the run records."""

    def __init__(self, runs: LiveRunService, control: LiveControl) -> None:
        self._runs = runs
        self._control = control

    async def can_subscribe(self, user_id: str, run_id: str) -> bool:
        record = await to_thread.run_sync(self._record, run_id)
        return record is not None and record.readable_by(user_id)

    async def is_owner(self, user_id: str, run_id: str) -> bool:
        record = await to_thread.run_sync(self._record, run_id)
        return record is not None and record.user_id == user_id

    async def resolve(self, secret: str) -> str | None:
        record = await to_thread.run_sync(self._control.stream_run, secret)
        return record.run_id if record is not None else None

    def _record(self, run_id: str) -> LiveRunRecord | None:
        return self._runs.runs_by_ids([run_id]).get(run_id)


class ParamsRpc:
    """``live.params``: the very validation and result of ``PUT /live/{runId}/params``."""

    def __init__(self, control: LiveControl) -> None:
        self._control = control

    async def update_params(self, user_id: str, data: dict[str, object]) -> dict[str, object]:
        run_id = data.get("runId")
        params = data.get("params")
        if not isinstance(run_id, str) or not run_id:
            raise LiveParamsRpcError(400, "runId is missing; send {runId, params}")
        if not isinstance(params, dict):
            raise LiveParamsRpcError(400, "params must be an object of declared properties")
        try:
            result = await to_thread.run_sync(self._control.update_params, user_id, run_id, params)
        except BacktestdError as error:
            # The REST route's status for the same refusal (400, 404, 409), else 409.
            status = status_for(error)
            raise LiveParamsRpcError(
                status if status in (400, 404) else 409, error.message
            ) from None
        return params_result_wire(result).model_dump()


class SignalBridge:
    """Feeds the hub with the recorded signals of the runs this replica's sockets watch."""

    def __init__(
        self, database: Database, runs: LiveRunService, hub: ChannelHub, poll_s: float
    ) -> None:
        self._database = database
        self._runs = runs
        self._hub = hub
        self._poll_s = poll_s
        self._positions: dict[str, int] = {}
        self._records: dict[str, LiveRunRecord] = {}
        self._last_check = 0.0
        self._secrets: dict[str, str | None] = {}
        self._task: asyncio.Task[None] | None = None
        self._subscriptions_changed = asyncio.Event()
        self._unlisten: Callable[[], None] | None = None

    def start(self) -> None:
        self._unlisten = self._hub.add_subscriptions_listener(
            lambda runs: self._subscriptions_changed.set()
        )
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def _loop(self) -> None:
        """Polls every ``poll_s`` while this replica's sockets watch a run; while none does, it
        waits for the hub to report a first subscriber instead (it woke 20 times a second for
        nothing: 7 % of a sweeping server's Python time under py-spy). The flag is cleared
        before a poll, so a subscription that arrives during one wakes the next wait at once."""
        while True:
            self._subscriptions_changed.clear()
            try:
                await self.poll_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("live signal poll failed; retrying", exc_info=True)
                await asyncio.sleep(self._poll_s)
                continue
            if self._positions:
                await asyncio.sleep(self._poll_s)
            else:
                await self._subscriptions_changed.wait()

    async def poll_once(self) -> None:
        watched = self._hub.subscribed_runs()
        for run_id in list(self._positions):
            if run_id not in watched:
                del self._positions[run_id]
                self._records.pop(run_id, None)
        new = [r for r in watched if r not in self._positions]
        loop = asyncio.get_running_loop()
        if new:
            # Nothing is replayed on subscribe: a new watcher starts at the newest signal.
            last = await to_thread.run_sync(self._last_seqs, new)
            for run_id in new:
                self._positions[run_id] = last.get(run_id, 0)
        if not self._positions:
            return
        if new or loop.time() - self._last_check >= RECHECK_S:
            self._last_check = loop.time()
            self._records = await to_thread.run_sync(self._runs.runs_by_ids, list(self._positions))
            self._recheck()
        signals = await to_thread.run_sync(self._newer, dict(self._positions))
        for signal in signals:
            if signal.run_id not in self._positions:
                continue
            self._positions[signal.run_id] = max(self._positions[signal.run_id], signal.seq)
            record = self._records.get(signal.run_id)
            if record is None or not record.relay:
                continue
            self._hub.publish(
                signal.run_id, signal_wire(signal.body), sandbox=signal.stage == "sandbox"
            )

    def _recheck(self) -> None:
        for run_id, record in self._records.items():
            if not record.publicly_readable:
                self._hub.evict_non_owners(run_id, record.user_id)
            secret = record.stream_secret if self._runs.stream_url(record) else None
            if record.stream and secret != self._secrets.get(run_id, secret):
                self._hub.close_stream(run_id)  # rotated, revoked or stopped
            self._secrets[run_id] = secret

    def _last_seqs(self, run_ids: list[str]) -> Mapping[str, int]:
        with self._database.unit_of_work() as uow:
            return LiveSignalRepository(uow.session).last_seqs(run_ids)

    def _newer(self, positions: dict[str, int]) -> list[Any]:
        with self._database.unit_of_work() as uow:
            return LiveSignalRepository(uow.session).newer(positions, BATCH)
