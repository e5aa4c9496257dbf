"""Execute: run a registered strategy over a prepared dataset, then the portfolio and metrics."""

from __future__ import annotations

import io
import json
import math
import os
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from backtestd.domain.jobs import JobRecord
from backtestd.domain.marketdata import Instrument
from backtestd.domain.quotas import storage_overflow
from backtestd.domain.timefmt import iso_z
from backtestd.engine.equity_curve import OutMode, build_equity_curve, equity_points
from backtestd.engine.metrics import compute_metrics, result_fields
from backtestd.engine.portfolio import PortfolioConfig, simulate
from backtestd.jobs.context import WorkerContext
from backtestd.jobs.progress import JobProgress
from backtestd.storage.db.repositories.strategies import StrategyRepository
from backtestd.storage.db.repositories.usage import UsageRepository
from backtestd.storage.objects.keys import (
    prepared_column_key,
    prepared_manifest_key,
    signals_key,
)
from backtestd.strategy.jvm import FeedKind, RunFailure, RunRequest, RunResult

TICKER_GRID_MS = 60_000
MAX_NOTICES = 50


class ExecuteFailed(Exception):
    """The run cannot produce results; the message is the job's ``statusDetail``."""

    def __init__(self, message: str, results: dict[str, Any]) -> None:
        super().__init__(message)
        self.results = results


def host_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _manifest(ctx: WorkerContext, prepare_id: str) -> dict[str, Any]:
    blob = ctx.objects.get(prepared_manifest_key(prepare_id))
    if blob is None:
        raise ExecuteFailed(f"prepared data of {prepare_id} is missing; prepare again", {})
    manifest: dict[str, Any] = json.loads(blob)
    return manifest


def _column_paths(ctx: WorkerContext, prepare_id: str, names: list[str]) -> dict[str, Path]:
    paths = {}
    for name in names:
        path = ctx.objects.local_path(prepared_column_key(prepare_id, name))
        if path is None or not path.exists():
            raise ExecuteFailed(f"prepared column {name} of {prepare_id} is missing", {})
        paths[name] = path
    return paths


def _portfolio_config(base: dict[str, Any], run: RunResult) -> PortfolioConfig:
    fee = float(base.get("feeRate", base.get("buyFeeRate", 0.001)))
    gain = run.percent_gain
    return PortfolioConfig(
        initial_funding=float(base.get("initialFunding", 100.0)),
        buy_fee_rate=fee,
        sell_fee_rate=fee,
        fee_leg=str(base.get("feeLeg", "RECEIVED")),  # type: ignore[arg-type]
        percent_amount_to_lock=base.get("percentAmountToLock"),
        mode=run.execution_mode or "LONG",  # type: ignore[arg-type]
        percent_gain=gain if gain and math.isfinite(gain) and gain > 0 else None,
        multi_entry=run.multi_entry,
    )


def _marks(paths: dict[str, Path], feed: FeedKind) -> tuple[np.ndarray, np.ndarray]:
    def load(name: str, dtype: str) -> np.ndarray:
        return np.fromfile(paths[name], dtype=dtype)

    if feed is FeedKind.KLINE:
        return load("closeTs", "<i8"), load("close", "<f8")
    return load("ts", "<i8"), load("last", "<f8")


def _store_signals(ctx: WorkerContext, job: JobRecord, run: RunResult) -> dict[str, Any]:
    """Write the signals parquet, counted against the user's storage pool first.

    The count and the ``maxTotalStorageBytes`` check (the cap travels in the job's spec as it
    was when the user asked) happen in one transaction before the object is written. Over the
    cap nothing is stored and the result says ``signalsUpload: Failed`` with the reason; when
    the strategy was deleted during the run, ``Skipped`` (its signals would be revoked anyway).
    The metrics are kept either way.
    """
    table = pa.table(
        {
            "ts": pa.array(run.signal_ts, pa.int64()),
            "side": pa.array(run.signal_side, pa.int8()),
            "price": pa.array(run.signal_price, pa.float64()),
            "info": pa.array([json.dumps(i) if i else None for i in run.info], pa.string())
            if len(run.info) == run.signal_count
            else pa.nulls(run.signal_count, pa.string()),
        }
    )
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    blob = sink.getvalue()
    key = signals_key(job.user_id, job.job_id)
    now = datetime.now(UTC)
    item = f"signals:{job.job_id}"
    try:
        with ctx.database.unit_of_work() as uow:
            usage = UsageRepository(uow.session)
            usage.lock_user(job.user_id)
            strategies = StrategyRepository(uow.session)
            if strategies.active_of(job.user_id, job.spec["strategyId"]) is None:
                return {
                    "signalCount": run.signal_count,
                    "signalsUpload": "Skipped",
                    "signalsUploadReason": "the strategy was deleted while the execution ran",
                }
            usage.record(item, job.user_id, "signals", len(blob), now)
            _check_storage(job, usage, len(blob), run.signal_count)
    except _OverCap as over:  # the transaction rolled back: nothing counted, nothing stored
        return {
            "signalCount": run.signal_count,
            "signalsUpload": "Failed",
            "signalsUploadReason": str(over),
        }
    try:
        ctx.objects.put(key, blob)
    except BaseException:
        with ctx.database.unit_of_work() as uow:
            UsageRepository(uow.session).release(item, datetime.now(UTC))
        raise
    with ctx.database.unit_of_work() as uow:  # deleted between the count and the write?
        active = StrategyRepository(uow.session).active_of(job.user_id, job.spec["strategyId"])
        if active is None:
            UsageRepository(uow.session).release(item, datetime.now(UTC))
    if active is None:
        ctx.objects.delete(key)
        return {
            "signalCount": run.signal_count,
            "signalsUpload": "Skipped",
            "signalsUploadReason": "the strategy was deleted while the execution ran",
        }
    return {
        "signalCount": run.signal_count,
        "signalsId": job.job_id,
        "signalsKey": key,
        "signalsUpload": "Done",
        "signalsUploadedAt": iso_z(now),
    }


class _OverCap(Exception):
    """Storing the signals would exceed the storage pool (the message says by how much)."""


def _check_storage(job: JobRecord, usage: UsageRepository, size: int, count: int) -> None:
    limit = job.spec.get("storageLimit")
    if not limit:  # jobs queued before the cap travelled with them
        return
    problem = storage_overflow(
        usage.usage_of(job.user_id),
        int(limit["maxTotalStorageBytes"]),
        str(limit["tier"]),
        size,
        f"storing the {count} signals of this execution",
    )
    if problem:
        raise _OverCap(problem)


def run_execute(ctx: WorkerContext, job: JobRecord, progress: JobProgress) -> dict[str, Any]:
    spec = job.spec
    with ctx.database.unit_of_work() as uow:
        strategy = StrategyRepository(uow.session).get(spec["strategyId"])
    manifest = _manifest(ctx, spec["prepareJobId"])
    instrument = Instrument.parse(manifest["instrument"])
    base_results: dict[str, Any] = {
        "hostName": host_name(),
        "iops": 0,
        "strategyId": f"strategy:{job.user_id}:{spec['strategyId']}",
        "instrument": instrument.pair,
    }
    if "params" in spec:
        base_results["params"] = spec["params"]
    if strategy is None:
        raise ExecuteFailed(f"strategy {spec['strategyId']} no longer exists", base_results)
    feed = FeedKind(job.data_type)
    paths = _column_paths(ctx, spec["prepareJobId"], manifest["columns"])
    progress.size(3)
    request = RunRequest(
        class_files=strategy.class_files,
        main_class=strategy.main_class,
        kind=feed,
        columns=paths,
        instrument=instrument,
        params=spec.get("params", {}),
        cpu_limit_s=ctx.settings.run_cpu_limit_seconds,
    )
    try:
        run = ctx.engines.run(request)
    except RunFailure as failure:
        message = failure.message
        if failure.declared_properties:
            message += f" (declared properties: {', '.join(failure.declared_properties)})"
        raise ExecuteFailed(message, base_results) from failure
    progress.update(1)
    base_results["iops"] = round(run.events_per_second, 1)
    trading = run.signal_side != 0
    from_ms = int(datetime.fromisoformat(manifest["from"]).timestamp() * 1000)
    to_ms = int(datetime.fromisoformat(manifest["to"]).timestamp() * 1000)
    px_ts, px = _marks(paths, feed)
    grid = int(manifest["cadenceMs"]) if feed is FeedKind.KLINE else TICKER_GRID_MS
    portfolio = simulate(
        run.signal_ts[trading],
        run.signal_side[trading],
        run.signal_price[trading],
        px_ts,
        px,
        from_ms=from_ms,
        to_ms=to_ms,
        grid_step_ms=grid,
        config=_portfolio_config(spec.get("baseConfig", {}), run),
    )
    metrics = compute_metrics(portfolio)
    results = {**base_results, **result_fields(metrics)}
    if portfolio.trades.count:
        options = spec.get("equityCurve", {})
        ts, eq = equity_points(portfolio)
        results["equityCurve"] = build_equity_curve(
            ts,
            eq,
            resample_to=options.get("resample"),
            delta=bool(options.get("differential", False)),
            out_mode=OutMode(options.get("outMode", "ARRAY")),
        )
    if run.notices:
        results["notices"] = [
            {"level": "WARN", "code": "engine.notice", "message": text, "provenance": "execute"}
            for text in run.notices[:MAX_NOTICES]
        ]
        if len(run.notices) > MAX_NOTICES:
            results["noticesTruncated"] = len(run.notices) - MAX_NOTICES
    progress.update(2)
    if spec.get("storeSignals"):
        results.update(_store_signals(ctx, job, run))
    return results
