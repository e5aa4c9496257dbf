"""What starting the service costs: wall seconds until it answers, CPU seconds until it settles.

Every ``backtestd serve`` imports its stack in the server and in each Dask worker, starts the
scheduler, the workers and their engine hosts, and warms them; a worker that dies is started
again the same way. Users wait for it, and the test suite pays it at each of its server starts.
Each round starts a fresh server on an empty data directory and reads its process tree when it
first answers and again ``--settle`` seconds later (the workers' warm-ups run after the API
answers).

``--before-src DIR`` alternates rounds with the service of another checkout (``git worktree
add DIR REV``), started through ``--before-entry`` (the console script's entry point at that
revision: ``backtestd.cli.main:app`` before 55c3ee4, ``backtestd.cli.launch:main`` since), with
``PYTHONPATH=DIR/src``: both run from the same ``.venv``, so only the project's code differs.

    .venv/bin/python benchmarks/bench_start.py --rounds 3 [--before-src /tmp/before]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.server import BIN, LiveServer  # noqa: E402

from bench_sweep import cpu_by_kind, cpu_seconds  # noqa: E402


def console_script(entry: str) -> str:
    """A console script like pip writes for ``module:function`` (what spawned workers
    re-import)."""
    module, function = entry.split(":")
    return (
        f"import sys\nfrom {module} import {function}\n"
        f"if __name__ == '__main__':\n    sys.exit({function}())\n"
    )


def start_round(
    before_src: Path | None, before_entry: str, settle_s: float, restart: bool
) -> tuple[float, float, float, str]:
    """Wall seconds to the first answer, CPU seconds then and after ``settle_s`` more, by kind."""
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp) / "data")
        env = dict(server.env)
        command = [str(BIN), "serve"]
        if before_src is not None:
            script = Path(tmp) / "backtestd"
            script.write_text(console_script(before_entry))
            command = [sys.executable, str(script), "serve"]
            env["PYTHONPATH"] = str(before_src / "src")
        server.data_dir.mkdir(parents=True)
        started = time.monotonic()
        with server.log_path.open("ab") as log:
            server.process = subprocess.Popen(
                command, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        try:
            zero = cpu_seconds(server.process.pid)
            server.wait_until_answering()
            answered = time.monotonic() - started
            at_answer = cpu_seconds(server.process.pid)
            time.sleep(settle_s)
            settled = cpu_seconds(server.process.pid)
            if restart:
                print("  " + restart_worker(server, settle_s), flush=True)
        finally:
            server.stop()
    first = sum(cpu_by_kind(zero, at_answer).values())
    used = cpu_by_kind(zero, settled)
    parts = ", ".join(f"{kind} {s:.1f}" for kind, s in sorted(used.items()))
    return answered, first, sum(used.values()), parts


def restart_worker(server: LiveServer, settle_s: float) -> str:
    """SIGKILL one Dask worker (what the OOM killer does) and measure its replacement: wall
    seconds until the scheduler registers a new worker, CPU seconds of the whole service from
    the kill until ``settle_s`` later (the new worker's warm-up and engine host included)."""
    assert server.process is not None
    root = server.process.pid
    before = cpu_seconds(root)
    worker = next(pid for pid, (kind, _) in before.items() if kind == "worker" and _python(pid))
    registered = server.log_path.read_text().count("Register worker")
    killed = time.monotonic()
    os.kill(worker, signal.SIGKILL)
    while server.log_path.read_text().count("Register worker") <= registered:
        if time.monotonic() - killed > 120:
            return "restart: no new worker registered within 120 s"
        time.sleep(0.05)
    joined = time.monotonic() - killed
    time.sleep(settle_s)
    used = cpu_by_kind(before, cpu_seconds(root))
    parts = ", ".join(f"{kind} {s:.1f}" for kind, s in sorted(used.items()) if kind != "gone")
    return (
        f"worker killed: a new one registered after {joined:.2f} s; "
        f"{sum(used.values()):.1f} CPU s until {settle_s:.0f} s after ({parts})"
    )


def _python(pid: int) -> bool:
    return b"python" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="fresh servers of each kind")
    parser.add_argument("--settle", type=float, default=20.0, help="seconds after the answer")
    parser.add_argument("--before-src", type=Path, help="a checkout to alternate with")
    parser.add_argument(
        "--restart", action="store_true", help="then kill a worker and time its replacement"
    )
    parser.add_argument(
        "--before-entry",
        default="backtestd.cli.main:app",
        help="the other checkout's console-script entry point (module:function)",
    )
    args = parser.parse_args()
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("PYTHONDONTWRITEBYTECODE is set: Python writes no bytecode of its own")
    kinds: list[Path | None] = [None] + ([args.before_src.resolve()] if args.before_src else [])
    totals: dict[str, list[float]] = {}
    for n in range(1, args.rounds + 1):
        for kind in kinds:
            name = "before" if kind else "this"
            answered, first, total, parts = start_round(
                kind, args.before_entry, args.settle, args.restart
            )
            totals.setdefault(name, []).append(total)
            print(
                f"round {n} {name}: answered after {answered:.1f} s ({first:.1f} CPU s); "
                f"{total:.1f} CPU s after {args.settle:.0f} s more ({parts})",
                flush=True,
            )
    for name, values in totals.items():
        print(f"median {name}: {statistics.median(values):.1f} CPU s to a settled service")


if __name__ == "__main__":
    main()
