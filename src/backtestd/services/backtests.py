"""Backtest use cases: prepare and execute jobs, their state, cancellation and limits.

Job ids are digests of the canonical request (defaults removed, numbers normalised) and the
owner, so an identical request returns the same id and queues nothing. Submission to the
executor happens only after the job row is committed (``after_commit``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from backtestd.domain.accounts import Principal
from backtestd.domain.backtests import (
    BaseConfig,
    EquityCurveOptions,
    ExecuteSpec,
    ParamValue,
    PrepareSpec,
    RunLimit,
    StorageLimit,
)
from backtestd.domain.canonical import content_id
from backtestd.domain.datasets import USER_EXCHANGE
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus
from backtestd.domain.marketdata import RUNNABLE_TYPES, DataType, Instrument
from backtestd.domain.serial import to_stored
from backtestd.engine.cadence import resolve_cadence, source_width
from backtestd.engine.prepare import parse_range_bound
from backtestd.errors import (
    InvalidInput,
    LimitExceeded,
    NotFound,
    PlanRequired,
    StorageQuotaExceeded,
)
from backtestd.jobs.executors.base import JobExecutor
from backtestd.marketdata.catalogue import Catalogue
from backtestd.services.admission import Admission, NewJob
from backtestd.services.dataset_prepare import DatasetPrepare, dataset_prepare_spec
from backtestd.services.job_views import not_found_hint
from backtestd.services.run_params import canonical_params, undeclared_params
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database, UnitOfWork
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.repositories.strategies import StrategyRepository
from backtestd.storage.db.repositories.usage import UsageRepository


@dataclass(frozen=True)
class PrepareInput:
    from_: str
    to: str
    instrument: str | None
    cadence: str | None
    dataset_id: str | None = None
    dataset_version_id: str | None = None


@dataclass(frozen=True)
class ExecuteInput:
    prepare_job_id: str
    strategy_id: str
    store_signals: bool
    equity_curve: EquityCurveOptions | None
    base_config: BaseConfig | None
    params: Mapping[str, ParamValue] | None


class BacktestService:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        catalogue: Catalogue,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._settings = settings
        self._database = database
        self._catalogue = catalogue
        self._clock = clock
        self.executor: JobExecutor | None = None
        self.admission = Admission(settings, self.require_executor, clock)

    # -- prepare ------------------------------------------------------------------------

    def prepare(
        self, principal: Principal, exchange_id: str, data_type: str, request: PrepareInput
    ) -> tuple[str, str]:
        """Queue a prepare; returns its job id and the cadence in effect."""
        self._check_path(exchange_id, data_type)
        if exchange_id == USER_EXCHANGE:
            spec = dataset_prepare_spec(
                self._settings,
                self._database,
                principal,
                data_type,
                DatasetPrepare(
                    request.dataset_id,
                    request.dataset_version_id,
                    request.from_,
                    request.to,
                    request.cadence,
                ),
                self._check_range_days,
            )
            return self._submit_prepare(principal, spec), spec.cadence
        if not request.instrument:
            raise InvalidInput("'instrument' is required for a managed exchange, e.g. BTC/USDT")
        instrument = self._instrument(exchange_id, request.instrument)
        start, end = self._range(exchange_id, request.from_, request.to)
        self._check_range_days(principal, start, end)
        cadence, cadence_ms = self._cadence(
            principal, data_type, request.cadence, exchange_id, instrument
        )
        spec = PrepareSpec(
            exchange_id, DataType(data_type), instrument, start, end, cadence, cadence_ms
        )
        return self._submit_prepare(principal, spec), cadence

    def _submit_prepare(self, principal: Principal, spec: PrepareSpec) -> str:
        job_id = content_id("prepare", principal.user_id, to_stored(spec))
        return self._submit(
            principal, NewJob(job_id, JobKind.PREPARE, spec.exchange, spec.data_type, spec)
        )

    def prepare_state(
        self, principal: Principal, exchange_id: str, data_type: str, job_id: str
    ) -> JobRecord:
        return self._owned(principal, exchange_id, data_type, job_id, JobKind.PREPARE)

    # -- execute ------------------------------------------------------------------------

    def execute(
        self, principal: Principal, exchange_id: str, data_type: str, request: ExecuteInput
    ) -> str:
        self._check_path(exchange_id, data_type)
        if data_type not in RUNNABLE_TYPES:
            raise InvalidInput(
                f"type {data_type!r} cannot be executed; runnable types are ticker and kline",
                reason="TYPE_NOT_RUNNABLE",
            )
        base = request.base_config or BaseConfig()
        equity = request.equity_curve or EquityCurveOptions()
        try:
            base.check()
            base.check_single_fee()
            equity.check()
        except ValueError as exc:
            raise InvalidInput(str(exc)) from exc
        params = dict(request.params or {})
        prepare = self._owned(
            principal, exchange_id, data_type, request.prepare_job_id, JobKind.PREPARE
        )
        if prepare.status is not JobStatus.COMPLETED:
            raise InvalidInput(
                f"prepare job {prepare.job_id} is {prepare.status.value}, not Completed; poll it "
                "until it completes before executing",
                reason="PREPARE_NOT_COMPLETED",
                retryable=not prepare.status.terminal,
                next_call={
                    "method": "GET",
                    "path": f"/backtest/{exchange_id}/{data_type}/prepare/{prepare.job_id}",
                },
            )
        with self._database.unit_of_work() as uow:
            strategy = StrategyRepository(uow.session).active_of(
                principal.user_id, request.strategy_id
            )
        if strategy is None:
            raise NotFound(f"no strategy {request.strategy_id!r}; see GET /v1/strategies")
        failure = undeclared_params(params, strategy.declared_properties, strategy.strategy_id)
        params = canonical_params(params, strategy.declared_properties)
        spec = ExecuteSpec(
            prepare_job_id=prepare.job_id,
            strategy_id=strategy.strategy_id,
            store_signals=request.store_signals,
            equity_curve=equity,
            base_config=base,
            params=params,
        )
        job_id = content_id("execute", principal.user_id, spec.identity())
        limits = self._settings.tiers[principal.tier]
        spec = replace(spec, run_limit=RunLimit(principal.tier, limits.max_run_seconds))
        if request.store_signals:
            # Not part of the id: the storage cap in force now travels to the worker.
            cap = self._settings.tiers[principal.tier].max_total_storage_bytes
            spec = replace(spec, storage_limit=StorageLimit(principal.tier, cap))
        return self._submit(
            principal,
            NewJob(job_id, JobKind.EXECUTE, exchange_id, data_type, spec, failed=failure),
        )

    def execute_state(
        self, principal: Principal, exchange_id: str, data_type: str, job_id: str
    ) -> JobRecord:
        return self._owned(principal, exchange_id, data_type, job_id, JobKind.EXECUTE)

    def cancel_execute(
        self, principal: Principal, exchange_id: str, data_type: str, job_id: str
    ) -> JobStatus | None:
        """``None`` when cancelling was requested, else the status the job had already
        finished with (nothing is changed then: docs/api-decisions.md, "Cancelling a finished
        job")."""
        return self._cancel(principal, exchange_id, data_type, job_id, JobKind.EXECUTE)

    def cancel_prepare(
        self, principal: Principal, exchange_id: str, data_type: str, job_id: str
    ) -> JobStatus | None:
        """Additive (docs/api-decisions.md): a prepare reads hour after hour and stops at the
        next hour once asked; one nobody started is aborted at once. Returns as
        ``cancel_execute`` does."""
        return self._cancel(principal, exchange_id, data_type, job_id, JobKind.PREPARE)

    def _cancel(
        self, principal: Principal, exchange_id: str, data_type: str, job_id: str, kind: JobKind
    ) -> JobStatus | None:
        job = self._owned(principal, exchange_id, data_type, job_id, kind)
        if job.status.terminal:
            return job.status
        with self._database.unit_of_work() as uow:
            JobRepository(uow.session).request_cancel(job_id, self._clock())
        return None

    # -- recovery -----------------------------------------------------------------------

    def resume_unfinished(self) -> int:
        """Resubmit every job left New or Started by a previous process (oldest first, each
        user's jobs interleaved with the others' as on submission).

        A sweep row is not work of its own: its shards are resubmitted, and the last one to end
        finishes the sweep.
        """
        with self._database.unit_of_work() as uow:
            unfinished = JobRepository(uow.session).unfinished()
        runnable = [job for job in unfinished if job.kind is not JobKind.SWEEP]
        self.admission.requeue(runnable)
        return len(runnable)

    def recover_lost(self, min_age: timedelta) -> int:
        """Resubmit active jobs the executor no longer holds, older than ``min_age``.

        A replica killed between committing a job and handing it to the scheduler leaves a row
        no task will ever run; any replica finds it here (the age keeps a job another replica
        is submitting right now out of it). Resubmitting is safe: jobs are idempotent and
        terminal states final.
        """
        executor = self.require_executor()
        held = executor.queued_job_ids()
        if held is None:
            return 0
        cutoff = self._clock() - min_age
        with self._database.unit_of_work() as uow:
            unfinished = JobRepository(uow.session).unfinished()
        lost = [
            job
            for job in unfinished
            if job.kind is not JobKind.SWEEP and job.created_at < cutoff and job.job_id not in held
        ]
        self.admission.requeue(lost)
        return len(lost)

    # -- helpers ------------------------------------------------------------------------

    def _submit(self, principal: Principal, job: NewJob) -> str:
        spec = job.spec
        limit = spec.storage_limit if isinstance(spec, ExecuteSpec) else None

        def check_storage(uow: UnitOfWork) -> None:
            if limit is not None:
                usage = UsageRepository(uow.session)
                self._check_storage_room(usage, principal, limit.max_total_storage_bytes)

        with self._database.unit_of_work() as uow:
            return self.admission.admit(uow, principal, job, check=check_storage).job_id

    def _check_range_days(self, principal: Principal, start: datetime, end: datetime) -> None:
        """``maxRangeDays`` bounds every backtest range, managed exchanges included.

        The description scopes it to the caller's own datasets; we also apply it to managed
        prepares so the published number means what a user reads (docs/limits.md).
        """
        limit = self._settings.tiers[principal.tier].max_range_days
        if end - start > timedelta(days=limit):
            days = (end - start) / timedelta(days=1)
            raise InvalidInput(
                f"the range from {start:%Y-%m-%dT%H:%M:%SZ} to {end:%Y-%m-%dT%H:%M:%SZ} is "
                f"{days:g} days, over the {principal.tier} tier's maxRangeDays of {limit}; "
                f"prepare at most {limit} days at a time (see GET /v1/account)"
            )

    @staticmethod
    def _check_storage_room(usage: UsageRepository, principal: Principal, cap: int) -> None:
        """A new execute storing signals is refused (413) while the pool is already full."""
        used = usage.usage_of(principal.user_id).storage_bytes_used
        if used >= cap:
            raise StorageQuotaExceeded(
                f"storage limit reached: {used:,} of the {principal.tier} tier's "
                f"maxTotalStorageBytes of {cap:,} bytes are used, so no signals can be stored; "
                "execute without storeSignals, or delete strategies you no longer need (their "
                "stored signals go with them)"
            )

    def require_executor(self) -> JobExecutor:
        if self.executor is None:
            raise LimitExceeded("this process runs no job executor; start it with 'serve'")
        return self.executor

    def _check_path(self, exchange_id: str, data_type: str) -> None:
        if data_type not in {t.value for t in DataType}:
            types = ", ".join(DataType)
            raise NotFound(f"no data type {data_type!r}; types are {types}")
        if exchange_id != USER_EXCHANGE and not self._catalogue.exchange_exists(exchange_id):
            raise NotFound(f"no exchange {exchange_id!r}; see GET /v1/exchanges")

    def _instrument(self, exchange_id: str, text: str) -> str:
        base, sep, quote = text.partition("/")
        if not sep:
            raise InvalidInput(f"instrument {text!r} must look like BASE/QUOTE, e.g. BTC/USDT")
        return self._catalogue.resolve(exchange_id, base, quote).symbol

    def _cadence(
        self,
        principal: Principal,
        data_type: str,
        asked: str | None,
        exchange_id: str,
        instrument: str,
    ) -> tuple[str, int]:
        """The cadence in effect: the source's rules first, then the tier's plan."""
        limits = self._settings.tiers[principal.tier]
        native = self._native_ms(exchange_id, instrument)
        label = asked if asked is not None else limits.default_cadence
        try:
            cadence, cadence_ms = resolve_cadence(data_type, label, native)
        except ValueError as exc:
            if asked is None:  # a tier default the source cannot serve: the source's default
                return resolve_cadence(data_type, None, native)
            raise InvalidInput(str(exc), reason="INVALID_CADENCE") from exc
        if limits.cadences is not None and cadence not in limits.cadences:
            raise PlanRequired(
                f"cadence {cadence!r} is not included in the {principal.tier} tier; it offers "
                f"{', '.join(limits.cadences) or 'no cadence'}",
                upgrade_url=self._settings.upgrade_url,
            )
        return cadence, cadence_ms

    def _native_ms(self, exchange_id: str, instrument: str) -> int | None:
        """Width of the instrument's source kline bars (their least common multiple when
        intervals are mixed, see ``source_width``), if known."""
        labels = self._catalogue.native_interval(exchange_id, Instrument.parse(instrument))
        if not labels:
            return None
        return source_width(labels.split(","))

    def _range(self, exchange_id: str, from_text: str, to_text: str) -> tuple[datetime, datetime]:
        start = _bound("from", from_text)
        end = _bound("to", to_text)
        now = self._clock()
        if end <= start:
            raise InvalidInput(f"'to' ({to_text}) must be after 'from' ({from_text})")
        if end > now:
            raise InvalidInput(
                f"'to' ({to_text}) is in the future; the latest allowed is now",
                reason="RANGE_IN_FUTURE",
            )
        oldest = now - timedelta(days=self._settings.prepare_lookback_days)
        # The lookback bounds on-demand generation only: stored (ingested) history of any age
        # can be prepared.
        if start < oldest and self._catalogue.generates(exchange_id):
            raise InvalidInput(
                f"'from' ({from_text}) is older than the lookback window of "
                f"{self._settings.prepare_lookback_days} days for generated data (earliest "
                f"{oldest:%Y-%m-%d}); BACKTESTD_PREPARE_LOOKBACK_DAYS sets the window",
                reason="OUTSIDE_WINDOW",
            )
        return start, end

    def _owned(
        self, principal: Principal, exchange_id: str, data_type: str, job_id: str, kind: JobKind
    ) -> JobRecord:
        with self._database.unit_of_work() as uow:
            job = JobRepository(uow.session).get(job_id)
        if (
            job is None
            or job.user_id != principal.user_id
            or job.kind is not kind
            or job.exchange_id != exchange_id
            or job.data_type != data_type
        ):
            raise NotFound(
                f"no {kind.value} job {job_id!r} on /{exchange_id}/{data_type}"
                + not_found_hint(job, principal.user_id)
            )
        return job


def _bound(name: str, text: str) -> datetime:
    try:
        return parse_range_bound(text)
    except ValueError as exc:
        raise InvalidInput(f"'{name}': {exc}") from exc
