"""Sweep use cases: submit (validate, expand, limit, shard), read, sensitivity, curves, cancel.

A sweep is a job row of kind ``sweep`` whose id is a digest of the canonical request, and its
work is a set of ``sweep_shard`` job rows (ids ``<sweepId>.<n>``) that the executor runs like
any other job, so restart recovery, cancellation and retries are the job machinery's. Rows are
stored per trial; every view (leaderboard, sensitivity, PBO) is computed from stored rows.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property

import numpy as np

from backtestd.domain.accounts import Principal
from backtestd.domain.backtests import BaseConfig, RunLimit
from backtestd.domain.canonical import canonical_json
from backtestd.domain.equity import EquityCurveMeta
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus
from backtestd.domain.marketdata import RUNNABLE_TYPES
from backtestd.domain.serial import to_stored
from backtestd.domain.sweep_results import Leaderboard, SweepAccepted
from backtestd.domain.sweeps import (
    MAX_SAFE_SEED,
    AxisRequest,
    CurveMode,
    CurvePrefs,
    Objective,
    Sampler,
    SweepAxis,
    SweepRow,
    SweepShardSpec,
    SweepSpec,
    SweepStatus,
    SweepWorkerLimit,
    WalkForward,
    sweep_status,
)
from backtestd.engine.equity_curve import transform
from backtestd.errors import InvalidInput, NotFound
from backtestd.jobs import sweep_curve_cache
from backtestd.services.admission import NewJob
from backtestd.services.backtests import BacktestService
from backtestd.services.job_views import not_found_hint
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.jobs import JobRepository
from backtestd.storage.db.repositories.strategies import StrategyRepository
from backtestd.storage.db.repositories.sweep_curves import SweepCurveRepository
from backtestd.storage.db.repositories.sweeps import SweepJobRepository, SweepRowRepository
from backtestd.sweeps.axes import resolve_axes
from backtestd.sweeps.plan import grid_size, retained_count
from backtestd.sweeps.ranking import selected_curves
from backtestd.sweeps.statistics import SweepStatistics, TrialMoments

MIN_SHARD_VECTORS = 8
DEFAULT_IN_SAMPLE_PCT = 66


@dataclass(frozen=True)
class SweepRequest:
    """The request as parsed at the edge (wire model → domain values)."""

    strategy_id: str
    axes: Mapping[str, AxisRequest]
    sampler: Sampler
    seed: int | None
    samples: int | None
    objective: Objective
    base_config: BaseConfig
    store_signals: bool
    shards: int
    min_trade_floor: int
    walk_forward: tuple[int, int] | None
    curves: CurvePrefs


@dataclass(frozen=True)
class SweepView:
    """A sweep and everything stored about it, for the read endpoints.

    ``rows`` carry no curve (see ``SweepRowRepository.rows``); ``curve_ixs`` says which rows
    hold one and ``curve_metas`` is the pointer ``meta`` of each served one (read with
    ``with_curve_metas``); ``reclaimed_curves`` the rows whose stored curve was reclaimed
    (``jobs/sweep_curve_cache.py``). ``memo`` is what the process keeps of the sweep between reads.
    """

    job: JobRecord
    spec: SweepSpec
    shards: list[JobRecord]
    rows: list[SweepRow]
    total_runs: int
    curve_ixs: frozenset[int] = frozenset()
    curve_metas: dict[int, EquityCurveMeta] = field(default_factory=dict)
    reclaimed_curves: frozenset[int] = frozenset()
    memo: SweepMemo = field(default_factory=lambda: SweepMemo())

    @cached_property
    def served_curves(self) -> set[int]:
        """Trials whose curve is served: the best ``retained_count`` by the submitted
        objective among the rows that still hold a curve (ranked once per view: a view is one
        read's snapshot)."""
        keep = retained_count(self.spec, self.total_runs)
        return selected_curves(self.rows, self.curve_ixs, self.spec.objective, keep)


ResultKey = tuple[int, str, frozenset[int], str, str, str, int]
"""What a result body is built from: row count, sweep status, the rows whose curve is served,
objective, order, ranking and leaderboard limit."""


@dataclass
class SweepMemo:
    """What this process keeps of one sweep between reads of it.

    A stored row never changes (it is written once, keyed by ``runIx``; only its curve can be
    attached after it or dropped, and reads do not load curves), and a stored curve never
    changes either. So a read decodes only the rows stored since the previous read, a served
    curve's pointer ``meta`` and each row's DSR moments are computed once, and what is derived
    from all the rows is kept per row count: DSR while the sweep runs, DSR and PBO once it is
    finished (a trial in flight when a sweep was cancelled may still land, hence the count), and
    the result body but its status, progress and state.
    """

    rows: dict[int, SweepRow] = field(default_factory=dict)
    curve_metas: dict[int, EquityCurveMeta] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)
    statistics: dict[tuple[int, bool], SweepStatistics | None] = field(default_factory=dict)
    moments: dict[int, TrialMoments] = field(default_factory=dict)  # of each row's returns
    results: dict[ResultKey, Leaderboard] = field(default_factory=dict)


MEMO_SWEEPS = 32
"""Sweeps whose memo a process keeps (least recently read dropped first)."""


class SweepService:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        backtests: BacktestService,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._settings = settings
        self._database = database
        self._backtests = backtests
        self._clock = clock
        self._memos: OrderedDict[str, SweepMemo] = OrderedDict()
        self._memo_lock = threading.Lock()

    # -- submit -------------------------------------------------------------------------

    def submit(
        self,
        principal: Principal,
        exchange_id: str,
        data_type: str,
        request_id: str,
        request: SweepRequest,
    ) -> SweepAccepted:
        if data_type not in RUNNABLE_TYPES:
            raise InvalidInput(
                f"type {data_type!r} cannot be swept; runnable types are ticker and kline",
                reason="TYPE_NOT_RUNNABLE",
            )
        prepare = self._backtests.prepare_state(principal, exchange_id, data_type, request_id)
        if prepare.status is not JobStatus.COMPLETED:
            raise InvalidInput(
                f"prepare job {request_id} is {prepare.status.value}, not Completed; poll it "
                "until it completes before sweeping"
            )
        with self._database.unit_of_work() as uow:
            strategy = StrategyRepository(uow.session).active_of(
                principal.user_id, request.strategy_id
            )
        if strategy is None:
            raise NotFound(f"no strategy {request.strategy_id!r}; see GET /v1/strategies")
        axes = resolve_axes(request.axes, strategy.declared_properties)
        sampler = request.sampler
        vectors = self._vector_count(principal, sampler, axes, request.samples)
        walk = self._walk_forward(request.walk_forward, vectors)
        total_backtests = walk.folds * (vectors + 1) if walk else vectors
        if total_backtests > self._settings.sweep_budget:
            raise InvalidInput(
                f"this sweep would run {total_backtests} backtests, above the server's sweep "
                f"budget of {self._settings.sweep_budget} (BACKTESTD_SWEEP_BUDGET); use fewer "
                "axis points, fewer samples or fewer folds",
                reason="SWEEP_BUDGET",
            )
        self._check_curves(request.curves)
        base = sweep_base_config(request.base_config)
        sweep_id = sweep_id_for(principal.user_id, request_id, request, sampler, axes, base)
        seed = request.seed if request.seed is not None else secrets.randbelow(MAX_SAFE_SEED)
        limits = self._settings.tiers[principal.tier]
        spec = SweepSpec(
            prepare_job_id=request_id,
            strategy_id=strategy.strategy_id,
            axes=axes,
            sampler=sampler,
            seed=seed if sampler is not Sampler.GRID else (request.seed or 0),
            samples=request.samples if sampler is not Sampler.GRID else None,
            objective=request.objective,
            base_config=base,
            min_trade_floor=request.min_trade_floor,
            shards=self._shard_count(request.shards, vectors, walk),
            walk_forward=walk,
            curves=request.curves,
            store_signals=request.store_signals,
            run_limit=RunLimit(principal.tier, limits.max_run_seconds),
            worker_limit=SweepWorkerLimit(principal.tier, limits.max_sweep_worker_seconds),
        )
        return self._insert(principal, exchange_id, data_type, sweep_id, spec, vectors)

    def _vector_count(
        self,
        principal: Principal,
        sampler: Sampler,
        axes: tuple[SweepAxis, ...],
        samples: int | None,
    ) -> int:
        if sampler is Sampler.GRID:
            size = grid_size([(a.name, a.values) for a in axes])
            limit = self._settings.tiers[principal.tier].max_sweep_cartesian
            if size > limit:
                raise InvalidInput(
                    f"the full grid has {size} combinations, above maxSweepCartesian = {limit} "
                    f"on the {principal.tier} tier; use sampler 'random' or 'lhs' with "
                    "'samples' to run a subset",
                    reason="GRID_TOO_LARGE",
                )
            return size
        if samples is None or samples < 1:
            raise InvalidInput(
                f"sampler {sampler.value!r} needs 'samples' (a positive number of vectors)"
            )
        # The tier's vector bound holds whatever the sampler: 'random' with a million samples
        # once got past it (issue 26).
        limit = self._settings.tiers[principal.tier].max_sweep_cartesian
        if samples > limit:
            raise InvalidInput(
                f"'samples' is {samples}, above maxSweepCartesian = {limit} on the "
                f"{principal.tier} tier (the most vectors one sweep may run, whatever its "
                "sampler); ask for fewer samples",
                reason="TOO_MANY_SAMPLES",
            )
        return samples

    def _walk_forward(self, request: tuple[int, int] | None, vectors: int) -> WalkForward | None:
        if request is None:
            return None
        folds, pct = request
        limit = self._settings.sweep_max_folds
        if not 2 <= folds <= limit:
            raise InvalidInput(
                f"walkForward.folds must be between 2 and {limit} "
                f"(BACKTESTD_SWEEP_MAX_FOLDS), got {folds}"
            )
        if not 1 <= pct <= 99:
            raise InvalidInput(f"walkForward.inSamplePct must be between 1 and 99, got {pct}")
        return WalkForward(folds, pct)

    def _check_curves(self, prefs: CurvePrefs) -> None:
        if prefs.mode is CurveMode.TOP_N and (prefs.n is None or prefs.n < 1):
            raise InvalidInput("equityCurve.mode 'topN' needs 'n' (a positive trial count)")
        if prefs.mode is CurveMode.TOP_PCT and (
            prefs.max_pct is None or not 0 < prefs.max_pct <= 100
        ):
            raise InvalidInput("equityCurve.mode 'topPct' needs 'maxPct' in (0, 100]")
        if prefs.resample is not None and prefs.resample < 2:
            raise InvalidInput(f"equityCurve.resample {prefs.resample} must be at least 2")

    def _shard_count(self, asked: int, vectors: int, walk: WalkForward | None) -> int:
        if walk is not None:
            return walk.folds
        if asked < 0:
            raise InvalidInput(f"shards must be 0 (automatic) or positive, got {asked}")
        if asked == 0:
            workers = self._settings.dask_workers or (os.cpu_count() or 1)
            asked = max(1, min(workers, vectors // MIN_SHARD_VECTORS))
        return max(1, min(asked, vectors, self._settings.sweep_max_shards))

    def _insert(
        self,
        principal: Principal,
        exchange_id: str,
        data_type: str,
        sweep_id: str,
        spec: SweepSpec,
        vectors: int,
    ) -> SweepAccepted:
        sweep = NewJob(sweep_id, JobKind.SWEEP, exchange_id, data_type, spec, vectors, runs=False)
        shards = [
            NewJob(f"{sweep_id}.{n}", JobKind.SWEEP_SHARD, exchange_id, data_type, shard)
            for n, shard in enumerate(shard_specs(sweep_id, spec, vectors))
        ]
        with self._database.unit_of_work() as uow:
            admitted = self._backtests.admission.admit(uow, principal, sweep, shards)
            if not admitted.created:
                existing = JobRepository(uow.session).get(sweep_id)
                if existing is not None:
                    spec = existing.spec_as(SweepSpec)
        return SweepAccepted(
            sweep_id,
            spec.prepare_job_id,
            vectors,
            spec.shards,
            spec.seed,
            admitted.created,
            spec.walk_forward,
        )

    # -- read ---------------------------------------------------------------------------

    def view(
        self,
        principal: Principal,
        exchange_id: str,
        data_type: str,
        request_id: str,
        sweep_id: str,
        with_curve_metas: bool = False,
    ) -> SweepView:
        """A sweep's stored state (rows with their daily returns, for DSR and PBO);
        ``with_curve_metas`` adds the pointer meta of each served curve (the result's rows)."""
        with self._database.unit_of_work() as uow:
            repo = JobRepository(uow.session)
            job = repo.get(sweep_id)
            if (
                job is None
                or job.kind is not JobKind.SWEEP
                or job.user_id != principal.user_id
                or job.exchange_id != exchange_id
                or job.data_type != data_type
                or not isinstance(job.spec, SweepSpec)
                or job.spec.prepare_job_id != request_id
            ):
                raise NotFound(
                    f"no sweep {sweep_id!r} of request {request_id!r} on /{exchange_id}/{data_type}"
                    + not_found_hint(job, principal.user_id)
                )
            shards = repo.shards_of(sweep_id)
            spec = job.spec_as(SweepSpec)
            sweep_rows = SweepRowRepository(uow.session)
            memo = self._memo(sweep_id)
            with memo.lock:
                rows = self._rows(sweep_rows, memo, sweep_id, spec.walk_forward is not None)
                curve_ixs = frozenset(sweep_rows.curve_ixs(sweep_id))
                reclaimed = SweepCurveRepository(uow.session).reclaimed(sweep_id)
                view = SweepView(
                    job,
                    spec,
                    shards,
                    rows,
                    job.size,
                    curve_ixs,
                    memo=memo,
                    reclaimed_curves=reclaimed,
                )
                if with_curve_metas:
                    view.curve_metas.update(self._pointer_metas(sweep_rows, view))
        if with_curve_metas and curve_ixs:
            sweep_curve_cache.read(self._database, sweep_id, self._clock())
        return view

    def _memo(self, sweep_id: str) -> SweepMemo:
        with self._memo_lock:
            memo = self._memos.get(sweep_id)
            if memo is None:
                memo = self._memos[sweep_id] = SweepMemo()
            self._memos.move_to_end(sweep_id)
            while len(self._memos) > MEMO_SWEEPS:
                self._memos.popitem(last=False)
            return memo

    def _rows(
        self, sweep_rows: SweepRowRepository, memo: SweepMemo, sweep_id: str, folds: bool
    ) -> list[SweepRow]:
        """Every stored row by ``runIx``: those read before from the memo, the new ones from
        the database (one small index read says which ``runIx`` are stored)."""
        stored = sweep_rows.run_ixs(sweep_id)
        known = memo.rows
        if not known.keys() <= stored:  # rows never disappear; if they did, forget the memo
            known.clear()
            memo.moments.clear()
        missing = stored - known.keys()
        if missing:
            fresh = sweep_rows.rows(
                sweep_id,
                with_returns=True,
                with_folds=folds,
                run_ixs=missing if len(missing) < len(stored) else None,
            )
            known.update((row.run_ix, row) for row in fresh)
        return [known[ix] for ix in sorted(stored)]

    def _pointer_metas(
        self, sweep_rows: SweepRowRepository, view: SweepView
    ) -> dict[int, EquityCurveMeta]:
        """The meta of every served curve: cached ones as they are, the rest decoded once."""
        prefs = view.spec.curves
        sweep_id = view.job.job_id
        metas: dict[int, EquityCurveMeta] = {}
        missing = []
        for run_ix in sorted(view.served_curves):
            meta = view.memo.curve_metas.get(run_ix)
            if meta is None:
                missing.append(run_ix)
            else:
                metas[run_ix] = meta
        for run_ix, curve in sweep_rows.curves(sweep_id, missing).items():
            _, _, meta = transform(
                np.asarray(curve.ts, dtype=np.int64),
                np.asarray(curve.eq, dtype=np.float64),
                resample_to=prefs.resample,
                delta=prefs.differential,
                out_mode=prefs.out_mode,
            )
            metas[run_ix] = view.memo.curve_metas[run_ix] = curve.served_meta(meta)
        return metas

    def curve_row(self, view: SweepView, run_ix: int) -> SweepRow | None:
        with self._database.unit_of_work() as uow:
            row = SweepRowRepository(uow.session).get(view.job.job_id, run_ix)
        if row is not None and row.curve is not None:
            sweep_curve_cache.read(self._database, view.job.job_id, self._clock())
        return row

    # -- cancel / recovery --------------------------------------------------------------

    def cancel(
        self, principal: Principal, exchange_id: str, data_type: str, request_id: str, sweep_id: str
    ) -> SweepStatus | None:
        """``None`` when cancelling was requested; for a sweep that had already finished, its
        status, and nothing changes (a completed sweep stays COMPLETED: docs/api-decisions.md,
        "Cancelling a finished job")."""
        view = self.view(principal, exchange_id, data_type, request_id, sweep_id)  # 404 if not
        if view.job.status.terminal:
            return sweep_status(view.job, view.shards)
        with self._database.unit_of_work() as uow:
            SweepJobRepository(uow.session).cancel(sweep_id, self._clock())
        return None

    def finish_orphans(self) -> int:
        """Close the sweeps whose shards all ended while no process was there to close them
        (the one closing rule, ``SweepJobRepository.close_if_done``); how many were closed."""
        with self._database.unit_of_work() as uow:
            return SweepJobRepository(uow.session).close_orphans(self._clock())


def shard_specs(sweep_id: str, spec: SweepSpec, vectors: int) -> list[SweepShardSpec]:
    if spec.walk_forward is not None:
        return [SweepShardSpec(sweep_id, fold=f) for f in range(spec.walk_forward.folds)]
    bounds = [k * vectors // spec.shards for k in range(spec.shards + 1)]
    return [
        SweepShardSpec(sweep_id, start=lo, stop=hi)
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
    ]


def sweep_id_for(
    user_id: str,
    request_id: str,
    request: SweepRequest,
    sampler: Sampler,
    axes: tuple[SweepAxis, ...],
    base: BaseConfig,
) -> str:
    """Digest of the canonical request: defaults filled, numbers normalised, transforms out.

    The seed counts only for samplers that use it, and an omitted seed digests as omitted (the
    server-drawn seed is stored with the sweep and returned for the identical resubmission).
    """
    canonical: dict[str, object] = {
        "user": user_id,
        "request_id": request_id,
        "strategy_id": request.strategy_id,
        "axes": to_stored(axes, tuple[SweepAxis, ...]),
        "sampler": sampler.value,
        "objective": request.objective.value,
        "base_config": to_stored(base),
        "store_signals": request.store_signals,
        "shards": request.shards,
        "min_trade_floor": request.min_trade_floor,
        "curve_retention": [request.curves.mode.value, request.curves.n, request.curves.max_pct],
    }
    if sampler is not Sampler.GRID:
        canonical["samples"] = request.samples
        if request.seed is not None:
            canonical["seed"] = request.seed
    if request.walk_forward is not None:
        canonical["walk_forward"] = list(request.walk_forward)
    digest = hashlib.blake2b(canonical_json(canonical).encode("utf-8"), digest_size=8)
    return "swp_" + digest.hexdigest()


def sweep_base_config(base: BaseConfig) -> BaseConfig:
    """The sweep's portfolio settings, checked: every default is already filled (so omission
    equals the default); unlike execute, sweeps take split fee rates and any fee leg."""
    try:
        base.check()
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
    return base
