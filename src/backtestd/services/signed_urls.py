"""HMAC-signed URLs to objects, served by the API itself (the local-store stand-in for S3
presigned URLs): the URL carries its expiry and a signature over key and expiry.

Links are built from the configured public base URL (``BACKTESTD_PUBLIC_BASE_URL``), never from
the request's ``Host`` header, which a client controls. A link stops working when its object is
deleted (signals go with their strategy, see docs/limits.md), whatever its expiry.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterator
from urllib.parse import quote

from backtestd.errors import NotFound
from backtestd.storage.objects.store import ObjectStore

DEFAULT_TTL_SECONDS = 7 * 24 * 3600


class SignedUrls:
    def __init__(
        self,
        objects: ObjectStore,
        secret: str,
        public_base_url: str,
        ttl: int = DEFAULT_TTL_SECONDS,
    ) -> None:
        self._objects = objects
        self._secret = secret.encode()
        self._base_url = public_base_url.rstrip("/")
        self._ttl = ttl

    def _sign(self, key: str, expires: int) -> str:
        return hmac.new(self._secret, f"{key}\n{expires}".encode(), hashlib.sha256).hexdigest()

    def url_for(self, key: str, ttl: int | None = None) -> str | None:
        """A signed link to ``key``, or None when the object no longer exists (revoked).

        A store that presigns its own URLs (S3) answers with those; the local store's links
        point at ``/v1/files`` on this service.
        """
        if not self._objects.exists(key):
            return None
        seconds = ttl or self._ttl
        presigned = self._objects.presigned_get(key, seconds)
        if presigned is not None:
            return presigned
        expires = int(time.time()) + seconds
        return (
            f"{self._base_url}/v1/files/{quote(key)}?expires={expires}"
            f"&sig={self._sign(key, expires)}"
        )

    def size_of(self, key: str, expires: int, signature: str) -> int:
        """Check a link; the size of the object it names (for ranges and Content-Length)."""
        valid = hmac.compare_digest(self._sign(key, expires), signature)
        if not valid or expires < time.time():
            raise NotFound("this file link is invalid or has expired; fetch a new link")
        size = self._objects.size(key)
        if size is None:
            raise NotFound(
                "the file no longer exists: it was deleted with its strategy, execution or dataset"
            )
        return size

    def stream(self, key: str, start: int, end: int | None) -> Iterator[bytes]:
        """Bytes ``[start, end)`` of a checked key, in chunks."""
        return self._objects.iter_range(key, start, end)
