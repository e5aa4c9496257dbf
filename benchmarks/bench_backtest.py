"""Prepare and execute through the API on a live server (Dask LocalCluster, real JVM).

Figures: prepare time for 30 days of one-second BTC/USDT tickers (hours generated on demand
the first time, then cached), and execute time for the EMA-crossover strategy over them
(engine run, portfolio and metrics, measured from submission to the result being readable).

Run: ``.venv/bin/python benchmarks/bench_backtest.py [--days 30]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.server import LiveServer  # noqa: E402
from tests.support.strategies import source  # noqa: E402


def _wait(client: httpx.Client, path: str) -> tuple[float, dict]:  # type: ignore[type-arg]
    started = time.perf_counter()
    while True:
        response = client.get(path)
        if response.status_code == 200:
            body = response.json()
            state = body.get("state", body)
            if state["status"] in ("Completed", "Failed", "Aborted"):
                return time.perf_counter() - started, body
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=30)
    args = parser.parse_args()
    end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=2)
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp))
        server.start()
        try:
            token = server.token(server.create_key("bench", tier="elite"))
            headers = {"Authorization": f"Bearer {token}"}
            with httpx.Client(base_url=server.base_url, headers=headers, timeout=600) as client:
                strategy = client.post("/strategy", content=source("ema_cross.java").encode())
                strategy_id = strategy.json()["strategyId"]
                for label, shift in (("cold (hours generated)", 0), ("warm (hours cached)", 1)):
                    start = end - timedelta(days=args.days) - timedelta(seconds=shift)
                    body = {
                        "instrument": "BTC/USDT",
                        "from": start.isoformat(),
                        "to": (end - timedelta(seconds=shift)).isoformat(),
                    }
                    t0 = time.perf_counter()
                    job = client.post("/backtest/sim/ticker/prepare", json=body).json()["jobId"]
                    _, state = _wait(client, f"/backtest/sim/ticker/prepare/{job}")
                    prepare_s = time.perf_counter() - t0
                    print(
                        f"prepare {args.days} days {label}: {prepare_s:.1f} s, "
                        f"{state['hoursWithData']}/{state['totalHours']} hours with data"
                    )
                    t0 = time.perf_counter()
                    run = client.post(
                        "/backtest/sim/ticker/execute",
                        json={"prepareJobId": job, "strategyId": strategy_id},
                    )
                    _, result = _wait(client, f"/backtest/sim/ticker/execute/{run.json()['jobId']}")
                    execute_s = time.perf_counter() - t0
                    res = result["results"]
                    events = res["iops"]
                    print(
                        f"execute over it: {execute_s:.2f} s end to end "
                        f"({result['state']['status']}, {res.get('totalTrades', 0)} trades, "
                        f"engine {events / 1e6:.1f} M events/s)"
                    )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
