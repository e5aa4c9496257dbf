"""Fair share under attack: how long another user's execute waits while a sweep holds the workers.

Attacker first: a user's sweep of CPU-bound vectors (``spins_per_run.java``, each vector about
0.3-0.6 s) on as many shards as there are workers, so every worker runs one of its shards.
Victim right after: another user's ordinary execute (EMA cross over one hour of ``sim`` ticks),
submitted while the attack runs, several times in a row; the figure is each execute's time from
submission until its result is readable. The same is measured without an attack (the baseline),
and the attacked case runs twice in one invocation: with shards giving their worker back
(``BACKTESTD_SHARD_SLICE_SECONDS``, default 2 s) and with that turned off (``0``, the behaviour
before issue 26), so the ratio is measured side by side on the same machine.

Run: ``.venv/bin/python benchmarks/bench_fair_share.py [--vectors 48] [--victims 3]``.
A script, not a test (the e2e proof is tests/e2e/test_fairness.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.server import LiveServer  # noqa: E402
from tests.support.strategies import source  # noqa: E402

SPIN_WORK = 250


class Client:
    def __init__(self, server: LiveServer, user: str) -> None:
        key = server.create_key(user, tier="pro")
        token = httpx.post(f"{server.base_url}/auth/token", headers={"X-API-Key": key}).json()
        self._headers = {"Authorization": f"Bearer {token['access_token']}"}
        self._base = server.base_url

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = httpx.request(
            method, f"{self._base}{path}", headers=self._headers, timeout=120, **kwargs
        )
        assert response.status_code < 400, response.text
        return response.json() if response.content else None

    def prepared(self) -> str:
        end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=3)
        body = {
            "instrument": "BTC/USDT",
            "from": f"{end - timedelta(hours=1):%Y-%m-%dT%H:%M:%SZ}",
            "to": f"{end:%Y-%m-%dT%H:%M:%SZ}",
        }
        job = self.call("POST", "/backtest/sim/ticker/prepare", json=body)["jobId"]
        while self.call("GET", f"/backtest/sim/ticker/prepare/{job}")["status"] != "Completed":
            time.sleep(0.2)
        return str(job)

    def strategy(self, text: str) -> str:
        return str(self.call("POST", "/strategy", content=text)["strategyId"])


def _execute_seconds(victim: Client, prepared: str, strategy: str, run: int) -> float:
    started = time.monotonic()
    body = {"prepareJobId": prepared, "strategyId": strategy, "params": {"fast": 5 + run}}
    job = victim.call("POST", "/backtest/sim/ticker/execute", json=body)["jobId"]
    while True:
        response = victim.call("GET", f"/backtest/sim/ticker/execute/{job}")
        if response and response["state"]["status"] in ("Completed", "Failed", "Aborted"):
            assert response["state"]["status"] == "Completed", response
            return time.monotonic() - started
        time.sleep(0.05)


def measure(slice_seconds: float | None, vectors: int, victims: int, workers: int) -> list[float]:
    """Victim execute times; ``slice_seconds`` None = no attack at all."""
    env = {"BACKTESTD_DASK_WORKERS": str(workers)}
    if slice_seconds is not None:
        env["BACKTESTD_SHARD_SLICE_SECONDS"] = str(slice_seconds)
    with tempfile.TemporaryDirectory(prefix="fair-share-") as root:
        server = LiveServer(Path(root), extra_env=env)
        server.start()
        try:
            attacker, victim = Client(server, "attacker"), Client(server, "victim")
            victim_prepared, victim_strategy = (
                victim.prepared(),
                victim.strategy(source("ema_cross.java")),
            )
            sweep_path = ""
            if slice_seconds is not None:
                prepared = attacker.prepared()
                spinner = attacker.strategy(source("spins_per_run.java"))
                works = [SPIN_WORK + n for n in range(vectors)]
                sweep_path = f"/backtest/sim/ticker/executeSweep/{prepared}"
                accepted = attacker.call(
                    "POST",
                    sweep_path,
                    json={
                        "strategyId": spinner,
                        "shards": workers,
                        "sweep": {"params": {"work": {"values": works}}},
                    },
                )
                sweep_path += f"/{accepted['sweepId']}"
                while attacker.call("GET", sweep_path)["progress"]["done"] == 0:
                    time.sleep(0.05)
            times = [
                _execute_seconds(victim, victim_prepared, victim_strategy, run)
                for run in range(victims)
            ]
            if sweep_path:
                done = attacker.call("GET", sweep_path)["progress"]["done"]
                print(f"  (the attacking sweep had run {done} of {vectors} vectors by then)")
            return times
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=int, default=48)
    parser.add_argument("--victims", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    cases: list[tuple[str, float | None]] = [
        ("no attack", None),
        ("attack, shards yield (slice 2 s)", 2.0),
        ("attack, shards never yield (slice 0)", 0.0),
    ]
    for name, slice_seconds in cases:
        times = measure(slice_seconds, args.vectors, args.victims, args.workers)
        shown = ", ".join(f"{t:.2f}" for t in times)
        print(f"{name}: victim execute {statistics.median(times):.2f} s median ({shown})")


if __name__ == "__main__":
    main()
