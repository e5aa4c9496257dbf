"""The object store protocol and the local-directory implementation.

Writes are staged: bytes go to a temporary file in the same directory and are published with
an atomic rename, so a reader sees either nothing or the whole object, never half of it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from backtestd.settings import Settings

_CHUNK = 1 << 20
STAGING_PREFIX = ".staging-"
"""Names of the files a local write stages before its rename (never an object key's)."""


class ObjectStore(Protocol):
    def get(self, key: str) -> bytes | None: ...

    def put(self, key: str, data: bytes) -> None: ...

    def exists(self, key: str) -> bool: ...

    def delete(self, key: str) -> None: ...

    def local_path(self, key: str) -> Path | None:
        """A filesystem path for memory-mapping, when the store is local."""
        ...

    def put_file(self, key: str, source: Path) -> None:
        """Publish a local file under ``key`` without reading it into memory. The store may
        take the file over instead of copying it (a hard link), so the caller must not write to
        ``source`` afterwards; removing it is fine."""
        ...

    def size(self, key: str) -> int | None:
        """The object's size in bytes, or None when it does not exist."""
        ...

    def iter_range(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The bytes ``[start, end)`` of an object in chunks (``end`` None = to the end)."""
        ...

    def presigned_get(self, key: str, expires_seconds: int) -> str | None:
        """A credential-free GET URL the store itself serves, or None when the service must
        sign and serve its own (the local store)."""
        ...

    def presigned_put(self, key: str, expires_seconds: int) -> str | None:
        """A credential-free PUT URL the store itself accepts, or None (the local store)."""
        ...

    def remove_stale_staging(self, older_than_s: float) -> int:
        """Delete what writes killed half-way left behind, untouched for ``older_than_s``;
        returns how many files went."""
        ...


def _publish_link(source: Path, path: Path) -> bool:
    """Publish ``source`` at ``path`` as a hard link (flushed to disk, then renamed into place):
    an ingest's version file or an upload's spooled body is hundreds of MB, and copying it cost
    more CPU than the ingest's checks. False when the two are on different file systems (or
    links are refused), for the caller to copy instead."""
    if path.exists() and os.path.samefile(source, path):
        return True  # already published (a retried job publishing the same file again)
    staged = path.parent / f"{STAGING_PREFIX}{os.getpid()}-{os.urandom(6).hex()}"
    try:
        os.link(source, staged)
    except OSError:
        return False
    try:
        fd = os.open(staged, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(staged, path)
    finally:
        # rename() between two links of one file does nothing and leaves ``staged``; after a
        # real rename it is gone already
        staged.unlink(missing_ok=True)
    return True


def remove_stale_files(root: Path, prefix: str, older_than_s: float) -> int:
    """Delete the files under ``root`` named ``prefix*`` whose ctime is older than
    ``older_than_s``; returns how many went.

    ctime, not mtime: a hard link (``_publish_link``) and every write renew it, so a write in
    progress anywhere (another replica on a shared store) is never taken.
    """
    cutoff = time.time() - older_than_s
    removed = 0
    for directory, _, names in os.walk(root):
        for name in names:
            if not name.startswith(prefix):
                continue
            path = Path(directory, name)
            try:
                if path.stat().st_ctime < cutoff:
                    path.unlink()
                    removed += 1
            except FileNotFoundError:
                continue  # finished (renamed) or removed meanwhile
    return removed


class LocalObjectStore:
    """Objects as files under one root directory; keys are ``/``-separated relative paths."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        parts = key.split("/")
        if not key or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"invalid object key {key!r}")
        return self.root.joinpath(*parts)

    def get(self, key: str) -> bytes | None:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            return None

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=STAGING_PREFIX, dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def local_path(self, key: str) -> Path | None:
        return self._path(key)

    def put_file(self, key: str, source: Path) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        if _publish_link(source, path):
            return
        fd, tmp = tempfile.mkstemp(prefix=STAGING_PREFIX, dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle, source.open("rb") as src:
                shutil.copyfileobj(src, handle, _CHUNK)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def size(self, key: str) -> int | None:
        try:
            return self._path(key).stat().st_size
        except FileNotFoundError:
            return None

    def iter_range(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        with self._path(key).open("rb") as handle:
            handle.seek(start)
            remaining = None if end is None else max(0, end - start)
            while remaining is None or remaining > 0:
                want = _CHUNK if remaining is None else min(_CHUNK, remaining)
                chunk = handle.read(want)
                if not chunk:
                    return
                if remaining is not None:
                    remaining -= len(chunk)
                yield chunk

    def presigned_get(self, key: str, expires_seconds: int) -> str | None:
        return None

    def presigned_put(self, key: str, expires_seconds: int) -> str | None:
        return None

    def remove_stale_staging(self, older_than_s: float) -> int:
        """Delete the staging files (``.staging-*``) of writes that never finished: a process
        killed between staging and rename leaves its file for good."""
        return remove_stale_files(self.root, STAGING_PREFIX, older_than_s)


def open_object_store(settings: Settings) -> ObjectStore:
    """The configured object store: the one place the backend is chosen."""
    if settings.object_store_url:
        from backtestd.storage.objects.s3 import S3ObjectStore

        return S3ObjectStore(
            settings.object_store_url,
            settings.data_dir.resolve() / "s3-cache",
            settings.s3_cache_max_bytes,
            endpoint_url=settings.s3_endpoint_url or None,
            public_endpoint_url=settings.resolved_s3_public_endpoint_url or None,
        )
    return LocalObjectStore(settings.resolved_object_store_dir)
