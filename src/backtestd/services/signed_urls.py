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

    def url_for(self, key: str) -> str | None:
        """A signed link to ``key``, or None when the object no longer exists (revoked)."""
        if not self._objects.exists(key):
            return None
        expires = int(time.time()) + self._ttl
        return (
            f"{self._base_url}/v1/files/{quote(key)}?expires={expires}"
            f"&sig={self._sign(key, expires)}"
        )

    def read(self, key: str, expires: int, signature: str) -> bytes:
        valid = hmac.compare_digest(self._sign(key, expires), signature)
        if not valid or expires < time.time():
            raise NotFound("this file link is invalid or has expired; fetch the result again")
        blob = self._objects.get(key)
        if blob is None:
            raise NotFound(
                "the file no longer exists: it was deleted with its strategy or the execution"
            )
        return blob
