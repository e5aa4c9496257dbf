"""The backtest service's limits on real parts (SQLite, the engine-host JVM for registration),
without the HTTP layer and with a job queue that holds what it is given.

The executor is the one stand-in: it records submissions and runs nothing, which is exactly a
queue whose workers are busy, the state every concurrency limit is about. Everything the limits
read (job rows, their states, the tier table) is the real service's.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from backtestd.domain.accounts import Principal
from backtestd.domain.jobs import JobStatus
from backtestd.errors import InvalidInput, LimitExceeded
from backtestd.services.backtests import ExecuteInput, PrepareInput
from backtestd.services.container import Services, build_services
from backtestd.settings import Settings
from backtestd.storage.db.repositories.jobs import JobRepository
from tests.support.held_queue import HeldQueue
from tests.support.services import requires_java
from tests.support.strategies import source

pytestmark = requires_java


@pytest.fixture
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    built = build_services(
        Settings(
            data_dir=tmp_path_factory.mktemp("limits"),
            engine_hosts=1,
            max_active_prepares_per_user=2,
            max_queued_jobs=5,
        )
    )
    built.backtests.executor = HeldQueue()
    yield built
    built.close()


def _queue(services: Services) -> HeldQueue:
    executor = services.backtests.executor
    assert isinstance(executor, HeldQueue)
    return executor


def _day(days_ago: int, length_days: float = 1.0) -> PrepareInput:
    start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=days_ago)
    end = start + timedelta(days=length_days)
    return PrepareInput(
        start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ"), "BTC/USDT", None
    )


def _completed_prepare(services: Services, user: Principal, days_ago: int) -> str:
    job_id, _ = services.backtests.prepare(user, "sim", "ticker", _day(days_ago))
    now = datetime.now(UTC)
    with services.database.unit_of_work() as uow:
        jobs = JobRepository(uow.session)
        assert jobs.mark_started(job_id, now)
        assert jobs.finish(job_id, JobStatus.COMPLETED, now, None, {})
    return job_id


def _execute(prepare_id: str, strategy_id: str, fast: int) -> ExecuteInput:
    return ExecuteInput(prepare_id, strategy_id, False, None, None, {"fast": fast})


def test_max_range_days_bounds_a_prepare_to_the_tier(services: Services) -> None:
    free = Principal("range-free", "free")  # maxRangeDays 30

    services.backtests.prepare(free, "sim", "ticker", _day(40, 30))
    with pytest.raises(InvalidInput, match="over the free tier's maxRangeDays of 30"):
        services.backtests.prepare(free, "sim", "ticker", _day(40, 31))

    assert len(_queue(services).submitted) == 1


def test_identical_prepare_is_one_job_submitted_once(services: Services) -> None:
    alice = Principal("twice-alice", "pro")

    first, _ = services.backtests.prepare(alice, "sim", "ticker", _day(3))
    second, _ = services.backtests.prepare(alice, "sim", "ticker", _day(3))

    assert first == second
    assert _queue(services).submitted == [first]


def test_active_prepares_are_capped_per_user_not_per_service(services: Services) -> None:
    alice, bob = Principal("cap-alice", "pro"), Principal("cap-bob", "pro")
    services.backtests.prepare(alice, "sim", "ticker", _day(3))
    services.backtests.prepare(alice, "sim", "ticker", _day(4))

    with pytest.raises(LimitExceeded, match="at most 2 prepares"):
        services.backtests.prepare(alice, "sim", "ticker", _day(5))
    services.backtests.prepare(bob, "sim", "ticker", _day(5))  # another user's share is whole

    assert len(_queue(services).submitted) == 3


def test_concurrent_executes_follow_the_tier_and_free_up_when_one_ends(
    services: Services,
) -> None:
    free = Principal("exec-free", "free")  # maxExecute 1
    strategy, _ = services.strategies.register(free, source("ema_cross.java").encode())
    prepare_id = _completed_prepare(services, free, 2)

    running = services.backtests.execute(
        free, "sim", "ticker", _execute(prepare_id, strategy.strategy_id, 5)
    )
    with pytest.raises(LimitExceeded) as refused:
        services.backtests.execute(
            free, "sim", "ticker", _execute(prepare_id, strategy.strategy_id, 6)
        )
    assert refused.value.reason == "CONCURRENCY_LIMIT"
    assert "at most 1 concurrent executions and sweeps" in str(refused.value)

    now = datetime.now(UTC)
    with services.database.unit_of_work() as uow:
        jobs = JobRepository(uow.session)
        jobs.mark_started(running, now)
        jobs.finish(running, JobStatus.COMPLETED, now, None, {})
    second = services.backtests.execute(
        free, "sim", "ticker", _execute(prepare_id, strategy.strategy_id, 6)
    )

    assert _queue(services).submitted == [prepare_id, running, second]


def test_a_full_queue_refuses_everyone_and_stores_nothing(services: Services) -> None:
    users = [Principal(f"queue-{n}", "pro") for n in range(3)]
    for n in range(5):  # max_queued_jobs = 5, two prepares a user at most
        services.backtests.prepare(users[n % 3], "sim", "ticker", _day(3 + n))

    with pytest.raises(LimitExceeded) as refused:
        services.backtests.prepare(Principal("queue-late", "pro"), "sim", "ticker", _day(20))

    assert refused.value.reason == "QUEUE_FULL"
    with services.database.unit_of_work() as uow:
        assert JobRepository(uow.session).count_all_active() == 5
    assert len(_queue(services).submitted) == 5
