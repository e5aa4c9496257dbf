"""A small closed-loop HTTP/1.1 load generator (keep-alive, one GET path).

Used by ``backtestd bench http`` so figures can be taken on a machine with nothing but the
project installed. Each of ``concurrency`` connections sends the next request as soon as the
previous response is read; latency is measured per request.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import numpy as np


@dataclass(frozen=True)
class LoadResult:
    requests: int
    errors: int
    seconds: float
    latencies_ms: np.ndarray

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        return float(np.percentile(self.latencies_ms, q)) if len(self.latencies_ms) else 0.0

    def summary(self) -> str:
        return (
            f"{self.requests} requests in {self.seconds:.1f} s: {self.rps:,.0f} req/s, "
            f"p50 {self.percentile(50):.2f} ms, p99 {self.percentile(99):.2f} ms, "
            f"errors {self.errors}"
        )


async def _read_response(reader: asyncio.StreamReader) -> int:
    status_line = await reader.readline()
    status = int(status_line.split()[1])
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    await reader.readexactly(length)
    return status


async def _worker(
    host: str,
    port: int,
    request: bytes,
    deadline: float,
    latencies: list[float],
    errors: list[int],
) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            writer.write(request)
            await writer.drain()
            status = await _read_response(reader)
            latencies.append((time.perf_counter() - started) * 1000)
            if status != 200:
                errors.append(status)
    finally:
        writer.close()


async def _run(url: str, concurrency: int, seconds: float) -> LoadResult:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: */*\r\n\r\n".encode()
    latencies: list[float] = []
    errors: list[int] = []
    started = time.perf_counter()
    deadline = started + seconds
    await asyncio.gather(
        *(_worker(host, port, request, deadline, latencies, errors) for _ in range(concurrency))
    )
    elapsed = time.perf_counter() - started
    return LoadResult(len(latencies), len(errors), elapsed, np.asarray(latencies))


def run_load(url: str, concurrency: int = 16, seconds: float = 10.0) -> LoadResult:
    return asyncio.run(_run(url, concurrency, seconds))
