"""S3-compatible object store (AWS S3, MinIO, Ceph, R2, ...) through boto3.

Selected by ``BACKTESTD_OBJECT_STORE_URL=s3://bucket/prefix``; credentials and region come from
the standard ``AWS_*`` variables (boto3's own chain), a non-AWS endpoint from
``BACKTESTD_S3_ENDPOINT_URL``; presigned URLs name ``BACKTESTD_S3_PUBLIC_ENDPOINT_URL``
instead when users reach the store at another address than the service does. The bucket is
created when missing. S3 publishes an object only when its upload completes, so readers never
see half an object, as with the local store.

``local_path`` (memory-mapped prepared columns, dataset files) is a read-through cache on local
disk bounded by ``BACKTESTD_S3_CACHE_MAX_BYTES``: each entry is named after the object's ETag,
so a replaced object is never served stale, and the least recently used entries are evicted.
Presigned GET/PUT URLs are real S3 presigned URLs: the store serves them, not the service.

Credentials are read when the store opens (a boto3 session of its own, not the process-wide
default one that caches the first credentials it saw). A store that refuses them (wrong
secret, unknown key, no access to the bucket) is a ``ConfigurationError`` at start and a
non-retryable ``ServiceUnavailable`` naming the cause afterwards, never a bare botocore error.

Response checksums are validated on whole-object GETs only (``ChecksumMode``): some
S3-compatible servers (``rclone serve s3``) send the whole object's CRC with a ranged answer,
which botocore's default validation would then reject.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as EndpointUnreachable

from backtestd.errors import ConfigurationError, ServiceUnavailable
from backtestd.storage.objects.store import remove_stale_files

_CHUNK = 1 << 20
FETCH_PREFIX = ".fetch-"
_MISSING = {"404", "NoSuchKey", "NotFound"}
# What S3 and S3-compatible stores answer to a bad signature, an unknown key or no access
# (a HEAD has no body, so only its status, "403", names the cause).
_REFUSED = {
    "403",
    "AccessDenied",
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "InvalidToken",
    "ExpiredToken",
    "AuthorizationHeaderMalformed",
}


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code"))


def _missing(exc: ClientError) -> bool:
    return _code(exc) in _MISSING


def _refused(exc: ClientError) -> bool:
    return _code(exc) in _REFUSED


def _refusal(exc: ClientError, bucket: str) -> str:
    return (
        f"the object store refused the service's credentials for bucket {bucket!r} "
        f"({_code(exc)}): nothing was stored or read; check AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY (or the role) and that they grant access to the bucket"
    )


@contextmanager
def _reachable(bucket: str) -> Iterator[None]:
    """A store that cannot be reached (down, restarting, network cut) is a 503, not a 500:
    nothing was written, and the same call may succeed in a few seconds. A store that refuses
    the credentials is a 503 too, with the cause, and not retryable (an operator must act)."""
    try:
        yield
    except (EndpointUnreachable, HTTPClientError) as exc:
        raise ServiceUnavailable(
            "the object store cannot be reached right now; nothing was changed, retry in a few "
            "seconds"
        ) from exc
    except ClientError as exc:
        if not _refused(exc):
            raise
        raise ServiceUnavailable(
            _refusal(exc, bucket),
            reason="OBJECT_STORE_REFUSED",
            retryable=False,
            retry_after=None,
        ) from exc


def parse_s3_url(url: str) -> tuple[str, str]:
    """``s3://bucket/some/prefix`` -> ``("bucket", "some/prefix/")`` (prefix may be empty)."""
    parsed = urlparse(url)
    if parsed.scheme != "s3" or not parsed.netloc:
        raise ValueError(
            f"object store URL {url!r} must look like s3://bucket or s3://bucket/prefix"
        )
    prefix = parsed.path.strip("/")
    return parsed.netloc, f"{prefix}/" if prefix else ""


class S3ObjectStore:
    def __init__(
        self,
        url: str,
        cache_dir: Path,
        cache_max_bytes: int,
        endpoint_url: str | None = None,
        public_endpoint_url: str | None = None,
    ) -> None:
        self.bucket, self.prefix = parse_s3_url(url)
        session = boto3.session.Session()
        config = Config(
            signature_version="s3v4",
            retries={"max_attempts": 3},
            response_checksum_validation="when_required",
        )
        self._client: Any = session.client("s3", endpoint_url=endpoint_url or None, config=config)
        # Presigned URLs name the endpoint users reach (SigV4 signs the host, so they are
        # signed for it); presigning is local, this client never sends a request.
        public = public_endpoint_url or endpoint_url or None
        self._signer: Any = (
            self._client
            if public == (endpoint_url or None)
            else session.client("s3", endpoint_url=public, config=config)
        )
        self._cache = ReadThroughCache(cache_dir, cache_max_bytes)
        self._ensure_bucket()

    def _ensure_bucket(self) -> None:
        """Create the bucket when missing; refused credentials stop the start with the cause."""
        try:
            try:
                self._client.head_bucket(Bucket=self.bucket)
            except ClientError as exc:
                if not _missing(exc):
                    raise
                region = self._client.meta.region_name
                options: dict[str, Any] = {"Bucket": self.bucket}
                if region and region != "us-east-1":
                    options["CreateBucketConfiguration"] = {"LocationConstraint": region}
                self._client.create_bucket(**options)
        except ClientError as exc:
            if _refused(exc):
                raise ConfigurationError(_refusal(exc, self.bucket)) from exc
            raise

    def _key(self, key: str) -> str:
        parts = key.split("/")
        if not key or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"invalid object key {key!r}")
        return self.prefix + key

    def get(self, key: str) -> bytes | None:
        with _reachable(self.bucket):
            try:
                response = self._client.get_object(
                    Bucket=self.bucket, Key=self._key(key), ChecksumMode="ENABLED"
                )
            except ClientError as exc:
                if _missing(exc):
                    return None
                raise
            data: bytes = response["Body"].read()
        return data

    def put(self, key: str, data: bytes) -> None:
        with _reachable(self.bucket):
            self._client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data)

    def _head(self, key: str) -> dict[str, Any] | None:
        with _reachable(self.bucket):
            try:
                head: dict[str, Any] = self._client.head_object(
                    Bucket=self.bucket, Key=self._key(key)
                )
            except ClientError as exc:
                if _missing(exc):
                    return None
                raise
        return head

    def exists(self, key: str) -> bool:
        return self._head(key) is not None

    def delete(self, key: str) -> None:
        with _reachable(self.bucket):
            self._client.delete_object(Bucket=self.bucket, Key=self._key(key))

    def size(self, key: str) -> int | None:
        head = self._head(key)
        return None if head is None else int(head["ContentLength"])

    def put_file(self, key: str, source: Path) -> None:
        """Multipart for large files; the object appears only when the upload completes."""
        with _reachable(self.bucket):
            self._client.upload_file(str(source), self.bucket, self._key(key))

    def iter_range(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        if end is not None and end <= start:
            return
        span = f"bytes={start}-" if end is None else f"bytes={start}-{end - 1}"
        with _reachable(self.bucket):
            response = self._client.get_object(Bucket=self.bucket, Key=self._key(key), Range=span)
            yield from response["Body"].iter_chunks(_CHUNK)

    def local_path(self, key: str) -> Path | None:
        head = self._head(key)
        if head is None:
            return None
        tag = str(head.get("ETag", "")).strip('"')
        return self._cache.path_for(key, tag, lambda target: self._download(key, target))

    def _download(self, key: str, target: Path) -> None:
        with _reachable(self.bucket):
            self._client.download_file(self.bucket, self._key(key), str(target))

    def presigned_get(self, key: str, expires_seconds: int) -> str | None:
        url: str = self._signer.generate_presigned_url(
            "get_object",
            Params={"Bucket": self.bucket, "Key": self._key(key)},
            ExpiresIn=expires_seconds,
        )
        return url

    def presigned_put(self, key: str, expires_seconds: int) -> str | None:
        url: str = self._signer.generate_presigned_url(
            "put_object",
            Params={"Bucket": self.bucket, "Key": self._key(key)},
            ExpiresIn=expires_seconds,
        )
        return url

    def remove_stale_staging(self, older_than_s: float) -> int:
        """An S3 PUT is atomic; what a crash leaves is the read cache's half-done downloads."""
        return self._cache.remove_stale_fetches(older_than_s)


class ReadThroughCache:
    """Whole objects on local disk, named by key digest and ETag, LRU-bounded in bytes."""

    def __init__(self, root: Path, max_bytes: int) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        root.mkdir(parents=True, exist_ok=True)

    def path_for(self, key: str, tag: str, fetch: Any) -> Path:
        digest = hashlib.blake2b(f"{key}\n{tag}".encode(), digest_size=16).hexdigest()
        path = self.root / digest[:2] / digest
        if path.exists():
            os.utime(path)  # most recently used
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=FETCH_PREFIX, dir=path.parent)
        os.close(fd)
        try:
            fetch(Path(tmp))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._evict(keep=path)
        return path

    def remove_stale_fetches(self, older_than_s: float) -> int:
        """Delete downloads (``.fetch-*``) a killed process never renamed into place."""
        return remove_stale_files(self.root, FETCH_PREFIX, older_than_s)

    def _evict(self, keep: Path) -> None:
        """Drop least recently used entries over the bound (never the one just fetched; an
        evicted file still mapped by a reader stays readable until it is unmapped)."""
        with self._lock:
            entries = [
                (p.stat().st_mtime, p.stat().st_size, p)
                for p in self.root.glob("*/*")
                if p.is_file() and not p.name.startswith(".")
            ]
            total = sum(size for _, size, _ in entries)
            for _, size, path in sorted(entries):
                if total <= self.max_bytes:
                    break
                if path == keep:
                    continue
                path.unlink(missing_ok=True)
                total -= size
