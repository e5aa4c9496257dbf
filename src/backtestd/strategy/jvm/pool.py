"""A small pool of engine hosts with thread-safe checkout.

Each backtestd worker runs a few strategies at a time; each needs a whole host for the duration
of a request (hosts serve one request at a time). Hosts are started lazily by their first
request, or all at once with :meth:`EnginePool.start` to take the JVM start-up off the first
request's latency.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType

from backtestd.strategy.jvm.host import EngineHost, HostConfig, Outcome, Params, StopCheck
from backtestd.strategy.jvm.results import CompileResult, EngineHostError, RunResult
from backtestd.strategy.jvm.run_request import RunRequest


class EnginePool:
    """``size`` engine hosts sharing one configuration."""

    def __init__(self, size: int, config: HostConfig | None = None) -> None:
        if size < 1:
            raise ValueError("an engine pool needs at least one host")
        self.hosts = tuple(EngineHost(config) for _ in range(size))
        self._idle: queue.LifoQueue[EngineHost] = queue.LifoQueue()
        for host in self.hosts:
            self._idle.put(host)
        self._closed = threading.Event()

    def start(self) -> None:
        """Start every host now, in parallel (JVM start-up dominates)."""
        errors: list[BaseException] = []

        def start_one(host: EngineHost) -> None:
            try:
                host.start()
            except BaseException as exc:  # reported below, after all threads finish
                errors.append(exc)

        threads = [threading.Thread(target=start_one, args=(h,)) for h in self.hosts]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]

    @contextmanager
    def checkout(self, timeout: float | None = None) -> Iterator[EngineHost]:
        """Borrow a host for the duration of the ``with`` block."""
        if self._closed.is_set():
            raise EngineHostError("engine pool is closed")
        try:
            host = self._idle.get(timeout=timeout)
        except queue.Empty:
            raise EngineHostError(f"no engine host became free within {timeout} s") from None
        try:
            yield host
        finally:
            self._idle.put(host)

    def compile(self, source: str, class_name: str | None = None) -> CompileResult:
        with self.checkout() as host:
            return host.compile(source, class_name)

    def run(self, request: RunRequest, should_stop: StopCheck | None = None) -> RunResult:
        with self.checkout() as host:
            return host.run(request, should_stop)

    def run_many(
        self,
        request: RunRequest,
        vectors: Sequence[Params],
        should_stop: StopCheck | None = None,
    ) -> list[Outcome]:
        """One outcome per params map, on one host (see :meth:`EngineHost.run_many`)."""
        with self.checkout() as host:
            return host.run_many(request, vectors, should_stop)

    def close(self) -> None:
        """Stop every host. Hosts checked out at the time stop after their request ends."""
        self._closed.set()
        for host in self.hosts:
            host.close()

    def __enter__(self) -> EnginePool:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
