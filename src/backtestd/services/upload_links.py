"""Presigned upload URLs for the local object store: HMAC-signed, expiring, credential-free.

The SDK PUTs a file with a bare ``httpx.put(url, content=file)``: no credentials, no content
type, no file name. So the URL itself is the credential: it names the upload session and its
expiry, signed with the service secret. Anything changed in it (session, expiry, signature)
makes the signature fail, and the PUT is refused with 403 before a byte is stored. With an
object store that presigns its own URLs (S3), the store's URL is used instead.
"""

from __future__ import annotations

import hashlib
import hmac
import time

from backtestd.errors import Forbidden

UPLOAD_TTL_MINUTES = 15


class UploadLinks:
    def __init__(self, secret: str, public_base_url: str, ttl_minutes: int = UPLOAD_TTL_MINUTES):
        self._secret = secret.encode()
        self._base_url = public_base_url.rstrip("/")
        self.ttl_minutes = ttl_minutes

    def _sign(self, upload_id: str, expires: int) -> str:
        message = f"PUT\n{upload_id}\n{expires}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def url_for(self, upload_id: str) -> str:
        expires = int(time.time()) + self.ttl_minutes * 60
        return (
            f"{self._base_url}/v1/uploads/{upload_id}?expires={expires}"
            f"&sig={self._sign(upload_id, expires)}"
        )

    def verify(self, upload_id: str, expires: int, signature: str) -> None:
        valid = hmac.compare_digest(self._sign(upload_id, expires), signature)
        if not valid or expires < time.time():
            raise Forbidden(
                "this upload link is invalid or has expired; ask for a new one with "
                "POST /v1/datasets/{datasetId}/uploads"
            )
