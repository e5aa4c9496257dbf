"""The read views of a sweep, computed from its stored rows: result, progress, sensitivity, curve.

Everything here is derived from the rows stored when the sweep is read, so a running sweep's
views cover the rows finished so far. What is costly and depends only on the rows (DSR, PBO, the
result body but its status, progress and state) is kept in the sweep's memo (``SweepMemo``) per
row count, so it is computed once per row batch, not once per poll, and never goes stale.
"""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np

from backtestd.domain.backtests import BaseConfig
from backtestd.domain.equity import EquityCurveMeta, OutMode, ShapedCurve
from backtestd.domain.jobs import JobRecord, JobStatus
from backtestd.domain.sweeps import Objective, Sampler, SweepRow, SweepSpec, SweepStatus
from backtestd.domain.timefmt import iso_z
from backtestd.engine.equity_curve import build_equity_curve
from backtestd.services.job_views import is_retryable
from backtestd.services.sweeps import SweepView, Wire
from backtestd.sweeps.plan import lattices
from backtestd.sweeps.ranking import plateau_scores, rank_order, value_key, value_positions
from backtestd.sweeps.sensitivity import sensitivity
from backtestd.sweeps.statistics import (
    SweepStatistics,
    deflated_sharpe_ratios,
    probability_of_overfitting,
)


def job_state(job: JobRecord, completed: int | None = None) -> Wire:
    """Interim copy of the JobState wire (to move to api/schemas with the rest of this file)."""
    return {
        "contextId": f"jctx:{job.data_type}:{job.user_id}:{job.exchange_id}:{job.job_id}",
        "status": job.status.value,
        "statusDetail": job.status_detail,
        "size": job.size,
        "completed": job.completed if completed is None else completed,
        "startTime": iso_z(job.start_time),
        "endTime": iso_z(job.end_time),
        "retryable": is_retryable(job),
    }


def _meta_wire(meta: EquityCurveMeta) -> Wire:
    return {
        "inputPointCount": meta.input_point_count,
        "outputPointCount": meta.output_point_count,
        "resampled": meta.resampled,
        "differential": meta.differential,
        "outMode": meta.out_mode.value,
    }


def _curve_wire(curve: ShapedCurve) -> Wire:
    body: Wire
    if curve.meta.out_mode is OutMode.SHORT:
        body = {"timestamps": list(curve.timestamps), "equities": list(curve.equities)}
    else:
        pairs = zip(curve.timestamps, curve.equities, strict=True)
        body = {"points": [{"timestamp": t, "equity": v} for t, v in pairs]}
    body["meta"] = _meta_wire(curve.meta)
    return body


def _base_wire(base: BaseConfig) -> Wire:
    out: Wire = {
        "initialFunding": base.initial_funding,
        "buyFeeRate": base.buy_fee_rate,
        "sellFeeRate": base.sell_fee_rate,
        "feeLeg": base.fee_leg,
    }
    if base.percent_amount_to_lock is not None:
        out["percentAmountToLock"] = base.percent_amount_to_lock
    return out


def sweep_status(view: SweepView) -> SweepStatus:
    if view.job.cancel_requested or view.job.status is JobStatus.ABORTED:
        return SweepStatus.CANCELLED
    if not view.job.status.terminal:
        return SweepStatus.RUNNING
    if any(s.status is JobStatus.FAILED for s in view.shards):
        return SweepStatus.PARTIAL
    return SweepStatus.COMPLETED


def progress(view: SweepView, now: datetime) -> Wire:
    walk = view.spec.walk_forward
    total = walk.folds if walk else view.total_runs
    done = len(view.rows)
    aborted = sum(1 for r in view.rows if r.aborted)
    active = [s for s in view.shards if not s.status.terminal]
    out: Wire = {
        "done": done,
        "total": total,
        "aborted": aborted,
        "shardCount": len(view.shards),
        "pendingShards": len(active),
        "failedShards": sum(1 for s in view.shards if s.status is JobStatus.FAILED),
        "retrying": sum(1 for s in active if s.attempts > 1),
        "notStarted": sum(1 for s in view.shards if s.status is JobStatus.NEW),
    }
    started = view.job.start_time
    if active and started is not None:
        last = max((s.start_time for s in view.shards if s.start_time), default=started)
        out["stalledSeconds"] = max(0, int((now - last).total_seconds()))
        if 0 < done < total:
            elapsed = (now - started).total_seconds()
            out["etaSeconds"] = max(1, math.ceil(elapsed / done * (total - done)))
    return out


def _row_wire(row: SweepRow, spec: SweepSpec) -> Wire:
    return {
        "runIx": row.run_ix,
        "params": row.params,
        **row.metrics,
        "belowTradeFloor": int(row.metrics["trades"]) < spec.min_trade_floor,
        "aborted": row.aborted,
        "runtimeMs": row.runtime_ms,
    }


def curve_url(view: SweepView, run_ix: int) -> str:
    job = view.job
    return (
        f"/v1/backtest/{job.exchange_id}/{job.data_type}/executeSweep/"
        f"{view.spec.prepare_job_id}/{job.job_id}/runs/{run_ix}/equityCurve"
    )


def _coords(view: SweepView) -> tuple[list[tuple[int, ...]], tuple[int, ...]]:
    axes = lattices(view.spec)
    index = [value_positions(values) for _, values in axes]  # neighbours in value order
    coords = [
        tuple(index[a][value_key(row.params[name])] for a, (name, _) in enumerate(axes))
        for row in view.rows
    ]
    return coords, tuple(len(values) for _, values in axes)


def result(
    view: SweepView, objective: Objective, order: str, ranking: str, limit: int, now: datetime
) -> Wire:
    """The ``ExecuteSweepResult`` body.

    All but ``status``, ``progress`` and ``state`` depends only on the rows, the sweep's status,
    the served curves and the query: it is built once per row count (and the rest of the key) and
    reused by every poll until the next row batch lands; those three are read fresh each time.
    """
    status = sweep_status(view)
    count = len(view.rows)
    key = (count, status.value, frozenset(view.curve_metas), objective.value, order, ranking, limit)
    with view.memo.lock:
        body = view.memo.results.get(key)
        if body is None:
            body = _result(view, status, objective, order, ranking, limit)
            if any(k[0] != count for k in view.memo.results):
                view.memo.results.clear()  # rows were added: earlier bodies are stale
            view.memo.results[key] = body
    return {
        **body,
        "status": status.value,
        "progress": progress(view, now),
        "state": job_state(view.job, count),
    }


def _result(
    view: SweepView, status: SweepStatus, objective: Objective, order: str, ranking: str, limit: int
) -> Wire:
    """The body but ``status``, ``progress`` and ``state``, which :func:`result` adds fresh."""
    spec = view.spec
    rows = [_row_wire(r, spec) for r in view.rows]
    field = objective.row_field
    values = [None if r.aborted else float(r.metrics[field]) for r in view.rows]
    walk = spec.walk_forward
    used = "raw" if walk or spec.sampler is not Sampler.GRID else ranking
    body: Wire = {
        "sweepId": view.job.job_id,
        "objective": objective.value,
        "order": order,
        "leaderboardSize": len(rows),
        "truncated": False,
        # Additive (docs/api-decisions.md): what a row needs to be re-run through execute.
        "strategyId": spec.strategy_id,
        "baseConfig": _base_wire(spec.base_config),
    }
    if not walk:
        _add_statistics(view, rows, body, finished=status is not SweepStatus.RUNNING)
    if not walk:
        for wire, row in zip(rows, view.rows, strict=True):
            meta = view.curve_metas.get(row.run_ix)
            if meta is not None:
                wire["equityCurve"] = {"url": curve_url(view, row.run_ix), "meta": _meta_wire(meta)}
    if order == "natural":
        body["ranking"] = "raw"
        body["leaderboard"] = rows
    else:
        if used == "plateau":
            coords, shape = _coords(view)
            scores, counts = plateau_scores(values, coords, shape, objective)
            for wire, score, count in zip(rows, scores, counts, strict=True):
                if score is not None:
                    wire["plateauScore"] = score
                    wire["neighbourCount"] = count
            keys = [s for s in scores]
        else:
            keys = values
        ordered = [rows[i] for i in rank_order(keys, objective)]
        for rank, wire in enumerate(ordered, start=1):
            wire["rank"] = rank
        body["ranking"] = used
        body["truncated"] = len(ordered) > limit
        body["leaderboard"] = ordered[:limit]
    if walk:
        body["walkForward"] = _walk_forward(view)
    return body


def _statistics(view: SweepView, finished: bool) -> SweepStatistics | None:
    """DSR (and PBO once finished) of the stored rows, computed once per row count: PBO over a
    large sweep costs seconds (3.4 s at 365 days x 1,000 trials), DSR tens of milliseconds at
    1,000 rows, and a running sweep is polled far more often than a row batch lands."""
    key = (len(view.rows), finished)
    with view.memo.lock:
        if key in view.memo.statistics:
            return view.memo.statistics[key]
        computed = _compute_statistics(view, finished)
        view.memo.statistics = {key: computed}  # a new count replaces the old figures
        return computed


def _compute_statistics(view: SweepView, finished: bool) -> SweepStatistics | None:
    live = [i for i, r in enumerate(view.rows) if not r.aborted and r.daily_returns]
    if len(live) < 2:
        return None
    returns = [np.asarray(view.rows[i].daily_returns, dtype=np.float64) for i in live]
    dsr = deflated_sharpe_ratios(returns)
    pbo = None
    if finished:
        length = min(len(r) for r in returns)
        matrix = np.stack([r[:length] for r in returns], axis=1)
        pbo = probability_of_overfitting(matrix)
    return SweepStatistics(live, list(dsr), pbo)


def _add_statistics(view: SweepView, rows: list[Wire], body: Wire, finished: bool) -> None:
    stats = _statistics(view, finished)
    if stats is None:
        return
    for i, value in zip(stats.live, stats.dsr, strict=True):
        if value is not None:
            rows[i]["deflatedSharpe"] = value
    if stats.pbo is not None:
        body["pbo"], body["pboSplits"] = stats.pbo


def _walk_forward(view: SweepView) -> Wire:
    walk = view.spec.walk_forward
    assert walk is not None
    folds = []
    for row in view.rows:
        if row.fold is None:
            continue
        folds.append({**row.fold, "outOfSample": _row_wire(row, view.spec)})
    out: Wire = {
        "folds": walk.folds,
        "completedFolds": len(folds),
        "results": folds,
        "inSamplePct": walk.in_sample_pct,
    }
    drift = _param_drift(view, folds)
    if drift is not None:
        out["paramDrift"] = drift
    return out


def _param_drift(view: SweepView, folds: list[Wire]) -> float | None:
    """Mean, over consecutive folds, of the winners' distance in lattice steps in value order
    (normalised by each axis's lattice length); absent with fewer than two folds."""
    if len(folds) < 2:
        return None
    axes = lattices(view.spec)
    steps = []
    for a, b in zip(folds[:-1], folds[1:], strict=True):
        total = 0.0
        for name, values in axes:
            pos = value_positions(values)  # steps in value order, as plateau neighbours
            ia, ib = pos[value_key(a["params"][name])], pos[value_key(b["params"][name])]
            total += abs(ia - ib) / max(1, len(values) - 1)
        steps.append(total / len(axes))
    return float(sum(steps) / len(steps))


def sensitivity_view(view: SweepView, objective: Objective) -> Wire:
    axes = lattices(view.spec)
    live = [r for r in view.rows if not r.aborted]
    marginals, heatmaps, truncated = sensitivity(
        [r.params for r in live],
        [float(r.metrics[objective.row_field]) for r in live],
        [name for name, _ in axes],
        objective,
    )
    return {
        "sweepId": view.job.job_id,
        "status": sweep_status(view).value,
        "objective": objective.value,
        "rowsAnalysed": len(live),
        "marginals": marginals,
        "heatmaps": heatmaps,
        "heatmapsTruncated": truncated,
    }


def _curve(
    row: SweepRow,
    spec: SweepSpec,
    resample: int | None,
    differential: bool | None,
    out_mode: str | None,
) -> Wire:
    assert row.curve is not None
    prefs = spec.curves
    ts = np.asarray(row.curve["ts"], dtype=np.int64)
    eq = np.asarray(row.curve["eq"], dtype=np.float64)
    shaped = build_equity_curve(
        ts,
        eq,
        resample_to=resample if resample is not None else prefs.resample,
        delta=differential if differential is not None else prefs.differential,
        out_mode=OutMode(out_mode if out_mode is not None else prefs.out_mode),
    )
    return _curve_wire(shaped)


def trial_curve(
    view: SweepView,
    row: SweepRow | None,
    resample: int | None,
    differential: bool | None,
    out_mode: str | None,
) -> Wire | None:
    """The served curve of one trial, or None when it was never selected (404 on the wire)."""
    if row is None or row.curve is None or row.run_ix not in view.served_curves:
        return None
    return _curve(row, view.spec, resample, differential, out_mode)
