"""Engine-host start and first compile, with the class-data archive and without, side by side.

Each pair starts one host on ``jvm/build/backtestd-engine.jar`` (which maps the archive
``jvm/build.sh`` wrote beside it, docs/engine-host.md "Class-data archive") and one on a copy of
the same jar in a temporary directory (no archive beside it), in alternating order, and times
each one's start (until its hello) and its first compile of the SMA crossover: wall seconds and
the JVM's CPU seconds (user + system, ``/proc/<pid>/stat``). Prints the medians of ``--pairs``.

Run: ``.venv/bin/python benchmarks/bench_host_start.py [--pairs 6]``. A script, not a test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.strategies import source  # noqa: E402

from backtestd.strategy.jvm import EngineHost, HostConfig, locate_engine_jar  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _one(jar: Path, text: str) -> tuple[float, float, float, float]:
    """(start wall, start CPU, first compile wall, first compile CPU) of a fresh host."""
    host = EngineHost(HostConfig(jar=jar, class_archive=True))
    t0 = time.perf_counter()
    host.start()
    t1 = time.perf_counter()
    assert host.pid is not None
    c0 = _cpu_s(host.pid)
    compiled = host.compile(text)
    t2 = time.perf_counter()
    c1 = _cpu_s(host.pid)
    host.close()
    assert compiled.ok, compiled.diagnostics
    return t1 - t0, c0, t2 - t1, c1 - c0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=6)
    args = parser.parse_args()
    jar = locate_engine_jar()
    if not jar.with_suffix(".jsa").is_file():
        print("no class-data archive beside the jar: jvm/build.sh could not write one")
        return
    text = source("sma_cross_kline.java")
    with tempfile.TemporaryDirectory(prefix="bench-host-start-") as tmp:
        bare = Path(tmp) / jar.name
        shutil.copy2(jar, bare)
        runs: dict[str, list[tuple[float, float, float, float]]] = {"archive": [], "none": []}
        for k in range(args.pairs):
            order = [("archive", jar), ("none", bare)]
            for name, path in order if k % 2 else reversed(order):
                runs[name].append(_one(path, text))
    for name, rows in runs.items():
        med = [statistics.median(r[i] for r in rows) for i in range(4)]
        print(
            f"{name:>7}: start {med[0]:.3f} s wall, {med[1]:.3f} CPU s; "
            f"first compile {med[2]:.3f} s wall, {med[3]:.3f} CPU s (medians of {len(rows)})"
        )


if __name__ == "__main__":
    main()
