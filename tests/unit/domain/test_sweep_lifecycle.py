"""The sweep's lifecycle without I/O: its status from its job row and its shards', and the one
rule that closes it when its last shard ends (``domain.sweeps``)."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime

import pytest

from backtestd.domain import sweeps
from backtestd.domain.jobs import JobKind, JobRecord, JobStatus
from backtestd.domain.sweeps import (
    Objective,
    SweepClosing,
    SweepMetrics,
    SweepShardSpec,
    SweepStatus,
    sweep_closing,
    sweep_status,
)

NOW = datetime(2026, 11, 28, tzinfo=UTC)
S = JobStatus


def _job(status: JobStatus, cancel: bool = False, detail: str | None = None) -> JobRecord:
    return JobRecord(
        job_id="swp_x.0",
        user_id="u",
        kind=JobKind.SWEEP_SHARD,
        exchange_id="sim",
        data_type="ticker",
        spec=SweepShardSpec("swp_x"),
        status=status,
        created_at=NOW,
        status_detail=detail,
        cancel_requested=cancel,
    )


@pytest.mark.parametrize(
    ("sweep", "cancel", "shards", "expected"),
    [
        (S.NEW, False, [S.NEW, S.NEW], SweepStatus.RUNNING),
        (S.STARTED, False, [S.COMPLETED, S.STARTED], SweepStatus.RUNNING),
        (S.STARTED, False, [S.FAILED, S.STARTED], SweepStatus.RUNNING),  # not closed yet
        (S.COMPLETED, False, [S.COMPLETED, S.COMPLETED], SweepStatus.COMPLETED),
        (S.COMPLETED, False, [S.COMPLETED, S.FAILED], SweepStatus.PARTIAL),
        (S.FAILED, False, [S.FAILED, S.FAILED], SweepStatus.PARTIAL),
        (S.ABORTED, True, [S.ABORTED, S.COMPLETED], SweepStatus.CANCELLED),
        (S.STARTED, True, [S.STARTED], SweepStatus.CANCELLED),  # cancel wins at once
        (S.ABORTED, False, [S.FAILED], SweepStatus.CANCELLED),
    ],
)
def test_the_sweep_status_follows_its_row_then_its_shards(
    sweep: JobStatus, cancel: bool, shards: list[JobStatus], expected: SweepStatus
) -> None:
    assert sweep_status(_job(sweep, cancel), [_job(s) for s in shards]) is expected


@pytest.mark.parametrize(
    "shards",
    [[], [S.NEW], [S.COMPLETED, S.STARTED], [S.FAILED, S.NEW], [S.ABORTED, S.STARTED]],
)
def test_a_sweep_stays_open_while_a_shard_is_active_or_none_exists(
    shards: list[JobStatus],
) -> None:
    assert sweep_closing([_job(s) for s in shards]) is None


def test_the_last_shard_closes_the_sweep_failed_only_when_every_shard_failed() -> None:
    done = [_job(S.COMPLETED), _job(S.COMPLETED)]
    one_failed = [_job(S.COMPLETED), _job(S.FAILED, detail="internal error: boom")]
    all_failed = [_job(S.FAILED, detail="first"), _job(S.FAILED, detail="second")]
    cancelled = [_job(S.ABORTED), _job(S.COMPLETED)]

    assert sweep_closing(done) == SweepClosing(S.COMPLETED, None)
    assert sweep_closing(one_failed) == SweepClosing(S.COMPLETED, "internal error: boom")
    assert sweep_closing(all_failed) == SweepClosing(S.FAILED, "first")
    assert sweep_closing(cancelled) == SweepClosing(S.COMPLETED, None)


def test_each_objective_scores_its_own_metric() -> None:
    metrics = SweepMetrics(
        sharpe=1.5, sortino=2.5, pnl=-3.0, pnl_pct=-3.0, cagr=0.1, max_dd_pct=7.0, trades=4,
        win_rate=0.25,
    )  # fmt: skip

    assert [o.score(metrics) for o in Objective] == [1.5, 2.5, -3.0, 7.0]
    assert [o.higher_is_better for o in Objective] == [True, True, True, False]


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(sweeps)
    assert outcome.failed == 0
    assert outcome.attempted > 0
