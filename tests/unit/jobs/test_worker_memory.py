"""A worker that keeps its freed memory takes the next trial's arrays without new page faults."""

from __future__ import annotations

import subprocess
import sys

import pytest

# A trial's arrays of a few sizes (signals, the kernel's book and trades, a curve), allocated
# and freed ten times in a thread as Dask runs a task; prints the minor page faults the last
# nine cost: each is a page the kernel handed out (and zeroed) again.
_PROGRAM = """
import resource, sys, threading
import numpy as np
from backtestd.jobs.worker_memory import keep_freed_memory
if sys.argv[1] == "keep":
    assert keep_freed_memory()
def trial():
    arrays = [np.empty(n, dtype=np.uint8) for n in (300 << 10, 4 << 20, 1 << 20, 6 << 20, 2 << 20)]
    for a in arrays:
        a[::4096] = 1  # touch every page
faults = []
def run():
    trial()
    before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    for _ in range(9):
        trial()
    faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before)
thread = threading.Thread(target=run)
thread.start()
thread.join()
print(faults[0])
"""
TRIAL_PAGES = ((300 << 10) + (13 << 20)) // 4096


def _faults(mode: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _PROGRAM, mode], capture_output=True, text=True, check=True
    )
    return int(out.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mallopt is glibc's")
def test_a_worker_keeping_freed_memory_reuses_it_where_the_default_faults_it_in_again() -> None:
    default = _faults("default")
    kept = _faults("keep")
    assert default > 9 * TRIAL_PAGES // 4, default  # glibc gave much of it back every time
    assert kept < TRIAL_PAGES // 2, kept  # kept: nine trials fault in less than half of one
