"""``backtestd bench``: measurements a user can reproduce on their own machine."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

import httpx
import typer

from backtestd.api.schemas.backtests import PrepareAccepted
from backtestd.api.schemas.strategies import CompileStrategyResponse
from backtestd.cli.http_load import run_load
from backtestd.cli.mixed_load import run_mixed, standard_mix

app = typer.Typer(help="Benchmarks (figures, not pass/fail).")

BENCH_STRATEGY = """\
strategy "bench crossover"

param fast = 9
param slow = 21

setup:
  ema(fast)
  ema(slow)
  window price s5 {
    if (value("ema" + fast) > value("ema" + slow) && !store.is("long")) {
      store.set("long");
      emitBuy(price);
    }
    if (value("ema" + fast) < value("ema" + slow) && store.is("long")) {
      store.unset("long");
      emitSell(price);
    }
  }
"""


@app.command("http")
def http(
    url: Annotated[
        str, typer.Argument(help="Full URL to GET, e.g. http://127.0.0.1:8080/v1/exchanges")
    ],
    concurrency: Annotated[int, typer.Option(help="Open connections")] = 16,
    seconds: Annotated[float, typer.Option(help="Duration")] = 10.0,
) -> None:
    """Closed-loop GET load against a running server: requests per second and latency."""
    result = run_load(url, concurrency, seconds)
    typer.echo(f"{url}: {result.summary()}")


@app.command("mixed")
def mixed(
    base_url: Annotated[str, typer.Argument(help="The server, e.g. http://127.0.0.1:8080")],
    api_key: Annotated[str, typer.Option(help="A key of a user the load acts as")],
    clients: Annotated[int, typer.Option(help="Concurrent keep-alive clients")] = 200,
    seconds: Annotated[float, typer.Option(help="Duration")] = 60.0,
    pid: Annotated[
        int | None, typer.Option(help="The server's pid: report its peak RSS (with children)")
    ] = None,
) -> None:
    """A mixed workload (token, catalogue, a download, strategy reads, job polls) from many
    clients: per-route throughput, p50/p99 and status codes (429s are limits, not errors)."""
    root = base_url.rstrip("/").removesuffix("/v1")
    token, strategy_id, job_id, hour = _fixtures(root, api_key)
    mix = standard_mix(api_key, token, hour, strategy_id, job_id)
    sampler = _RssSampler(pid)
    result = run_mixed(root, mix, clients, seconds)
    peak = sampler.stop()
    typer.echo(f"{clients} clients for {result.seconds:.0f} s against {root}")
    typer.echo(result.table())
    total = result.requests
    server_errors = sum(n for code, n in result.statuses().items() if code >= 500)
    typer.echo(f"throughput {total / result.seconds:,.0f} req/s; 5xx answers: {server_errors}")
    if peak is not None:
        typer.echo(f"server peak RSS (with its children): {peak / 2**20:,.0f} MiB")
    own = _own_peak_rss(pid) if pid else None
    if own is not None:
        typer.echo(f"server process alone, peak RSS (VmHWM): {own / 2**20:,.0f} MiB")


def _fixtures(root: str, api_key: str) -> tuple[str, str, str, str]:
    """A token, a registered strategy, a completed prepare and a warm download hour."""
    with httpx.Client(base_url=f"{root}/v1", timeout=120) as client:
        issued = client.post("/auth/token", headers={"X-API-Key": api_key})
        issued.raise_for_status()
        token = str(issued.json()["access_token"])
        client.headers["Authorization"] = f"Bearer {token}"
        registered = client.post("/strategy", content=BENCH_STRATEGY.encode())
        registered.raise_for_status()
        end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=3)
        body = {
            "instrument": "BTC/USDT",
            "from": f"{end - timedelta(hours=1):%Y-%m-%dT%H:%M:%SZ}",
            "to": f"{end:%Y-%m-%dT%H:%M:%SZ}",
        }
        prepared = client.post("/backtest/sim/ticker/prepare", json=body)
        prepared.raise_for_status()
        job_id = PrepareAccepted.model_validate(prepared.json()).jobId
        deadline = time.monotonic() + 300
        while client.get(f"/backtest/sim/ticker/prepare/{job_id}").json()["status"] != (
            "Completed"
        ):
            if time.monotonic() > deadline:
                raise typer.BadParameter(f"the bench prepare {job_id} did not complete")
            time.sleep(0.5)
        hour = f"{end - timedelta(hours=1):%Y-%m-%dT%H}"
        client.get(f"/exchange/sim/tickers/BTC/USDT?hour={hour}").raise_for_status()
    return token, CompileStrategyResponse.model_validate(registered.json()).strategyId, job_id, hour


class _RssSampler:
    """Peak resident memory of a process and its descendants, sampled every 0.5 s."""

    def __init__(self, pid: int | None) -> None:
        import threading

        self._pid = pid
        self._peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True) if pid else None
        if self._thread is not None:
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            self._peak = max(self._peak, _tree_rss(self._pid or 0))

    def stop(self) -> int | None:
        if self._thread is None:
            return None
        self._stop.set()
        self._thread.join()
        return self._peak


def _own_peak_rss(pid: int) -> int | None:
    """The process's own high-water resident memory (``VmHWM``), children excluded."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return None


def _tree_rss(pid: int) -> int:
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        proc = Path(f"/proc/{current}")
        try:
            status = (proc / "status").read_text()
            total += next(
                int(line.split()[1]) * 1024
                for line in status.splitlines()
                if line.startswith("VmRSS:")
            )
            for task in (proc / "task").iterdir():
                children = (task / "children").read_text().split()
                todo.extend(int(c) for c in children)
        except (OSError, StopIteration, ValueError):
            continue
    return total
