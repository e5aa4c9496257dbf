"""The issue-26 burst: a free-tier key sends N ``GET /v1/account`` as fast as one keep-alive
connection goes, while a second (pro) user polls ``GET /v1/account`` every 50 ms from the
same address. Prints the burst's duration and status codes, the first refusal (its message
and ``Retry-After``), and the other user's statuses and latency before and during the burst.

Starts its own ``backtestd serve`` with the code on ``PYTHONPATH`` and default settings, so the
same command measures any checkout (docs/benchmarks.md, "Request rate limit")::

    PYTHONPATH=$PWD/src .venv/bin/python benchmarks/bench_rate_limit.py [--requests 600]
    PYTHONPATH=/path/to/other/checkout/src .venv/bin/python benchmarks/bench_rate_limit.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.server import LiveServer  # noqa: E402


def _token(server: LiveServer, user: str, tier: str) -> str:
    return server.token(server.create_key(user, tier=tier))


def _ms(seconds: list[float]) -> str:
    if not seconds:
        return "-"
    ordered = sorted(seconds)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms"


def run(server: LiveServer, requests: int) -> None:
    attacker = _token(server, "bench-flooder", "free")
    victim = _token(server, "bench-bystander", "pro")
    victim_client = httpx.Client(
        base_url=server.base_url, headers={"Authorization": f"Bearer {victim}"}, timeout=30
    )
    baseline = []
    for _ in range(20):
        started = time.perf_counter()
        victim_client.get("/account").raise_for_status()
        baseline.append(time.perf_counter() - started)
        time.sleep(0.05)

    answers: list[httpx.Response] = []
    elapsed = [0.0]

    def burst() -> None:
        with httpx.Client(
            base_url=server.base_url, headers={"Authorization": f"Bearer {attacker}"}, timeout=30
        ) as client:
            started = time.perf_counter()
            for _ in range(requests):
                answers.append(client.get("/account"))
            elapsed[0] = time.perf_counter() - started

    flood = threading.Thread(target=burst)
    flood.start()
    during: list[float] = []
    victim_statuses: Counter[int] = Counter()
    while flood.is_alive():
        started = time.perf_counter()
        victim_statuses[victim_client.get("/account").status_code] += 1
        during.append(time.perf_counter() - started)
        time.sleep(0.05)
    flood.join()
    victim_client.close()

    counts = Counter(a.status_code for a in answers)
    print(f"burst: {requests} GET /v1/account from a free key in {elapsed[0]:.2f} s")
    print("  statuses: " + ", ".join(f"{code}: {n}" for code, n in sorted(counts.items())))
    for code in sorted(counts):
        took = [a.elapsed.total_seconds() for a in answers if a.status_code == code]
        print(f"  {code} answers: {_ms(took)}")
    refused = next((a for a in answers if a.status_code == 429), None)
    if refused is not None:
        first = answers.index(refused)
        retry = refused.headers.get("Retry-After")
        print(f"  first 429 at request {first + 1}, Retry-After {retry}")
        print(f"  message: {refused.json()['message']}")
    print(f"bystander (pro, same address) before: {_ms(baseline)}")
    print(
        f"bystander during the burst: {sum(victim_statuses.values())} requests, statuses "
        f"{dict(victim_statuses)}, {_ms(during)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=600)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-rate-limit-") as tmp:
        server = LiveServer(Path(tmp))
        server.start()
        try:
            run(server, args.requests)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
