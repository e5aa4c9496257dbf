"""One incarnation of the engine host JVM: the child process, its pipes and their readers.

The supervisor (:class:`backtestd.strategy.jvm.host.EngineHost`) replaces an incarnation after a
crash, a fatal error or recycling; this class only knows how to talk to one process and how to
stop it: politely (close stdin, the host exits on EOF), then SIGTERM, then SIGKILL. Stdout is
read by a thread into a queue so that every wait has a timeout; stderr is drained by another
thread into a short tail that ends up in error messages.
"""

from __future__ import annotations

import collections
import logging
import queue
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from backtestd.strategy.jvm.protocol import Message, ProtocolError, read_message

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Closed:
    """Put on the message queue when stdout ends (the process died or closed it)."""

    reason: str


class HostProcess:
    """A running engine host JVM."""

    def __init__(self, argv: list[str], *, stderr_lines: int = 50) -> None:
        self.argv = argv
        self._messages: queue.Queue[Message | Closed] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=stderr_lines)
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            close_fds=True,
            # Terminal signals (Ctrl-C) go to the supervisor, which stops the host itself; the
            # host still exits on its own when the supervisor dies (stdin EOF).
            start_new_session=True,
        )
        self._out_thread = threading.Thread(
            target=self._read_stdout, name=f"engine-host-{self.proc.pid}-out", daemon=True
        )
        self._err_thread = threading.Thread(
            target=self._read_stderr, name=f"engine-host-{self.proc.pid}-err", daemon=True
        )
        self._out_thread.start()
        self._err_thread.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, data: bytes) -> None:
        """Write one encoded message; raises ``OSError`` (e.g. BrokenPipeError) if it died."""
        stdin = self.proc.stdin
        if stdin is None or stdin.closed:
            raise BrokenPipeError("engine host stdin is closed")
        stdin.write(data)
        stdin.flush()

    def receive(self, timeout: float) -> Message | Closed:
        """The next message; raises ``queue.Empty`` after ``timeout`` seconds."""
        return self._messages.get(timeout=timeout)

    def kill(self) -> int | None:
        """Stop at once (a cancelled run): SIGKILL, then reap it like :meth:`stop` does."""
        if self.proc.poll() is None:
            self.proc.kill()
        return self.stop(grace_s=2.0)

    def stop(self, grace_s: float = 2.0) -> int | None:
        """Stop politely, then terminate, then kill; return the exit code."""
        try:
            if self.proc.stdin is not None and not self.proc.stdin.closed:
                self.proc.stdin.close()
        except OSError:
            pass  # already broken: the process is going away anyway
        for step in (None, self.proc.terminate, self.proc.kill):
            if step is not None and self.proc.poll() is None:
                step()
            try:
                self.proc.wait(timeout=grace_s)
                break
            except subprocess.TimeoutExpired:
                continue
        self._out_thread.join(timeout=grace_s)
        self._err_thread.join(timeout=grace_s)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return self.proc.returncode

    def wait_exit(self, timeout: float) -> int | None:
        """Wait for the process to exit on its own (after a fatal answer)."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    def rss_bytes(self) -> int | None:
        """Resident memory of the JVM (Linux ``/proc``), or None when unknown."""
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return None

    def describe_exit(self) -> str:
        """A sentence about how the process ended, with the tail of its stderr."""
        code = self.proc.poll()
        if code is not None:
            # stdout can end before the stderr reader has seen the last lines; let it catch up
            self._err_thread.join(timeout=1.0)
        state = "is still running" if code is None else f"exited with code {code}"
        tail = self.stderr_tail().strip()
        return f"engine host (pid {self.proc.pid}) {state}" + (
            f"; stderr tail:\n{tail}" if tail else ""
        )

    def _read_stdout(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        try:
            while True:
                message = read_message(stream)
                if message is None:
                    self._messages.put(Closed("end of output"))
                    return
                self._messages.put(message)
        except (ProtocolError, OSError, ValueError) as exc:
            self._messages.put(Closed(f"unreadable output: {exc}"))

    def _read_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        try:
            for raw in stream:
                line = raw.decode("utf-8", errors="replace").rstrip("\n")
                self._stderr.append(line)
                log.debug("engine host %s: %s", self.proc.pid, line)
        except (OSError, ValueError):
            return
