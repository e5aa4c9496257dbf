"""Mixed load (issue 12.6): 200 concurrent clients for 60 s against SQLite and PostgreSQL.

Each backend gets a fresh ``backtestd serve`` (embedded Dask), a pro key, and
``backtestd bench mixed`` from a separate process: token exchange, catalogue, an hour
download, strategy reads, job polls and usage, round-robin per client. Printed per backend:
per-route and overall req/s, p50/p99, status codes, broken connections, and the server's peak
RSS with its children (Dask workers, engine hosts).

Run: ``.venv/bin/python benchmarks/bench_load.py [--clients 200] [--seconds 60]``
(PostgreSQL from ``BACKTESTD_TEST_POSTGRES_URL``, default the local server; skipped if absent).

The 200 clients stand for many users but share one key and one address, so the general request
limit (per account and per address, docs/limits.md "Request rate") is lifted on the server:
it would otherwise answer most of the load with 429 and the figures would measure the limiter.
The token-exchange and download limits stay as they were (``--request-limits`` keeps all).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.server import BIN, LiveServer  # noqa: E402
from tests.support.services import temporary_postgres_database  # noqa: E402

UNLIMITED_REQUESTS = {
    "BACKTESTD_REQUESTS_PER_MINUTE_PER_ADDRESS": "0",
    "BACKTESTD_TIERS__PRO__REQUESTS_PER_MINUTE": "100000000",
}


def _run(server: LiveServer, clients: int, seconds: float) -> str:
    key = server.create_key("load", tier="pro")
    assert server.process is not None
    out = subprocess.run(
        [str(BIN), "bench", "mixed", server.base_url, "--api-key", key]
        + ["--clients", str(clients), "--seconds", str(seconds)]
        + ["--pid", str(server.process.pid)],
        capture_output=True,
        text=True,
        env=server.env,
        check=True,
    )
    return out.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--request-limits", action="store_true", help="keep the default general request limit"
    )
    args = parser.parse_args()
    for backend in ("sqlite", "postgres"):
        with ExitStack() as stack:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            url = ""
            if backend == "postgres":
                try:
                    url = stack.enter_context(temporary_postgres_database())
                except BaseException as exc:  # pytest.skip outside pytest
                    print(f"postgres: skipped ({exc})")
                    continue
            env = {} if args.request_limits else UNLIMITED_REQUESTS
            server = LiveServer(tmp, database_url=url, extra_env=env)
            server.start()
            try:
                print(f"== {backend} ==")
                print(_run(server, args.clients, args.seconds))
            finally:
                server.stop()


if __name__ == "__main__":
    main()
