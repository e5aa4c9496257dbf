"""The S3 object store against a real S3-compatible server (moto in server mode)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from backtestd.storage.objects.s3 import S3ObjectStore, parse_s3_url
from tests.support.services import S3_TEST_CREDENTIALS, s3_server


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    saved = {k: os.environ.get(k) for k in S3_TEST_CREDENTIALS}
    os.environ.update(S3_TEST_CREDENTIALS)
    try:
        with s3_server() as url:
            yield url
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture
def store(endpoint: str, tmp_path: Path) -> S3ObjectStore:
    return S3ObjectStore(
        f"s3://bt-{tmp_path.name[-12:].lower().replace('_', '-')}/pre/fix",
        tmp_path / "cache",
        cache_max_bytes=10_000,
        endpoint_url=endpoint,
    )


def test_url_parsing() -> None:
    assert parse_s3_url("s3://bucket") == ("bucket", "")
    assert parse_s3_url("s3://bucket/a/b/") == ("bucket", "a/b/")
    with pytest.raises(ValueError, match="s3://bucket"):
        parse_s3_url("https://bucket/x")


def test_put_get_exists_size_delete(store: S3ObjectStore) -> None:
    assert store.get("a/b.bin") is None
    assert store.size("a/b.bin") is None
    assert not store.exists("a/b.bin")
    store.put("a/b.bin", b"hello world")
    assert store.get("a/b.bin") == b"hello world"
    assert store.size("a/b.bin") == 11
    assert store.exists("a/b.bin")
    store.delete("a/b.bin")
    assert store.get("a/b.bin") is None
    with pytest.raises(ValueError, match="invalid object key"):
        store.put("../escape", b"x")


def test_put_file_and_ranges(store: S3ObjectStore, tmp_path: Path) -> None:
    source = tmp_path / "big.bin"
    payload = bytes(range(256)) * 9000
    source.write_bytes(payload)
    store.put_file("files/big.bin", source)
    assert store.size("files/big.bin") == len(payload)
    assert b"".join(store.iter_range("files/big.bin")) == payload
    assert b"".join(store.iter_range("files/big.bin", 1000, 5000)) == payload[1000:5000]
    assert b"".join(store.iter_range("files/big.bin", 5, 5)) == b""


def test_local_path_is_a_bounded_read_through_cache(store: S3ObjectStore) -> None:
    store.put("cols/a.bin", b"a" * 6000)
    store.put("cols/b.bin", b"b" * 6000)
    first = store.local_path("cols/a.bin")
    assert first is not None
    assert first.read_bytes() == b"a" * 6000
    assert store.local_path("cols/a.bin") == first  # a hit, no second download
    second = store.local_path("cols/b.bin")
    assert second is not None
    assert second.read_bytes() == b"b" * 6000
    assert not first.exists()  # 12,000 bytes > the 10,000 bound: the older entry went
    store.put("cols/b.bin", b"B" * 100)  # replaced: a new ETag, never the stale copy
    fresh = store.local_path("cols/b.bin")
    assert fresh is not None
    assert fresh.read_bytes() == b"B" * 100
    assert store.local_path("cols/missing.bin") is None


def test_presigned_put_and_get_with_ranges(store: S3ObjectStore) -> None:
    put_url = store.presigned_put("up/file.bin", 600)
    assert put_url is not None
    response = httpx.put(put_url, content=b"0123456789" * 10)  # bare PUT, as the SDK does
    assert response.status_code == 200, response.text
    assert store.get("up/file.bin") == b"0123456789" * 10
    get_url = store.presigned_get("up/file.bin", 600)
    assert get_url is not None
    assert httpx.get(get_url).content == b"0123456789" * 10
    part = httpx.get(get_url, headers={"Range": "bytes=10-19"})
    assert part.status_code == 206
    assert part.content == b"0123456789"
