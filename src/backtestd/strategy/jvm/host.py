"""The engine host supervisor: a long-lived JVM child that compiles and runs strategies.

``EngineHost`` owns one JVM at a time (see :mod:`backtestd.strategy.jvm.process`) and keeps the
supervision rules: the JVM starts with a versioned handshake, exits when we go away (stdin
EOF), is stopped politely then terminated then killed, is recycled after a number of requests or
above a memory ceiling, and a crash turns into a clear error (exit code and stderr tail) for the
request in flight only: the next request starts a fresh JVM. After ``limit_exceeded`` or
``out_of_memory`` the host answers and exits by design, because a runaway thread cannot be
stopped safely; that also just means a fresh JVM next time.

A failure that may come from the JVM's state rather than from the request (see
:func:`may_be_host_damage`) is never the final answer when the JVM had served earlier requests:
the host is replaced and the request runs once more on the fresh JVM, whose answer (success or
the same failure again) is what the caller gets. So a run that failed only because someone
else's request damaged the shared JVM is never stored as that job's verdict.

One request at a time per host (a lock serialises callers); use
:class:`backtestd.strategy.jvm.pool.EnginePool` for parallelism.
"""

from __future__ import annotations

import base64
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any

from backtestd.domain.backtests import ParamValue
from backtestd.strategy.jvm.jar import locate_engine_jar
from backtestd.strategy.jvm.process import Closed, HostProcess
from backtestd.strategy.jvm.protocol import PROTOCOL_VERSION, Header, Message, encode
from backtestd.strategy.jvm.results import (
    CompileResult,
    EngineHostError,
    RunFailure,
    RunFailureKind,
    RunResult,
)
from backtestd.strategy.jvm.run_request import RunRequest, param_text

log = logging.getLogger(__name__)

StopCheck = Callable[[], bool]
STOP_POLL_S = 0.2
"""How often a run in flight asks its ``should_stop`` callback."""

HOST_MAIN_CLASS = "com.wualabs.backtestd.host.HostMain"

Params = Mapping[str, ParamValue]
Outcome = RunResult | RunFailure
"""One vector's outcome in :meth:`EngineHost.run_many`: its result, or why it failed."""

MAX_BATCH = 256
"""Most vectors one ``run_batch`` request carries (the host's ``RunService.MAX_BATCH``)."""

# After these the host exits on purpose; the next request gets a fresh JVM.
_FATAL_KINDS = frozenset({RunFailureKind.LIMIT_EXCEEDED, RunFailureKind.OUT_OF_MEMORY})

# Failures that may stem from what earlier requests left in the JVM (issue 9.1(d)).
_HOST_STATE_KINDS = frozenset(
    {RunFailureKind.HOST_CRASHED, RunFailureKind.INTERNAL_ERROR, RunFailureKind.OUT_OF_MEMORY}
)


def may_be_host_damage(failure: RunFailure) -> bool:
    """Whether ``failure`` may have been caused by the JVM's state rather than by the request.

    These are retried once on a fresh JVM when the failing one had served earlier requests:

    - ``host_crashed``: the JVM died mid-request (or was killed from outside);
    - ``internal_error``: a host bug, possibly triggered by an earlier request's leftovers;
    - ``out_of_memory``: the heap may be held by something an earlier request left behind;
    - ``user_exception`` marked ``fatal``: the chain holds a ``LinkageError`` or
      ``VirtualMachineError`` about a class the strategy did not define (a JDK or engine class
      whose static initialiser failed earlier stays failed for the life of the JVM:
      ``NoClassDefFoundError: Could not initialize class java.util.Currency``);
    - ``sandbox_violation`` from the ``tripwire``: a thread or a changed JVM default was noticed
      after the request, which may have been left by an earlier one.

    Not retried, because they measure the request itself: CPU and wall-clock overruns (the
    worker thread's own CPU time), stack overflows (the worker thread's own stack), output caps,
    property errors, ordinary user exceptions, sandbox findings of the verifier, bad requests
    and cancellations.
    """
    if failure.kind in _HOST_STATE_KINDS:
        return True
    if failure.kind is RunFailureKind.USER_EXCEPTION:
        return bool(failure.details.get("fatal"))
    if failure.kind is RunFailureKind.SANDBOX_VIOLATION:
        return "tripwire" in failure.details
    return False


def class_data_archive(jar: Path) -> tuple[str, ...]:
    """The flag that maps ``jvm/build.sh``'s class-data archive, when it wrote one beside the jar.

    A host then takes the engine's, javac's and the JDK's classes already parsed and verified
    (docs/engine-host.md, "Class-data archive"): about a third less CPU to start. The JVM checks
    that the archive was written from this jar and this JVM, and ignores it otherwise (a warning
    on stderr), so a stale archive costs only the saving. Only hosts configured with
    ``class_archive`` map it: the engine ran 3-15 times slower on a host that did (see there).
    """
    archive = jar.with_suffix(".jsa")
    return (f"-XX:SharedArchiveFile={archive}",) if archive.is_file() else ()


@dataclass(frozen=True)
class HostConfig:
    """How to start and supervise an engine host. Times are seconds, sizes MiB."""

    jar: Path | None = None
    java: str = "java"
    heap_mb: int = 512
    stack_kb: int = 2048
    max_requests: int = 1000
    memory_ceiling_mb: int | None = None
    start_timeout_s: float = 30.0
    compile_timeout_s: float = 80.0
    compile_cpu_limit_s: float = 10.0
    inspect_cpu_limit_s: float = 10.0
    run_cpu_limit_s: float = 60.0
    answer_margin_s: float = 15.0
    stop_grace_s: float = 2.0
    stderr_lines: int = 50
    extra_jvm_args: tuple[str, ...] = ()
    class_archive: bool = False
    """Map ``jvm/build.sh``'s class-data archive (:func:`class_data_archive`). Off: a host that
    mapped it started 0.1 s sooner but ran a sweep's vectors 3-15 times slower (2026-11-29,
    docs/engine-host.md), a cause not yet found; kept for the tests and benchmarks that study it."""
    prime: bool = True
    """Prime the host's request path before it serves (``Prime.java``): one small kline batch
    and one ticker run of the engine's own strategies over 64 made-up rows, about 0.1 s at start.
    A fresh host's first request otherwise loaded and spun about 300 classes while its caller
    waited (a first sweep on a fresh service: 1.98 -> 1.63 s, docs/engine-host.md). Too few rows
    for the JIT to profile anything, so later runs compile as they would without it."""
    warm_up: bool = False
    """Run the host's built-in warm-up after it starts (``WarmUp.java``): a worker's host has
    the engine's hot paths compiled before its first sweep. Off for hosts that mostly compile
    (the API's) and in tests, where it would only take CPU."""

    series_cache_mb: int | None = None
    """Bytes (MiB) of indicator series the host keeps between runs, so that a sweep's vectors
    compute each series of a data-fed built-in indicator once (``RunSeries.java``; 0 computes
    none ahead). None leaves the host's default, a fifth of its heap."""

    column_cache_mb: int | None = None
    """Bytes (MiB) of heap copies of input columns the host keeps between runs, so that a
    sweep's vectors read arrays instead of the mapped files (``ColumnCache.java``; 0 keeps none,
    data larger than it is read from the files). None leaves the host's default, a fifth of its
    heap."""

    committed_heap_mb: int = 0
    """Heap committed and touched before the host serves (``-Xms`` with
    ``-XX:+AlwaysPreTouch``; at most ``heap_mb``; 0: committed as it grows). A worker's host
    fills its heap with its caches over its first sweeps; each page's first touch was system
    time of the thread that touched it, microseconds on a VM (docs/engine-host.md, "A heap
    touched at start"), and a heap that shrank after a full collection paid it again."""

    def argv(self, jar: Path) -> list[str]:
        """The java command line of one host."""
        return [
            self.java,
            f"-Xmx{self.heap_mb}m",
            "-XX:+UseSerialGC",
            # Arrays of 1 MiB and more (column copies, indicator series: kept for many runs)
            # are allocated in the old generation: each young collection copied them there,
            # 320-390 ms of pauses per host over four sweeps against 90-150 ms (gc logs,
            # docs/benchmarks.md, "Sweeps, end to end").
            "-XX:PretenureSizeThreshold=1048576",
            # After a full collection the heap keeps 10-25 % free instead of 40-70 %: a sweep
            # host's live heap is mostly its caches, whose evicted series and columns are
            # garbage in the old generation until a full collection, and the default ratios
            # grew the heap to 1.6 times that live set (engine hosts 370 -> 770 MiB of peak RSS
            # over 1,000 vectors; 490 MiB with these, the same CPU; docs/benchmarks.md).
            "-XX:MinHeapFreeRatio=10",
            "-XX:MaxHeapFreeRatio=25",
            *self._committed_heap(),
            "-XX:-UsePerfData",
            "-XX:MaxMetaspaceSize=256m",
            "-Dfile.encoding=UTF-8",
            # Reflection never generates accessor classes, so a stateless strategy's sandbox
            # loader can be kept for all its runs (SharedLoaders.java).
            "-Dsun.reflect.inflationThreshold=2147483647",
            # The JVM's own messages go to stderr: stdout carries the protocol's frames, and a
            # warning there (a class-data archive that no longer matches, say) would break them.
            "-XX:+DisplayVMOutputToStderr",
            "-Xlog:disable",
            "-Xlog:all=warning:stderr",
            *(class_data_archive(jar) if self.class_archive else ()),
            *self.extra_jvm_args,
            "-cp",
            str(jar),
            HOST_MAIN_CLASS,
            *(() if self.prime else ("--no-prime",)),
            *(("--warm-up",) if self.warm_up else ()),
            *(
                (f"--series-cache-mb={self.series_cache_mb}",)
                if self.series_cache_mb is not None
                else ()
            ),
            *(
                (f"--column-cache-mb={self.column_cache_mb}",)
                if self.column_cache_mb is not None
                else ()
            ),
        ]

    def _committed_heap(self) -> tuple[str, ...]:
        committed = min(self.committed_heap_mb, self.heap_mb)
        return (f"-Xms{committed}m", "-XX:+AlwaysPreTouch") if committed > 0 else ()

    def ceiling_bytes(self) -> int:
        """RSS above which the host is recycled (default: twice the heap plus 512 MiB)."""
        mb = self.memory_ceiling_mb or (2 * self.heap_mb + 512)
        return mb * 1024 * 1024


@dataclass(frozen=True)
class Handshake:
    """What the host announced when it started."""

    protocol: int
    host_version: str
    engine_version: str
    pid: int
    java_version: str
    engine_classes: int = 0
    """How many engine API classes the host initialised before serving (none: it refuses)."""


class EngineHost:
    """A supervised engine host JVM. Thread-safe; requests are served one at a time."""

    def __init__(self, config: HostConfig | None = None) -> None:
        self.config = config or HostConfig()
        self._lock = threading.RLock()
        self._process: HostProcess | None = None
        self._handshake: Handshake | None = None
        self._ids = itertools.count(1)
        self._requests = 0
        self._closed = False
        self.starts = 0
        """How many JVMs this host has started (more than one after a crash or recycling)."""
        self.retries = 0
        """How many requests were run again on a fresh JVM (see :func:`may_be_host_damage`)."""

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> Handshake:
        """Start the JVM now (otherwise the first request does); returns its handshake."""
        with self._lock:
            return self._ensure_started()

    def close(self) -> None:
        """Stop the JVM politely (then harder); the host cannot be used afterwards."""
        with self._lock:
            self._closed = True
            self._stop()

    def kill(self) -> None:
        """Kill the current JVM at once (SIGKILL), without waiting for a request in flight: that
        request fails with ``host_crashed``, and the next one starts a fresh JVM. For a caller
        that must stop what the JVM holds now (a live run's sessions) rather than after the
        request's own limits."""
        process = self._process
        if process is not None:
            process.kill()

    def recycle(self) -> None:
        """Stop the current JVM; the next request starts a fresh one."""
        with self._lock:
            self._stop()

    def __enter__(self) -> EngineHost:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.alive() else None

    @property
    def handshake(self) -> Handshake | None:
        return self._handshake

    @property
    def alive(self) -> bool:
        return self.pid is not None

    # -- requests ------------------------------------------------------------------------------

    def compile(self, source: str, class_name: str | None = None) -> CompileResult:
        """Compile one Java strategy source. Compile errors are a result, not an exception;
        a ``RunFailure`` means javac or the class inspection hit a limit (javac gets
        ``compile_cpu_limit_s``: a small source can make type inference explode), the class
        broke the host's tripwire, or the host crashed."""
        header: Header = {
            "op": "compile",
            "source": source,
            "cpu_limit_ms": int(self.config.inspect_cpu_limit_s * 1000),
            "compile_cpu_limit_ms": int(self.config.compile_cpu_limit_s * 1000),
        }
        if class_name is not None:
            header["class_name"] = class_name
        answer = self._request_on_sound_host(header, self.config.compile_timeout_s, "compilation")
        encoded = answer.header.get("class_files") or {}
        class_files = {name: base64.b64decode(data) for name, data in encoded.items()}
        return CompileResult.from_answer(answer.header, class_files)

    def run(self, request: RunRequest, should_stop: StopCheck | None = None) -> RunResult:
        """Run a compiled strategy over column files; raises ``RunFailure`` when it fails.

        ``should_stop`` is polled every ``STOP_POLL_S`` while the run is in flight; when it
        answers true the JVM is killed at once (the way an overrun is stopped, without the
        grace period) and the run fails with kind ``cancelled``. The next request starts a
        fresh JVM, so nothing of the cancelled run survives.
        """
        cpu = request.cpu_limit_s or self.config.run_cpu_limit_s
        wall = request.wall_limit_s or 2 * cpu + 5
        header = request.to_header(cpu, wall, self.config.stack_kb)
        answer = self._request_on_sound_host(
            header, wall + self.config.answer_margin_s, "run", should_stop=should_stop
        )
        return RunResult.from_answer(answer.header, answer.payloads)

    def run_batch(
        self,
        request: RunRequest,
        vectors: Sequence[Params],
        should_stop: StopCheck | None = None,
        check_each: bool = False,
    ) -> list[Outcome]:
        """Run ``request`` once per params map of ``vectors`` in one request to the host.

        The columns are mapped and the classes verified once; each vector still runs in its
        own class loader under the request's CPU and wall limits (each vector on its own). A
        vector that throws, or breaks a property or an output cap, comes back as its
        ``RunFailure`` and the others still run. A failure that ends the host (an overrun, out
        of memory, a crash, a tripwire) or a cancel raises ``RunFailure`` for the whole batch;
        its ``details["vector"]`` names the culprit when the host knew it. Once the batch's
        output passes the host's budget (32 MiB) the answer covers only the first vectors.

        The JVM's error counts (a swallowed ``StackOverflowError`` that may have left a class
        failed for good) are read once after the batch; when they grew after more than one
        vector ran, the answer holds no outcome at all (any vector after the unknown culprit
        may have run on a damaged JVM) and the host restarts. With ``check_each`` they are
        read after every vector instead (about 2 ms each), and the answer stops at the vector
        that did it. :meth:`run_many` turns all of that into one outcome per vector.
        """
        if not 0 < len(vectors) <= MAX_BATCH:
            raise ValueError(f"a batch holds 1 to {MAX_BATCH} vectors, got {len(vectors)}")
        cpu = request.cpu_limit_s or self.config.run_cpu_limit_s
        wall = request.wall_limit_s or 2 * cpu + 5
        header = request.to_header(cpu, wall, self.config.stack_kb)
        del header["params"]
        header["op"] = "run_batch"
        header["vectors"] = [{k: param_text(v) for k, v in p.items()} for p in vectors]
        if check_each:
            header["check_each"] = True
        answer = self._request(
            header,
            len(vectors) * wall + self.config.answer_margin_s,
            "run",
            should_stop=should_stop,
        )
        if answer.header.get("recheck"):
            return []
        return batch_outcomes(answer.header, answer.payloads, len(vectors))

    def run_many(
        self,
        request: RunRequest,
        vectors: Sequence[Params],
        should_stop: StopCheck | None = None,
    ) -> list[Outcome]:
        """One outcome per vector, through as few ``run_batch`` requests as the vectors allow.

        When a batch fails as a whole, the vector the host named gets that failure and the
        others run again in a new batch; without a name (a crash, a tripwire, an older host),
        or for a failure that may come from the JVM's state (``may_be_host_damage``), each
        vector runs alone (``run``, with its retry on a fresh JVM), so a failure only ever
        lands on the vector that caused it. A batch after which the JVM may be damaged, with
        no outcome (:meth:`run_batch`), is sent again to the fresh JVM with ``check_each``.
        Only a cancel (``RunFailureKind.CANCELLED``) and ``EngineHostError`` are raised.
        """
        outcomes: list[Outcome | None] = [None] * len(vectors)
        pending = list(range(len(vectors)))
        check_each = False
        while pending:
            chunk = pending[:MAX_BATCH]
            try:
                got = self.run_batch(request, [vectors[i] for i in chunk], should_stop, check_each)
            except RunFailure as failure:
                if failure.kind is RunFailureKind.CANCELLED:
                    raise
                culprit = failure.details.get("vector")
                # A failure that may come from the JVM's state (out of memory, which may also be
                # the batch's doing, a damaged class, a crash) is not the named vector's answer:
                # those vectors run alone, with run()'s retry on a fresh JVM, as in execute.
                named = not may_be_host_damage(failure)
                if named and isinstance(culprit, int) and 0 <= culprit < len(chunk):
                    outcomes[chunk[culprit]] = failure
                    pending.remove(chunk[culprit])
                    continue
                for i in chunk:
                    outcomes[i] = self._run_alone(request, vectors[i], should_stop)
                    pending.remove(i)
                continue
            check_each = not got  # none: the JVM may be damaged, the culprit unknown
            for i, outcome in zip(chunk, got, strict=False):  # fewer: output budget reached
                outcomes[i] = outcome
            del pending[: len(got)]
        return [o for o in outcomes if o is not None]

    def _run_alone(
        self, request: RunRequest, params: Params, should_stop: StopCheck | None
    ) -> Outcome:
        try:
            return self.run(replace(request, params=params), should_stop)
        except RunFailure as failure:
            if failure.kind is RunFailureKind.CANCELLED:
                raise
            return failure

    def request(self, header: Header, timeout: float, what: str) -> Message:
        """Send one request as it is and return the answer: an error answer raises
        ``RunFailure``, and the JVM is replaced after a fatal one, as for any request, but the
        request is never run again on a fresh JVM. For requests whose meaning lives in this
        JVM (the live sessions of :mod:`backtestd.strategy.jvm.live_session`): on another JVM
        they would mean nothing. Compare :attr:`starts` before and after to notice a new JVM."""
        return self._request(header, timeout, what)

    def ping(self) -> Header:
        """Heap figures and counters of the running host."""
        answer = self._request({"op": "ping"}, 10.0, "ping", count=0)
        return {k: v for k, v in answer.header.items() if k not in ("id", "status")}

    # -- internals -----------------------------------------------------------------------------

    def _ensure_started(self) -> Handshake:
        if self._closed:
            raise EngineHostError("engine host is closed")
        if self._process is not None and self._process.alive() and self._handshake is not None:
            return self._handshake
        self._stop()
        jar = self.config.jar or locate_engine_jar()
        process = HostProcess(self.config.argv(jar), stderr_lines=self.config.stderr_lines)
        try:
            self._handshake = self._await_hello(process)
        except BaseException:
            process.stop(self.config.stop_grace_s)
            raise
        self._process = process
        self._requests = 0
        self.starts += 1
        log.info(
            "engine host started: pid %s, engine %s",
            self._handshake.pid,
            self._handshake.engine_version,
        )
        return self._handshake

    def _await_hello(self, process: HostProcess) -> Handshake:
        try:
            first = process.receive(self.config.start_timeout_s)
        except queue.Empty:
            raise EngineHostError(
                f"engine host sent no handshake within {self.config.start_timeout_s:.0f} s; "
                + process.describe_exit()
            ) from None
        if isinstance(first, Closed):
            process.wait_exit(self.config.stop_grace_s)
            raise EngineHostError(f"engine host failed to start: {process.describe_exit()}")
        hello = first.header
        if hello.get("type") != "hello" or hello.get("protocol") != PROTOCOL_VERSION:
            raise EngineHostError(
                f"engine host speaks protocol {hello.get('protocol')!r}, this client speaks "
                f"{PROTOCOL_VERSION}; rebuild the engine jar (bash jvm/build.sh)"
            )
        return Handshake(
            protocol=int(hello["protocol"]),
            host_version=str(hello.get("host_version", "")),
            engine_version=str(hello.get("engine_version", "unknown")),
            pid=int(hello.get("pid", process.pid)),
            java_version=str(hello.get("java_version", "")),
            engine_classes=int(hello.get("engine_classes", 0)),
        )

    def _stop(self) -> None:
        process, self._process, self._handshake = self._process, None, None
        if process is not None:
            code = process.stop(self.config.stop_grace_s)
            log.info("engine host %s stopped (exit code %s)", process.pid, code)

    def _request_on_sound_host(
        self,
        header: Header,
        timeout: float,
        what: str,
        *,
        should_stop: StopCheck | None = None,
    ) -> Message:
        """``_request``, run once more on a fresh JVM when it failed in a way that may come from
        what earlier requests left in this one. A failure on a JVM that served nothing before is
        already a fresh JVM's answer and is final."""
        with self._lock:
            self._ensure_started()
            fresh = self._requests == 0
            try:
                return self._request(header, timeout, what, should_stop=should_stop)
            except RunFailure as failure:
                if fresh or not may_be_host_damage(failure):
                    raise
                log.warning(
                    "the %s failed with %s on an engine host that had served %d requests; "
                    "running it again on a fresh JVM: %.300s",
                    what,
                    failure.kind.value,
                    self._requests,
                    failure.message,
                )
            self._stop()
            self.retries += 1
            return self._request(header, timeout, what, should_stop=should_stop)

    def _request(
        self,
        header: Header,
        timeout: float,
        what: str,
        *,
        count: int = 1,
        should_stop: StopCheck | None = None,
    ) -> Message:
        with self._lock:
            self._ensure_started()
            process = self._process
            assert process is not None
            request_id = next(self._ids)
            try:
                process.send(encode({**header, "id": request_id}))
                reply = self._await_reply(process, timeout, what, should_stop)
            except OSError:
                raise self._crashed(process, what) from None
            except queue.Empty:
                process.stop(self.config.stop_grace_s)
                self._forget(process)
                raise RunFailure(
                    RunFailureKind.LIMIT_EXCEEDED,
                    f"the {what} did not finish within {timeout:.0f} s; the engine host was "
                    "stopped and will be replaced",
                ) from None
            if isinstance(reply, Closed):
                raise self._crashed(process, what)
            if reply.header.get("id") != request_id:
                process.stop(self.config.stop_grace_s)
                self._forget(process)
                raise EngineHostError(f"engine host answered out of turn: {reply.header!r:.200}")
            self._requests += count
            self._after(process, reply)
            return reply

    def _await_reply(
        self, process: HostProcess, timeout: float, what: str, should_stop: StopCheck | None
    ) -> Message | Closed:
        """The reply, waiting at most ``timeout`` in slices that poll ``should_stop``."""
        if should_stop is None:
            return process.receive(timeout)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise queue.Empty
            try:
                return process.receive(min(STOP_POLL_S, left))
            except queue.Empty:
                if should_stop():
                    process.kill()
                    self._forget(process)
                    raise RunFailure(
                        RunFailureKind.CANCELLED, f"the {what} was cancelled"
                    ) from None

    def _after(self, process: HostProcess, reply: Message) -> None:
        """Turn an error answer into RunFailure and apply the recycling rules."""
        if reply.header.get("status") == "error":
            failure = RunFailure.from_error(reply.header.get("error") or {})
            fatal = failure.kind in _FATAL_KINDS or bool(failure.details.get("fatal"))
            if fatal or not process.alive():
                process.wait_exit(self.config.stop_grace_s)
                process.stop(self.config.stop_grace_s)
                self._forget(process)
            else:
                self._maybe_recycle(process)
            raise failure
        if reply.header.get("restart"):
            # The request made the JVM throw an error that may have left a class failed for
            # good (a swallowed StackOverflowError); the host answered and exits.
            log.info("engine host %s restarts: %s", process.pid, reply.header["restart"])
            process.wait_exit(self.config.stop_grace_s)
            process.stop(self.config.stop_grace_s)
            self._forget(process)
            return
        self._maybe_recycle(process)

    def _maybe_recycle(self, process: HostProcess) -> None:
        reason = None
        if self._requests >= self.config.max_requests:
            reason = f"served {self._requests} requests"
        else:
            rss = process.rss_bytes()
            if rss is not None and rss > self.config.ceiling_bytes():
                reason = f"resident memory {rss >> 20} MiB is over the ceiling"
        if reason is not None:
            log.info("recycling engine host %s: %s", process.pid, reason)
            self._stop()

    def _crashed(self, process: HostProcess, what: str) -> RunFailure:
        process.wait_exit(self.config.stop_grace_s)
        process.stop(self.config.stop_grace_s)
        self._forget(process)
        return RunFailure(
            RunFailureKind.HOST_CRASHED,
            f"the engine host died during the {what}: {process.describe_exit()}",
            details={"exit_code": process.proc.returncode, "stderr": process.stderr_tail()},
        )

    def _forget(self, process: HostProcess) -> None:
        if self._process is process:
            self._process = None
            self._handshake = None


def batch_outcomes(
    header: Mapping[str, Any], payloads: tuple[bytes, ...], expected: int
) -> list[Outcome]:
    """The per-vector outcomes of a ``run_batch`` answer (each ok entry owns three payloads):
    one per vector, or fewer when the batch stopped at its output budget."""
    entries = header.get("results")
    if not isinstance(entries, list) or not 0 < len(entries) <= expected:
        raise EngineHostError(
            f"engine host answered a batch of {expected} vectors with "
            f"{len(entries) if isinstance(entries, list) else 'no'} results"
        )
    outcomes: list[Outcome] = []
    at = 0
    for entry in entries:
        if entry.get("status") == "ok":
            outcomes.append(RunResult.from_answer(entry, payloads[at : at + 3]))
            at += 3
        else:
            outcomes.append(RunFailure.from_error(entry.get("error") or {}))
    if at != len(payloads):
        raise EngineHostError(f"engine host sent {len(payloads)} payloads for {at // 3} results")
    return outcomes
