"""What an idle service costs: CPU seconds a minute of a fresh ``backtestd serve`` doing nothing.

A self-hosted service sits idle most of the day beside other work, and every test session holds
servers that wait between tests; what they burn while waiting is CPU nobody asked for. The
server is started as users start it (embedded Dask cluster, engine hosts), left to settle, then
its whole process tree is read twice, ``--seconds`` apart. ``--server-env`` passes settings,
and variables such as ``DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL`` in this process's environment
reach the server and its workers (the service's own Dask settings win over them).

    .venv/bin/python benchmarks/bench_idle.py --seconds 60 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.server import LiveServer  # noqa: E402

from bench_sweep import cpu_by_kind, cpu_seconds  # noqa: E402


def idle_round(settle_s: float, seconds: float, extra_env: dict[str, str]) -> dict[str, float]:
    """CPU seconds by kind of process (server, worker, engine host) over ``seconds`` of idling."""
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp), extra_env=extra_env)
        server.start()
        try:
            assert server.process is not None
            time.sleep(settle_s)  # the workers' warm-up and the first heartbeats are not idling
            before = cpu_seconds(server.process.pid)
            time.sleep(seconds)
            after = cpu_seconds(server.process.pid)
        finally:
            server.stop()
    return cpu_by_kind(before, after)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="idle time measured a round")
    parser.add_argument("--settle", type=float, default=30.0, help="seconds before measuring")
    parser.add_argument("--rounds", type=int, default=3, help="fresh servers, one after another")
    parser.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    extra_env = dict(kv.split("=", 1) for kv in args.server_env)
    per_minute: list[float] = []
    for n in range(1, args.rounds + 1):
        used = idle_round(args.settle, args.seconds, extra_env)
        scale = 60.0 / args.seconds  # CPU seconds a minute
        total = sum(used.values()) * scale
        per_minute.append(total)
        parts = ", ".join(f"{kind} {s * scale:.2f}" for kind, s in sorted(used.items()))
        print(f"round {n}: {total:.2f} CPU s a minute idle ({parts})", flush=True)
    median = statistics.median(per_minute)
    print(f"median {median:.2f} CPU s a minute idle over {args.rounds} rounds")


if __name__ == "__main__":
    main()
