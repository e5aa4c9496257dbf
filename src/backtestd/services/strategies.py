"""Strategy registration, reading, deletion and validation.

Compilation happens on the engine host before any database write, so a failed compile leaves
nothing behind. Registration and the usage ledger change in one unit of work, which also checks
the tier's ``maxTotalStorageBytes`` (over it: 413 and nothing registered). Compiles are capped
globally and per user, and validations run from a queue served round-robin across users
(``fair_queue.py``), so one user cannot starve the others (docs/limits.md). Validation is
queued after the commit that marks it pending (so the worker always finds the row), and pending
validations are re-queued at start-up. Deleting a strategy deletes the signals its executions
stored, which revokes their signed links.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from backtestd.domain.accounts import Principal
from backtestd.domain.quotas import storage_overflow
from backtestd.domain.strategies import Notice, StrategyRecord, Validation
from backtestd.errors import InvalidInput, LimitExceeded, NotFound, StorageQuotaExceeded
from backtestd.services.fair_queue import FairQueue
from backtestd.services.validation import DryRunner
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.repositories.strategies import StrategyRepository
from backtestd.storage.db.repositories.sweep_curves import SweepCurveRepository
from backtestd.storage.db.repositories.sweeps import SweepRowRepository
from backtestd.storage.db.repositories.usage import UsageRepository
from backtestd.storage.objects.keys import signals_key
from backtestd.storage.objects.store import ObjectStore
from backtestd.strategy.compile import CompileFailed, compile_strategy
from backtestd.strategy.ids import derive_strategy_id
from backtestd.strategy.jvm import EngineHostError, EnginePool, RunFailure

log = logging.getLogger(__name__)


def _usage_id(strategy_id: str) -> str:
    return f"strategy:{strategy_id}"


class StrategyService:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        objects: ObjectStore,
        pool: EnginePool,
        runner: DryRunner,
        queue: FairQueue,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._settings = settings
        self._database = database
        self._objects = objects
        self._pool = pool
        self._runner = runner
        self._queue_of_validations = queue
        self._max_compiles = settings.max_compiles_in_flight
        self._max_compiles_per_user = settings.max_compiles_per_user
        self._compiles_lock = threading.Lock()
        self._compiles_in_flight: dict[str, int] = {}
        self._clock = clock

    # -- registration -------------------------------------------------------------------

    def register(self, principal: Principal, body: bytes) -> tuple[StrategyRecord, tuple[str, ...]]:
        """Compile and register; returns the record and compile warnings (QTScript)."""
        source = _decode(body)
        self._take_compile_slot(principal.user_id)
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
            self._release_compile_slot(principal.user_id)
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
                repo.resubmitted(
                    live.strategy_id, source, compiled.class_files, compiled.line_map, now
                )
                record = replace(
                    live,
                    source=source,
                    class_files=compiled.class_files,
                    line_map=compiled.line_map,
                    compiled_at=now,
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
                    line_map=compiled.line_map,
                )
                if not repo.add(record):  # lost a race with an identical submission
                    raced = repo.active_of(principal.user_id, record.strategy_id)
                    if raced is None:
                        raise LimitExceeded("a concurrent change to this strategy; retry")
                    record = raced
            usage.lock_user(principal.user_id)
            usage.record(
                _usage_id(record.strategy_id),
                principal.user_id,
                "strategy",
                record.stored_bytes,
                now,
            )
            self._check_storage(principal, usage, record.stored_bytes)
        return record, compiled.warnings

    def _check_storage(self, principal: Principal, usage: UsageRepository, adding: int) -> None:
        """Raise (rolling the registration back) when the pool is over the tier's cap."""
        cap = self._settings.tiers[principal.tier].max_total_storage_bytes
        problem = storage_overflow(
            usage.usage_of(principal.user_id), cap, principal.tier, adding, "this strategy"
        )
        if problem:
            raise StorageQuotaExceeded(problem)

    def _take_compile_slot(self, user_id: str) -> None:
        """Global cap first (the documented 429), then the per-user fair share."""
        with self._compiles_lock:
            total = sum(self._compiles_in_flight.values())
            if total >= self._max_compiles:
                raise LimitExceeded(
                    f"too many compilations in flight (limit {self._max_compiles}); retry shortly",
                    retry_after=2,
                )
            mine = self._compiles_in_flight.get(user_id, 0)
            if mine >= self._max_compiles_per_user:
                raise LimitExceeded(
                    f"you already have {mine} compilations in flight (limit "
                    f"{self._max_compiles_per_user} per user, so other users keep a share); "
                    "wait for one to finish",
                    retry_after=2,
                )
            self._compiles_in_flight[user_id] = mine + 1

    def _release_compile_slot(self, user_id: str) -> None:
        with self._compiles_lock:
            left = self._compiles_in_flight.get(user_id, 1) - 1
            if left > 0:
                self._compiles_in_flight[user_id] = left
            else:
                self._compiles_in_flight.pop(user_id, None)

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
            usage = UsageRepository(uow.session)
            usage.lock_user(principal.user_id)
            usage.release(_usage_id(strategy_id), now)
            jobs = JobRepository(uow.session).executes_storing_signals(
                principal.user_id, strategy_id
            )
            for job_id in jobs:
                usage.release(f"signals:{job_id}", now)
            keys = [signals_key(principal.user_id, job_id) for job_id in jobs]
            uow.after_commit(lambda: self._delete_objects(keys))
            # Its sweeps' stored curves go too; their rows (metrics, params) stay readable.
            rows = SweepRowRepository(uow.session)
            ledger = SweepCurveRepository(uow.session)
            for sweep_id in JobRepository(uow.session).sweeps_of(principal.user_id, strategy_id):
                rows.drop_all_curves(sweep_id)
                ledger.forget(sweep_id)

    def _delete_objects(self, keys: Sequence[str]) -> None:
        for key in keys:
            self._objects.delete(key)

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
            uow.after_commit(lambda: self._queue(principal.user_id, strategy_id))
        return replace(record, validation=Validation.PENDING), True

    def resume_pending(self) -> int:
        """Re-queue validations left pending by a previous process."""
        with self._database.unit_of_work() as uow:
            pending = StrategyRepository(uow.session).pending()
        for record in pending:
            self._queue(record.user_id, record.strategy_id)
        return len(pending)

    def _queue(self, user_id: str, strategy_id: str) -> None:
        self._queue_of_validations.submit(user_id, lambda: self._run_validation(strategy_id))

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
    if "\x00" in source:
        # Stored sources are given back as sent, and PostgreSQL cannot store NUL at all.
        line = source.count("\n", 0, source.index("\x00")) + 1
        raise InvalidInput(
            f"the strategy source holds the NUL character (U+0000) on line {line}; remove it "
            "(to put NUL in a Java string, write the escape \\u0000 instead)"
        )
    return source
