"""The embedded cluster's workers are forked from a fork server that loaded the job stack once.

A spawned worker imported Dask, numba, SQLAlchemy and the job modules and loaded the compiled
kernels itself, at every start and every restart (``forked_workers``). These tests read a worker
process the executor really started: its parent, what it holds before any task or warm-up ran,
and the same after its nanny replaced it; and that none of it was loaded into this process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from backtestd.jobs.executors.dask import DaskExecutor
from backtestd.settings import Settings
from tests.support.processes import command_line, parent_of

IMAGE = "backtestd.jobs.executors.worker_image"


def _what_the_worker_holds() -> dict[str, object]:
    from backtestd.engine.kernel import run_kernel

    return {
        "pid": os.getpid(),
        "parent": os.getppid(),
        "image": IMAGE in sys.modules,
        "kernel_loaded": len(run_kernel.signatures) > 0,
    }


@pytest.fixture(scope="module")
def executor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaskExecutor]:
    built = DaskExecutor(
        Settings(
            data_dir=tmp_path_factory.mktemp("dask-data"),
            dask_workers=1,
            warm_workers=False,  # what the worker holds comes from the fork server alone
            live_enabled=False,
        )
    )
    try:
        yield built
    finally:
        built.close()


def _the_worker(executor: DaskExecutor) -> dict[str, object]:
    answers = executor._client.run(_what_the_worker_holds)
    assert len(answers) == 1
    (held,) = answers.values()
    return held


def test_a_worker_starts_with_the_job_stack_and_kernels_loaded_by_its_fork_server(
    executor: DaskExecutor,
) -> None:
    held = _the_worker(executor)
    assert held["image"] is True
    assert held["kernel_loaded"] is True
    fork_server = int(str(held["parent"]))
    assert fork_server != os.getpid(), "the worker was started by this process itself"
    assert parent_of(fork_server) == os.getpid()


def test_the_api_process_loads_neither_the_image_nor_dask_s_own_preload_list(
    executor: DaskExecutor,
) -> None:
    """Dask's own fork-server list (numpy, pandas, lz4: imported into this process to be
    listed) is not the one the fork server was started with, and the image it loads is not
    loaded here."""
    fork_server = int(str(_the_worker(executor)["parent"]))
    command = command_line(fork_server).decode()
    assert "multiprocessing.forkserver" in command
    assert IMAGE in command
    assert "pandas" not in command
    assert IMAGE not in sys.modules


def test_a_restarted_worker_is_forked_from_the_same_fork_server(executor: DaskExecutor) -> None:
    first = _the_worker(executor)
    executor._client.restart(wait_for_workers=True, timeout=60)
    second = _the_worker(executor)
    assert second["pid"] != first["pid"]
    assert second["parent"] == first["parent"]
    assert second["kernel_loaded"] is True


def test_with_fork_workers_off_a_worker_is_spawned_by_this_process(
    executor: DaskExecutor, tmp_path: Path
) -> None:
    """``BACKTESTD_FORK_WORKERS=false`` (and any system but Linux): Dask's spawn, as before.
    Last in this module: the forked cluster above restarts no worker after it."""
    spawning = DaskExecutor(
        Settings(
            data_dir=tmp_path / "spawned",
            dask_workers=1,
            warm_workers=False,
            live_enabled=False,
            fork_workers=False,
        )
    )
    try:
        held = _the_worker(spawning)
        assert held["parent"] == os.getpid()
        assert held["image"] is False
        assert held["kernel_loaded"] is False
    finally:
        spawning.close()
