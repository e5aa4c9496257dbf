"""The embedded Dask cluster runs without the dashboard's instruments (``MONITORING``).

Dask's statistical profiler and its 20 ms event-loop checks cost an idle service most of its
CPU (docs/deployment.md); these tests read the settings off the scheduler and a worker process
the executor really started, so a cluster built without ``MONITORING`` (or a worker process that
stopped inheriting it) fails here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Scheduler, Worker

from backtestd.jobs.executors.dask import DaskExecutor
from backtestd.settings import Settings


def _worker_instruments(dask_worker: Worker) -> dict[str, object]:
    return {
        "profiling": "profile" in dask_worker.periodic_callbacks,
        "tick": dask_worker._tick_interval,
    }


def _scheduler_tick(dask_scheduler: Scheduler) -> float:
    return dask_scheduler._tick_interval


@pytest.fixture(scope="module")
def executor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaskExecutor]:
    data_dir: Path = tmp_path_factory.mktemp("dask-data")
    built = DaskExecutor(
        Settings(data_dir=data_dir, dask_workers=1, warm_workers=False, live_enabled=False)
    )
    try:
        yield built
    finally:
        built.close()


def test_a_worker_process_neither_profiles_its_tasks_nor_checks_its_loop_every_20_ms(
    executor: DaskExecutor,
) -> None:
    answers = executor._client.run(_worker_instruments)
    assert len(answers) == 1
    (instruments,) = answers.values()
    assert instruments["profiling"] is False
    assert instruments["tick"] == pytest.approx(0.5)


def test_the_scheduler_checks_its_loop_every_500_ms(executor: DaskExecutor) -> None:
    assert executor._client.run_on_scheduler(_scheduler_tick) == pytest.approx(0.5)
