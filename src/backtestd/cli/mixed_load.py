"""A mixed closed-loop workload: what many users of one service do at once.

Each of ``clients`` keep-alive connections cycles through a fixed mix (token exchange,
catalogue, an hour download, strategy reads, job polls), sending the next request as soon as
the previous answer is read. The figures are per route and overall: throughput, p50/p99 and
the status codes, so a 429 (a limit doing its job) is told apart from an error.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import numpy as np


@dataclass(frozen=True)
class Call:
    """One request of the mix; ``name`` groups the figures."""

    name: str
    method: str
    path: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""

    def encode(self, host: str) -> bytes:
        lines = [f"{self.method} {self.path} HTTP/1.1", f"Host: {host}", "Accept: */*"]
        lines += [f"{k}: {v}" for k, v in self.headers]
        if self.body or self.method in ("POST", "PUT"):
            lines.append(f"Content-Length: {len(self.body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + self.body


@dataclass
class RouteFigures:
    latencies_ms: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)


@dataclass(frozen=True)
class MixedResult:
    seconds: float
    routes: dict[str, RouteFigures]
    failures: int
    """Connections that broke (reset, refused, unreadable answer)."""

    @property
    def requests(self) -> int:
        return sum(len(r.latencies_ms) for r in self.routes.values())

    def statuses(self) -> Counter[int]:
        total: Counter[int] = Counter()
        for route in self.routes.values():
            total.update(route.statuses)
        return total

    def table(self) -> str:
        def line(name: str, lat: list[float], statuses: Counter[int]) -> str:
            array = np.asarray(lat) if lat else np.zeros(1)
            codes = ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items()))
            return (
                f"{name:<12} {len(lat):>8} {len(lat) / self.seconds:>9,.0f} "
                f"{np.percentile(array, 50):>8.1f} {np.percentile(array, 99):>8.1f}  {codes}"
            )

        rows = [f"{'route':<12} {'requests':>8} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}  statuses"]
        for name, figures in sorted(self.routes.items()):
            rows.append(line(name, figures.latencies_ms, figures.statuses))
        every = [x for r in self.routes.values() for x in r.latencies_ms]
        rows.append(line("all", every, self.statuses()))
        rows.append(f"broken connections: {self.failures}")
        return "\n".join(rows)


async def _read_response(reader: asyncio.StreamReader) -> int:
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("the server closed the connection")
    status = int(status_line.split()[1])
    length, chunked = 0, False
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.partition(b":")
        key = name.strip().lower()
        if key == b"content-length":
            length = int(value.strip())
        elif key == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
    if not chunked:
        await reader.readexactly(length)
        return status
    while True:
        size = int((await reader.readline()).split(b";")[0].strip(), 16)
        await reader.readexactly(size + 2)  # the chunk and its CRLF
        if size == 0:
            return status


async def _client(
    host: str,
    port: int,
    mix: list[tuple[Call, bytes]],
    offset: int,
    deadline: float,
    routes: dict[str, RouteFigures],
    failures: list[int],
) -> None:
    index = offset
    while time.perf_counter() < deadline:
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            failures.append(1)
            await asyncio.sleep(0.1)
            continue
        try:
            while time.perf_counter() < deadline:
                call, raw = mix[index % len(mix)]
                index += 1
                started = time.perf_counter()
                writer.write(raw)
                await writer.drain()
                status = await _read_response(reader)
                figures = routes[call.name]
                figures.latencies_ms.append((time.perf_counter() - started) * 1000)
                figures.statuses[status] += 1
        except (OSError, ConnectionError, ValueError, asyncio.IncompleteReadError):
            failures.append(1)
        finally:
            writer.close()


async def _run(base_url: str, mix: list[Call], clients: int, seconds: float) -> MixedResult:
    parts = urlsplit(base_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    encoded = [(call, call.encode(f"{host}:{port}")) for call in mix]
    routes = {call.name: RouteFigures() for call in mix}
    failures: list[int] = []
    started = time.perf_counter()
    deadline = started + seconds
    await asyncio.gather(
        *(_client(host, port, encoded, i, deadline, routes, failures) for i in range(clients))
    )
    return MixedResult(time.perf_counter() - started, routes, len(failures))


def run_mixed(base_url: str, mix: list[Call], clients: int, seconds: float) -> MixedResult:
    """Run ``mix`` from ``clients`` connections for ``seconds`` against ``base_url``."""
    return asyncio.run(_run(base_url, mix, clients, seconds))


def standard_mix(
    api_key: str, token: str, hour: str, strategy_id: str, prepare_job_id: str
) -> list[Call]:
    """The users' mix: catalogue reads dominate, with a token exchange, a download, strategy
    reads and job polls in every cycle (``/v1`` paths)."""
    bearer = (("Authorization", f"Bearer {token}"),)
    return [
        Call("exchanges", "GET", "/v1/exchanges"),
        Call("instruments", "GET", "/v1/exchange/sim/instruments"),
        Call("token", "POST", "/v1/auth/token", (("X-API-Key", api_key),)),
        Call("download", "GET", f"/v1/exchange/sim/tickers/BTC/USDT?hour={hour}", bearer),
        Call("strategies", "GET", "/v1/strategies", bearer),
        Call("strategy", "GET", f"/v1/strategy/{strategy_id}", bearer),
        Call("poll", "GET", f"/v1/backtest/sim/ticker/prepare/{prepare_job_id}", bearer),
        Call("account", "GET", "/v1/account/usage", bearer),
    ]
