"""A real ``backtestd serve`` process on a free loopback port, and its CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import httpx

from tests.support.ports import free_port

BIN = Path(sys.executable).with_name("backtestd")
# A developer's exported BACKTESTD_* settings never reach a test server; these harness
# switches do.
HARNESS_PREFIXES = ("BACKTESTD_REQUIRE_SERVICES", "BACKTESTD_TEST_")


def is_service_setting(name: str) -> bool:
    """A ``BACKTESTD_*`` variable that configures the service (not the test harness)."""
    return name.startswith("BACKTESTD_") and not name.startswith(HARNESS_PREFIXES)


def harness_environment() -> dict[str, str]:
    """This process's environment without the developer's service settings."""
    return {k: v for k, v in os.environ.items() if not is_service_setting(k)}


@contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    """``os.environ`` is ``env`` inside the block (settings are read from the environment)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


PORT_TAKEN = "Address already in use"
"""What ``backtestd serve`` says when its port is taken (``cli/serve.py``)."""


class LiveServer:
    """Starts the service the way users do; ``stop`` terminates it."""

    def __init__(
        self, data_dir: Path, database_url: str = "", extra_env: dict[str, str] | None = None
    ):
        self.data_dir = data_dir
        self.env = {
            **harness_environment(),
            "BACKTESTD_DATA_DIR": str(data_dir),
            "BACKTESTD_HOST": "127.0.0.1",
            **({"BACKTESTD_DATABASE_URL": database_url} if database_url else {}),
            **(extra_env or {}),
        }
        self._move_to(free_port())
        self.log_path = data_dir / "server.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 180.0) -> None:
        """Wait up to ``timeout`` for the API to answer: a loaded 2-core machine (a CI run beside
        other work) has been seen to need over 60 s for the Dask workers and the JVM.

        A port found free when this server was made can be taken before it binds (a run of the
        suite saw a replica of ``test_cluster`` refused with "Address already in use"): the
        server then exits at once, saying so, and starts again on another free port."""
        for attempt in range(3):
            self.start_process()
            try:
                self.wait_until_answering(timeout)
                return
            except RuntimeError:
                if attempt == 2 or PORT_TAKEN not in self.log_path.read_text():
                    raise
            self._move_to(free_port())

    def _move_to(self, port: int) -> None:
        """Listen on ``port``: the address tests use and the setting the server reads."""
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}/v1"
        self.env["BACKTESTD_PORT"] = str(port)

    def start_process(self) -> None:
        """Launch ``backtestd serve`` without waiting for it."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [str(BIN), "serve"], env=self.env, stdout=log, stderr=subprocess.STDOUT
            )

    def wait_until_answering(self, timeout: float = 180.0) -> None:
        assert self.process is not None, "start_process first"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log_path.read_text()}")
            try:
                if httpx.get(f"{self.base_url}/exchanges", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"server did not start in {timeout}s:\n{self.log_path.read_text()}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [str(BIN), *args], env=self.env, capture_output=True, text=True, timeout=120
        )
        if check and result.returncode != 0:
            raise AssertionError(f"backtestd {' '.join(args)} failed:\n{result.stderr}")
        return result

    def create_key(self, user: str, tier: str = "pro", expires: str | None = None) -> str:
        """A key with every scope, made by the key administration ``backtestd apikey create``
        runs, in this process and with this server's settings.

        Most tests need a key only to get going; a ``backtestd`` process per key cost about a
        second of start-up (CPU, most of it imports) each, several minutes a suite. The command
        itself is driven by the tests of the CLI (``cli("apikey", "create", ...)``).
        """
        from backtestd.services.key_admin import key_admin
        from backtestd.settings import load_settings

        expires_at = datetime.fromisoformat(expires.replace("Z", "+00:00")) if expires else None
        with _environment(self.env):
            settings = load_settings()
        with key_admin(settings) as auth:
            _record, raw_key = auth.create_key(user, tier, expires_at)
        return raw_key

    def token(self, key: str) -> str:
        response = httpx.post(f"{self.base_url}/auth/token", headers={"X-API-Key": key})
        assert response.status_code == 200, response.text
        return str(response.json()["access_token"])
