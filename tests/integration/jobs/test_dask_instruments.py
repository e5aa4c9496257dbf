"""The embedded Dask cluster runs without the dashboard's instruments and routes (``MONITORING``).

Dask's statistical profiler and its 20 ms event-loop checks cost an idle service most of its
CPU (docs/deployment.md); these tests read the settings off the scheduler and a worker process
the executor really started, so a cluster built without ``MONITORING`` (or a worker process that
stopped inheriting it) fails here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
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


def _scheduler_http_port(dask_scheduler: Scheduler) -> int:
    return int(dask_scheduler.http_server.port)


def _worker_http_port(dask_worker: Worker) -> int:
    return int(dask_worker.http_server.port)


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


def test_the_http_servers_dask_starts_serve_nothing_and_the_scheduler_s_is_not_on_8787(
    executor: DaskExecutor,
) -> None:
    """Dask's JSON routes (the cluster's identity, its workers, task counts) were served
    without TLS on 127.0.0.1:8787 by every embedded scheduler."""
    scheduler_port = executor._client.run_on_scheduler(_scheduler_http_port)
    assert scheduler_port != 8787
    (worker_port,) = executor._client.run(_worker_http_port).values()
    for port, path in [
        (scheduler_port, "/json/identity.json"),
        (scheduler_port, "/health"),
        (scheduler_port, "/metrics"),
        (worker_port, "/health"),
        (worker_port, "/metrics"),
    ]:
        assert httpx.get(f"http://127.0.0.1:{port}{path}", timeout=5).status_code == 404, path
