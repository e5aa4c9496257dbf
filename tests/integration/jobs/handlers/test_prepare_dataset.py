"""Prepare on ``exchangeId=user`` (``jobs/handlers/prepare_dataset.py``) on real parts: a
version ingested by the real ingest job, a prepare submitted through the backtest service, run
by a worker context; the test reads the prepare's report and the columns it published. No
HTTP, no Dask, no JVM (a prepare runs no strategy)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from backtestd.domain.accounts import Principal
from backtestd.domain.backtest_results import PrepareOutcome
from backtestd.domain.datasets import USER_EXCHANGE
from backtestd.domain.marketdata import BID_SIZE, CLOSE_TS, RUN_COLUMNS, DataType
from backtestd.jobs.context import WorkerContext
from backtestd.jobs.handlers.datasets import run_dataset_ingest
from backtestd.jobs.handlers.prepare import run_prepare
from backtestd.jobs.progress import JobFailed
from backtestd.services.backtests import PrepareInput
from backtestd.services.container import Services
from backtestd.settings import Settings
from backtestd.storage.objects.keys import prepared_column_key, prepared_manifest_key
from tests.support.dataset_jobs import (
    CANDLE_GAP,
    CANDLE_MINUTES,
    CANDLES_START,
    candle_csv,
    candle_rows,
    dataset_services,
    job,
    upload,
)

ERIN = Principal("prepare-erin", "pro")
FROM, TO = "2025-03-03T00:00:00Z", "2025-03-03T03:00:00Z"


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[tuple[Services, WorkerContext]]:
    settings = Settings(data_dir=tmp_path / "data", dataset_reap_after_seconds=0)
    with dataset_services(settings) as built:
        yield built


def _dataset(parts: tuple[Services, WorkerContext], spool: Path, body: bytes) -> tuple[str, str]:
    """A dataset whose first upload of ``body`` was ingested: ``(dataset id, version id)``."""
    services, ctx = parts
    dataset_id = services.datasets.create(ERIN, "prices", "BTC/USDT").dataset.dataset_id
    return dataset_id, _version(parts, dataset_id, spool, body)


def _version(
    parts: tuple[Services, WorkerContext], dataset_id: str, spool: Path, body: bytes
) -> str:
    services, ctx = parts
    _, job_id = upload(services, ERIN, dataset_id, body, spool)
    return run_dataset_ingest(ctx, *job(ctx, job_id)).version_id


def _prepare(
    parts: tuple[Services, WorkerContext], data_type: DataType, request: PrepareInput
) -> tuple[str, str, PrepareOutcome]:
    """Submit through the service, run the job: ``(job id, cadence in effect, report)``."""
    services, ctx = parts
    job_id, cadence = services.backtests.prepare(ERIN, USER_EXCHANGE, data_type.value, request)
    return job_id, cadence, run_prepare(ctx, *job(ctx, job_id))


def _column(ctx: WorkerContext, job_id: str, name: str) -> np.ndarray:
    data = ctx.objects.get(prepared_column_key(job_id, name))
    assert data is not None, name
    return np.frombuffer(data, dtype="<i8" if name in ("ts", CLOSE_TS) else "<f8")


def test_a_ticker_prepare_keeps_every_row_and_reports_gaps_on_the_versions_own_grid(
    parts: tuple[Services, WorkerContext], tmp_path: Path
) -> None:
    services, ctx = parts
    dataset_id, version_id = _dataset(parts, tmp_path, candle_csv())
    request = PrepareInput(FROM, TO, None, None, dataset_id)
    job_id, cadence, report = _prepare(parts, DataType.TICKER, request)

    assert cadence == "1m"  # omitted: the version's own
    assert report.cadence == "1m"
    assert (report.gaps, report.largest_gap_steps) == (1, len(CANDLE_GAP))
    assert report.coverage_ratio == round(candle_rows() / CANDLE_MINUTES, 6)
    assert report.data_from == CANDLES_START
    assert report.data_to == CANDLES_START + timedelta(minutes=CANDLE_MINUTES - 1)
    assert ctx.objects.get(prepared_manifest_key(job_id)) is not None
    for name in RUN_COLUMNS[DataType.TICKER]:
        assert _column(ctx, job_id, name).size == candle_rows(), name
    last = _column(ctx, job_id, "last")
    assert np.array_equal(_column(ctx, job_id, "bid"), last)  # no bid column: the close
    assert not _column(ctx, job_id, BID_SIZE).any()  # no sizes: 0
    # The same request on the same version is the same job.
    again, _ = services.backtests.prepare(ERIN, USER_EXCHANGE, "ticker", request)
    assert again == job_id
    assert services.datasets.get(ERIN, dataset_id).dataset.current_version_id == version_id


def test_a_kline_prepare_builds_bars_of_the_asked_cadence_on_the_epoch_grid(
    parts: tuple[Services, WorkerContext], tmp_path: Path
) -> None:
    services, ctx = parts
    dataset_id, _ = _dataset(parts, tmp_path, candle_csv())
    request = PrepareInput(FROM, TO, None, "5m", dataset_id)
    job_id, cadence, report = _prepare(parts, DataType.KLINE, request)

    assert cadence == report.cadence == "5m"
    assert (report.gaps, report.largest_gap_steps) == (0, 0)  # minute 104 fills its bucket
    assert report.coverage_ratio == 1.0
    assert report.data_to == CANDLES_START + timedelta(minutes=CANDLE_MINUTES - 5)
    ts, close_ts = _column(ctx, job_id, "ts"), _column(ctx, job_id, CLOSE_TS)
    assert ts.size == CANDLE_MINUTES // 5
    assert np.array_equal(close_ts - ts, np.full(ts.size, 5 * 60_000 - 1))
    assert not ts[0] % (5 * 60_000)


def test_a_prepare_pinned_to_an_earlier_version_reads_it_after_a_new_upload(
    parts: tuple[Services, WorkerContext], tmp_path: Path
) -> None:
    dataset_id, first = _dataset(parts, tmp_path, candle_csv())
    first_hour = b"".join(candle_csv().splitlines(keepends=True)[:61])  # header + 60 minutes
    second = _version(parts, dataset_id, tmp_path, first_hour)
    assert second != first

    _, _, current = _prepare(parts, DataType.TICKER, PrepareInput(FROM, TO, None, None, dataset_id))
    pinned_request = PrepareInput(FROM, TO, None, None, dataset_id, first)
    _, _, pinned = _prepare(parts, DataType.TICKER, pinned_request)
    assert current.data_to == CANDLES_START + timedelta(minutes=59)
    assert (current.gaps, pinned.gaps) == (0, 1)
    assert pinned.data_to == CANDLES_START + timedelta(minutes=CANDLE_MINUTES - 1)


def _closes_only(minutes: int) -> tuple[bytes, list[tuple[int, float, float]]]:
    """A 1-minute ``timestamp,close,volume`` upload (no candles) and its rows (epoch s)."""
    rows = [
        (1_740_960_000 + 60 * i, round(100 + 7 * math.sin(i / 4) + (i % 3) * 0.25, 6), 1.0 + i % 5)
        for i in range(minutes)
    ]
    body = b"timestamp,close,volume\n" + b"".join(f"{t},{c!r},{v!r}\n".encode() for t, c, v in rows)
    return body, rows


def _bars_by_hand(
    rows: list[tuple[int, float, float]], width_s: int
) -> list[tuple[int, float, float, float, float, float]]:
    """The bars a width makes of close-only rows, computed apart from the engine: per
    epoch-aligned bucket, (start ms, first, max, min, last close, summed volume)."""
    buckets: dict[int, list[tuple[float, float]]] = {}
    for t, c, v in rows:
        buckets.setdefault(t - t % width_s, []).append((c, v))
    out = []
    for start in sorted(buckets):
        closes = [c for c, _ in buckets[start]]
        volume = 0.0
        for _, v in buckets[start]:
            volume += v
        out.append((start * 1000, closes[0], max(closes), min(closes), closes[-1], volume))
    return out


@pytest.mark.parametrize(("cadence", "width_s"), [("1m", 60), ("5m", 300), ("15m", 900)])
def test_a_price_only_version_prepares_as_kline_with_bars_built_from_its_closes(
    parts: tuple[Services, WorkerContext], tmp_path: Path, cadence: str, width_s: int
) -> None:
    """Issue 27 point 6: the upload format requires only ``timestamp`` and ``close``, so a
    price-only version is preparable as ``kline``; at its own cadence (1m) every bar is flat."""
    _, ctx = parts
    body, rows = _closes_only(60)
    dataset_id, _ = _dataset(parts, tmp_path, body)
    request = PrepareInput(FROM, TO, None, cadence, dataset_id)
    job_id, in_effect, report = _prepare(parts, DataType.KLINE, request)

    assert in_effect == report.cadence == cadence
    expected = _bars_by_hand(rows, width_s)
    got = {name: _column(ctx, job_id, name) for name in RUN_COLUMNS[DataType.KLINE]}
    assert got["ts"].tolist() == [b[0] for b in expected]
    for ix, name in enumerate(("open", "high", "low", "close", "volume"), start=1):
        assert got[name].tolist() == [b[ix] for b in expected], name
    assert np.array_equal(got[CLOSE_TS] - got["ts"], np.full(len(expected), width_s * 1000 - 1))
    if cadence == "1m":
        closes = [c for _, c, _ in rows]
        for name in ("open", "high", "low", "close"):
            assert got[name].tolist() == closes, name


def test_a_prepare_whose_version_was_reaped_fails_saying_so(
    parts: tuple[Services, WorkerContext], tmp_path: Path
) -> None:
    services, ctx = parts
    dataset_id, version_id = _dataset(parts, tmp_path, candle_csv())
    request = PrepareInput(FROM, TO, None, None, dataset_id)
    job_id, _ = services.backtests.prepare(ERIN, USER_EXCHANGE, "ticker", request)
    services.datasets.delete(ERIN, dataset_id)  # no grace here: reaped at once
    with pytest.raises(JobFailed, match=f"dataset version {version_id} no longer exists"):
        run_prepare(ctx, *job(ctx, job_id))


def test_a_prepare_still_queued_when_its_dataset_is_deleted_stops_without_reading_it(
    tmp_path: Path,
) -> None:
    """The deleted dataset's files stay an hour for work already reading them; a prepare that
    had not started yet (or is resubmitted after its worker died) must not start then."""
    settings = Settings(data_dir=tmp_path / "data", dataset_reap_after_seconds=3600)
    with dataset_services(settings) as built:
        services, ctx = built
        dataset_id, _ = _dataset(built, tmp_path, candle_csv())
        request = PrepareInput(FROM, TO, None, None, dataset_id)
        job_id, _ = services.backtests.prepare(ERIN, USER_EXCHANGE, "ticker", request)
        services.datasets.delete(ERIN, dataset_id)
        with pytest.raises(JobFailed, match=f"dataset {dataset_id} was deleted before"):
            run_prepare(ctx, *job(ctx, job_id))
        assert ctx.objects.get(prepared_manifest_key(job_id)) is None
