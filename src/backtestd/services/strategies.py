"""Strategy registration, reading, deletion and validation.

Compilation happens on the engine host before any database write, so a failed compile leaves
nothing behind. Registration and the usage ledger change in one unit of work. Validation is
queued after the commit that marks it pending (so the worker always finds the row), runs on a
small executor, and pending validations are re-queued at start-up.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from dataclasses import replace
from datetime import UTC, datetime

from backtestd.domain.accounts import Principal
from backtestd.domain.strategies import Notice, StrategyRecord, Validation
from backtestd.errors import InvalidInput, LimitExceeded, NotFound, StorageFull
from backtestd.services.validation import DryRunner
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.strategies import StrategyRepository
from backtestd.storage.db.repositories.usage import UsageRepository
from backtestd.strategy.compile import CompileFailed, compile_strategy
from backtestd.strategy.ids import derive_strategy_id
from backtestd.strategy.jvm import EngineHostError, EnginePool, RunFailure

log = logging.getLogger(__name__)


def _usage_id(strategy_id: str) -> str:
    return f"strategy:{strategy_id}"


class StrategyService:
    def __init__(
        self,
        database: Database,
        pool: EnginePool,
        runner: DryRunner,
        executor: Executor,
        max_compiles_in_flight: int,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        storage_caps: Mapping[str, int] | None = None,
    ) -> None:
        self._storage_caps = storage_caps or {}
        self._database = database
        self._pool = pool
        self._runner = runner
        self._executor = executor
        self._max_compiles = max_compiles_in_flight
        self._compiles = threading.BoundedSemaphore(max_compiles_in_flight)
        self._clock = clock

    # -- registration -------------------------------------------------------------------

    def register(self, principal: Principal, body: bytes) -> tuple[StrategyRecord, tuple[str, ...]]:
        """Compile and register; returns the record and compile warnings (QTScript)."""
        source = _decode(body)
        if not self._compiles.acquire(blocking=False):
            raise LimitExceeded(
                f"too many compilations in flight (limit {self._max_compiles}); retry shortly"
            )
        try:
            compiled = compile_strategy(self._pool, source)
        except CompileFailed as exc:
            raise InvalidInput(
                f"{exc.language.value} source did not compile; nothing was registered:\n"
                + "\n".join(exc.diagnostics)
            ) from exc
        except (RunFailure, EngineHostError) as exc:
            raise InvalidInput(f"the strategy could not be compiled: {exc}") from exc
        finally:
            self._compiles.release()
        now = self._clock()
        with self._database.unit_of_work() as uow:
            repo = StrategyRepository(uow.session)
            usage = UsageRepository(uow.session)
            generation = repo.registrations_of_digest(principal.user_id, compiled.content_digest)
            live_id = (
                derive_strategy_id(
                    principal.user_id, compiled.language, compiled.content_digest, generation - 1
                )
                if generation
                else None
            )
            live = repo.active_of(principal.user_id, live_id) if live_id else None
            if live is not None:
                repo.resubmitted(live.strategy_id, source, compiled.class_files, None, now)
                record = replace(
                    live, source=source, class_files=compiled.class_files, compiled_at=now
                )
            else:
                record = StrategyRecord(
                    strategy_id=derive_strategy_id(
                        principal.user_id, compiled.language, compiled.content_digest, generation
                    ),
                    user_id=principal.user_id,
                    language=compiled.language.value,
                    content_digest=compiled.content_digest,
                    generation=generation,
                    source=source,
                    main_class=compiled.main_class,
                    class_files=compiled.class_files,
                    declared_properties=compiled.declared_properties,
                    required_sources=compiled.required_sources,
                    compiled_at=now,
                )
                if not repo.add(record):  # lost a race with an identical submission
                    raced = repo.active_of(principal.user_id, record.strategy_id)
                    if raced is None:
                        raise LimitExceeded("a concurrent change to this strategy; retry")
                    record = raced
            usage.record(
                _usage_id(record.strategy_id),
                principal.user_id,
                "strategy",
                record.stored_bytes,
                now,
            )
            self._check_storage(principal, usage)  # over the cap: the unit of work rolls back
        return record, compiled.warnings

    def _check_storage(self, principal: Principal, usage: UsageRepository) -> None:
        cap = self._storage_caps.get(principal.tier)
        if cap is None:
            return
        used = usage.usage_of(principal.user_id).storage_bytes_used
        if used > cap:
            raise StorageFull(
                f"registering this strategy would use {used} bytes of storage, above "
                f"maxTotalStorageBytes = {cap} on the {principal.tier} tier; delete strategies "
                "or datasets you no longer need (GET /v1/account/usage shows the pool)"
            )

    # -- reading ------------------------------------------------------------------------

    def get(self, principal: Principal, strategy_id: str) -> StrategyRecord:
        with self._database.unit_of_work() as uow:
            record = StrategyRepository(uow.session).active_of(principal.user_id, strategy_id)
        if record is None:
            raise NotFound(f"no strategy {strategy_id!r}; see GET /v1/strategies")
        return record

    def list(self, principal: Principal, include_deleted: bool) -> list[StrategyRecord]:
        with self._database.unit_of_work() as uow:
            return StrategyRepository(uow.session).list_of(principal.user_id, include_deleted)

    def delete(self, principal: Principal, strategy_id: str) -> None:
        now = self._clock()
        with self._database.unit_of_work() as uow:
            repo = StrategyRepository(uow.session)
            if repo.active_of(principal.user_id, strategy_id) is None:
                raise NotFound(f"no strategy {strategy_id!r}; see GET /v1/strategies")
            repo.mark_deleted(strategy_id, now)
            UsageRepository(uow.session).release(_usage_id(strategy_id), now)

    # -- validation ---------------------------------------------------------------------

    def validate(self, principal: Principal, strategy_id: str) -> tuple[StrategyRecord, bool]:
        """Return the state and whether this call queued the check (202) or not (200)."""
        with self._database.unit_of_work() as uow:
            repo = StrategyRepository(uow.session)
            record = repo.active_of(principal.user_id, strategy_id)
            if record is None:
                raise NotFound(f"no strategy {strategy_id!r}; see GET /v1/strategies")
            if record.validation is not Validation.NOT_VALIDATED:
                return record, False
            repo.set_validation(strategy_id, Validation.PENDING, None)
            uow.after_commit(lambda: self._queue(strategy_id))
        return replace(record, validation=Validation.PENDING), True

    def resume_pending(self) -> int:
        """Re-queue validations left pending by a previous process."""
        with self._database.unit_of_work() as uow:
            pending = StrategyRepository(uow.session).pending()
        for record in pending:
            self._queue(record.strategy_id)
        return len(pending)

    def _queue(self, strategy_id: str) -> None:
        self._executor.submit(self._run_validation, strategy_id)

    def _run_validation(self, strategy_id: str) -> None:
        with self._database.unit_of_work() as uow:
            record = StrategyRepository(uow.session).get(strategy_id)
        if record is None or record.validation is not Validation.PENDING:
            return
        try:
            verdict = self._runner.validate(record)
            validation, notices, detail = verdict.validation, verdict.notices, verdict.detail
        except Exception as exc:  # the verdict must always land, never stay pending forever
            log.exception("validation of %s crashed", strategy_id)
            validation, detail = Validation.FAILED, f"validation could not run: {exc}"
            notices = (Notice("ERROR", "dry-run.internal", detail, "compile-dry-run"),)
        with self._database.unit_of_work() as uow:
            StrategyRepository(uow.session).set_validation(
                strategy_id, validation, self._clock(), notices, detail
            )


def _decode(body: bytes) -> str:
    try:
        source = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"the strategy source is not valid UTF-8 (byte {exc.start}); send it as UTF-8 text"
        ) from exc
    if not source.strip():
        raise InvalidInput("the request body is empty: send the strategy source as text/plain")
    return source
