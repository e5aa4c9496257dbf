"""The S3 object store against a server that checks signatures (``rclone serve s3``).

moto (``test_s3_store.py``) proves presigned PUT/GET and 206 ranges but accepts any signature;
these tests prove the other half: with the right secret every call of the store works, and
with a wrong one (at start, or after the store's keys were rotated under a running service)
every call is refused with a clear error and nothing is stored. A tampered or expired
presigned URL is refused by the store too.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from backtestd.errors import ConfigurationError, ServiceUnavailable
from backtestd.storage.objects.s3 import S3ObjectStore
from tests.support.ports import free_port
from tests.support.server import BIN, harness_environment
from tests.support.services import rclone_s3_server
from tests.support.tcp_proxy import TcpProxy

ACCESS_KEY = "backtestd-rclone"
SECRET = "backtestd-rclone-secret"


@pytest.fixture
def credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def served(tmp_path: Path) -> Path:
    root = tmp_path / "served"
    root.mkdir()
    return root


@pytest.fixture
def endpoint(served: Path, credentials: None) -> Iterator[str]:
    with rclone_s3_server(served, ACCESS_KEY, SECRET) as url:
        yield url


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _open(endpoint: str, tmp_path: Path, bucket: str = "bt-signed") -> S3ObjectStore:
    return S3ObjectStore(
        f"s3://{bucket}/pre", tmp_path / "cache", cache_max_bytes=1 << 30, endpoint_url=endpoint
    )


def test_store_with_the_right_secret_puts_gets_ranges_and_deletes(
    endpoint: str, served: Path, tmp_path: Path
) -> None:
    store = _open(endpoint, tmp_path)
    assert (served / "bt-signed").is_dir()  # created at start
    assert store.get("a/b.bin") is None
    store.put("a/b.bin", b"hello world")
    assert store.get("a/b.bin") == b"hello world"
    assert store.exists("a/b.bin")
    assert store.size("a/b.bin") == 11
    assert b"".join(store.iter_range("a/b.bin", 2, 5)) == b"llo"
    assert b"".join(store.iter_range("a/b.bin", 6)) == b"world"
    source = tmp_path / "big.bin"
    payload = os.urandom(9 * (1 << 20))  # over boto3's 8 MiB multipart threshold
    source.write_bytes(payload)
    store.put_file("files/big.bin", source)
    assert store.size("files/big.bin") == len(payload)
    cached = store.local_path("files/big.bin")
    assert cached is not None
    assert cached.read_bytes() == payload
    assert _files(served) == ["bt-signed/pre/a/b.bin", "bt-signed/pre/files/big.bin"]
    store.delete("a/b.bin")
    store.delete("files/big.bin")
    assert store.get("a/b.bin") is None
    assert _files(served) == []


def test_store_with_a_wrong_secret_is_refused_at_start_and_nothing_is_stored(
    endpoint: str, served: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
    with pytest.raises(ConfigurationError) as refused:
        _open(endpoint, tmp_path, bucket="bt-new")
    message = refused.value.message
    assert "refused the service's credentials" in message
    assert "'bt-new' (403)" in message  # a HEAD's refusal has no body: its status names it
    assert "AWS_SECRET_ACCESS_KEY" in message
    assert list(served.iterdir()) == []  # no bucket created


def test_serve_with_a_wrong_secret_stops_at_start_with_the_reason(
    endpoint: str, served: Path, tmp_path: Path
) -> None:
    env = {
        **harness_environment(),
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": "not-the-secret",
        "AWS_REGION": "us-east-1",
        "BACKTESTD_DATA_DIR": str(tmp_path / "data"),
        "BACKTESTD_PORT": str(free_port()),
        "BACKTESTD_OBJECT_STORE_URL": "s3://bt-serve/objects",
        "BACKTESTD_S3_ENDPOINT_URL": endpoint,
    }
    result = subprocess.run(
        [str(BIN), "serve"], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "refused the service's credentials for bucket 'bt-serve'" in result.stderr
    assert "Traceback" not in result.stderr
    assert list(served.iterdir()) == []


def test_store_whose_keys_were_rotated_refuses_every_call_clearly(
    served: Path, tmp_path: Path, credentials: None
) -> None:
    port = free_port()
    with rclone_s3_server(served, ACCESS_KEY, SECRET, port=port) as url:
        store = _open(url, tmp_path)
        store.put("kept.bin", b"kept")
    # The same server comes back with a new secret; the running store still signs with the old.
    with rclone_s3_server(served, ACCESS_KEY, "rotated-secret", port=port):
        calls = {
            "put": lambda: store.put("new.bin", b"x"),
            "get": lambda: store.get("kept.bin"),
            "size": lambda: store.size("kept.bin"),
            "range": lambda: b"".join(store.iter_range("kept.bin", 0, 2)),
            "local_path": lambda: store.local_path("kept.bin"),
            "delete": lambda: store.delete("kept.bin"),
        }
        for name, call in calls.items():
            with pytest.raises(ServiceUnavailable) as refused:
                call()
            error = refused.value
            assert error.reason == "OBJECT_STORE_REFUSED", name
            assert not error.retryable, name
            assert error.retry_after is None, name
            assert "refused the service's credentials" in error.message, name
    assert _files(served) == ["bt-signed/pre/kept.bin"]  # nothing added, nothing deleted


def test_presigned_urls_are_refused_when_tampered_or_expired(
    endpoint: str, served: Path, tmp_path: Path
) -> None:
    store = _open(endpoint, tmp_path)
    put_url = store.presigned_put("up/file.bin", 600)
    assert put_url is not None
    assert httpx.put(put_url, content=b"0123456789").status_code == 200
    assert store.get("up/file.bin") == b"0123456789"
    other_key = put_url.replace("/up/file.bin?", "/up/other.bin?")
    assert httpx.put(other_key, content=b"evil").status_code == 403
    signature = put_url.rsplit("X-Amz-Signature=", 1)[1]
    forged = put_url.replace(signature, ("0" if signature[0] != "0" else "1") + signature[1:])
    assert httpx.put(forged, content=b"evil").status_code == 403
    get_url = store.presigned_get("up/file.bin", 600)
    assert get_url is not None
    assert httpx.get(get_url).content == b"0123456789"
    short = store.presigned_get("up/file.bin", 1)
    assert short is not None
    time.sleep(2.1)
    expired = httpx.get(short)
    assert expired.status_code in (400, 403)
    assert b"AccessDenied" in expired.content
    assert _files(served) == ["bt-signed/pre/up/file.bin"]


def test_presigned_urls_name_the_public_endpoint_while_the_store_uses_its_own(
    endpoint: str, served: Path, tmp_path: Path
) -> None:
    """The service reaches the store at one address, users at another (here a TCP proxy in
    front of it, as a published port or a load balancer would be): presigned URLs carry the
    public host, signed for it, and the store's own calls never go through it."""
    target = urlsplit(endpoint)
    public = TcpProxy(target.hostname or "127.0.0.1", target.port or 80)
    public.start()
    try:
        public_url = f"http://127.0.0.1:{public.port}"
        store = S3ObjectStore(
            "s3://bt-public/pre",
            tmp_path / "cache",
            cache_max_bytes=1 << 20,
            endpoint_url=endpoint,
            public_endpoint_url=public_url,
        )
        put_url = store.presigned_put("up/file.bin", 600)
        assert put_url is not None
        assert put_url.startswith(f"{public_url}/bt-public/pre/up/file.bin?")
        assert httpx.put(put_url, content=b"through the public door").status_code == 200
        get_url = store.presigned_get("up/file.bin", 600)
        assert get_url is not None
        assert get_url.startswith(f"{public_url}/")
        assert httpx.get(get_url).content == b"through the public door"
        # Signed for the public host: the same URL sent to the internal address is refused.
        internal = get_url.replace(public_url, endpoint)
        assert httpx.get(internal).status_code == 403
        public.cut()  # users' door closed: the service's own calls do not notice
        store.put("own.bin", b"direct")
        assert store.get("own.bin") == b"direct"
        assert store.get("up/file.bin") == b"through the public door"
    finally:
        if public.running:
            public.cut()
    assert _files(served) == ["bt-public/pre/own.bin", "bt-public/pre/up/file.bin"]
