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
    before_src: Path | None, before_entry: str, settle_s: float
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
        finally:
            server.stop()
    first = sum(cpu_by_kind(zero, at_answer).values())
    used = cpu_by_kind(zero, settled)
    parts = ", ".join(f"{kind} {s:.1f}" for kind, s in sorted(used.items()))
    return answered, first, sum(used.values()), parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="fresh servers of each kind")
    parser.add_argument("--settle", type=float, default=20.0, help="seconds after the answer")
    parser.add_argument("--before-src", type=Path, help="a checkout to alternate with")
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
            answered, first, total, parts = start_round(kind, args.before_entry, args.settle)
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
