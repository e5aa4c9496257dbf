"""Foundation benchmarks against a real server process on loopback.

Figures: requests per second and latency for ``GET /v1/exchanges`` and the sim spot
instrument listing under a closed-loop load generator (a separate process), and the time to
serve a cached hour versus generating an uncached one.

Run: ``.venv/bin/python benchmarks/bench_http.py [--seconds 10] [--concurrency 16]``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.server import BIN, LiveServer  # noqa: E402


def _load(url: str, seconds: float, concurrency: int) -> str:
    out = subprocess.run(
        [
            str(BIN),
            "bench",
            "http",
            url,
            "--seconds",
            str(seconds),
            "--concurrency",
            str(concurrency),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def _hours(server: LiveServer, pair: str, hours: list[datetime]) -> list[float]:
    times = []
    with httpx.Client(timeout=60) as client:
        for hour in hours:
            started = time.perf_counter()
            response = client.get(
                f"{server.base_url}/exchange/sim/tickers/{pair}",
                params={"hour": f"{hour:%Y-%m-%dT%H}"},
            )
            times.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.text
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # Thousands of requests a second from one address: lift the per-address request
        # limit (docs/limits.md, "Request rate"), or the figures would be the limiter's 429s.
        server = LiveServer(Path(tmp), extra_env={"BACKTESTD_REQUESTS_PER_MINUTE_PER_ADDRESS": "0"})
        server.start()
        try:
            httpx.get(f"{server.base_url}/exchange/sim/instruments", timeout=60)  # warm
            for path in ("/exchanges", "/exchange/sim/instruments"):
                print(_load(f"{server.base_url}{path}", args.seconds, args.concurrency))
            now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
            hours = [now - timedelta(hours=100 + i) for i in range(30)]
            uncached = _hours(server, "BTC/USDT", hours)
            cached = _hours(server, "BTC/USDT", hours)
            for name, values in (
                ("uncached (generate+encode+store)", uncached),
                ("cached", cached),
            ):
                print(
                    f"BTC/USDT ticker hour {name}: median {statistics.median(values):.1f} ms, "
                    f"max {max(values):.1f} ms over {len(values)} hours"
                )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
