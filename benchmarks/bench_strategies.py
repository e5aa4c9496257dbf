"""Strategy endpoint latencies on a live server: compile (cold, warm p50/p95) and validation.

"Cold" is the first registration after start-up (it includes starting the engine host JVM);
warm registrations compile distinct sources (a constant varies, so every one is a new
strategy). Validation latency is POST .../validate until the verdict is recorded, polled every
20 ms.

Run: ``.venv/bin/python benchmarks/bench_strategies.py [--count 40]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.server import LiveServer  # noqa: E402
from tests.support.strategies import source  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=40)
    args = parser.parse_args()
    template = source("ema_cross.java")
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp))
        server.start()
        try:
            token = server.token(server.create_key("bench", tier="elite"))
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "text/plain"}
            with httpx.Client(base_url=server.base_url, headers=headers, timeout=120) as client:
                timings, ids = [], []
                for i in range(args.count + 1):
                    text = template.replace('defaultValue = "21"', f'defaultValue = "{21 + i}"')
                    started = time.perf_counter()
                    response = client.post("/strategy", content=text.encode())
                    timings.append((time.perf_counter() - started) * 1000)
                    assert response.status_code == 200, response.text
                    ids.append(response.json()["strategyId"])
                cold, warm = timings[0], timings[1:]
                print(f"compile cold (incl. JVM start): {cold:.0f} ms")
                print(
                    f"compile warm over {len(warm)}: p50 {statistics.median(warm):.1f} ms, "
                    f"p95 {_pct(warm, 95):.1f} ms"
                )
                latencies = []
                for strategy_id in ids[: min(10, len(ids))]:
                    started = time.perf_counter()
                    assert client.post(f"/strategy/{strategy_id}/validate").status_code == 202
                    while client.get(f"/strategy/{strategy_id}").json()["validation"] == "pending":
                        time.sleep(0.02)
                    latencies.append((time.perf_counter() - started) * 1000)
                print(
                    f"validation (one hour of BTC/USDT ticks) over {len(latencies)}: "
                    f"p50 {statistics.median(latencies):.0f} ms, max {max(latencies):.0f} ms"
                )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
