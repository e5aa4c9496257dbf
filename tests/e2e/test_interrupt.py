"""Black-box: Ctrl-C in the terminal running ``backtestd serve`` stops it without a traceback.

A terminal's Ctrl-C sends SIGINT to the whole foreground process group, the service and every
Dask worker process it started; each worker used to print a ``KeyboardInterrupt`` traceback
while its nanny was closing it (issue 27, point 5). The test starts the service in a process
group of its own and signals the group, as the terminal does.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from tests.support.server import BIN, LiveServer


def test_sigint_to_the_process_group_stops_the_service_without_worker_tracebacks(
    tmp_path: Path,
) -> None:
    server = LiveServer(tmp_path / "data", extra_env={"BACKTESTD_DASK_WORKERS": "2"})
    server.data_dir.mkdir(parents=True)
    with server.log_path.open("ab") as log:
        process = subprocess.Popen(
            [str(BIN), "serve"],
            env=server.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a process group of its own, like a terminal's job
        )
    server.process = process
    try:
        server.wait_until_answering()
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    log_text = server.log_path.read_text()
    assert "Finished server process" in log_text  # it did stop through its own shutdown
    # (Dask may still log a worker's failed heartbeat, with its traceback, while the scheduler
    # closes: a race inside Dask's own shutdown, not an interrupted worker.)
    assert "KeyboardInterrupt" not in log_text, log_text[-3000:]
