"""Signed links served by the service itself (the local store's stand-in for S3 presigning).

``GET /files/{key}`` serves a signed object (stored signals, dataset versions) with HTTP range
requests, streamed in chunks. ``PUT /uploads/{uploadId}`` receives a dataset upload on its
signed link: no credentials, no content type (the SDK sends a bare ``httpx.put``); the body is
spooled to a temporary file in the data directory as it arrives, capped at the tier's
``maxDatasetBytes``, and only a complete, in-cap body reaches the object store.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from backtestd.api.deps import ServicesDep
from backtestd.api.schemas.datasets import UploadReceived
from backtestd.services.datasets import too_large
from backtestd.services.leftovers import UPLOAD_SPOOL_PREFIX

router = APIRouter(include_in_schema=False)
RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")
SPOOL_BLOCK = 1 << 20
"""Bytes gathered from the socket before one write to the spool file (one thread hop each)."""
MEDIA_TYPES = {".parquet": "application/vnd.apache.parquet"}


def _media_type(key: str) -> str:
    return MEDIA_TYPES.get(Path(key).suffix, "application/octet-stream")


def _byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """``[start, end)`` asked by a single-range ``Range`` header; None means the whole file.

    Several ranges, or a header we do not understand, get the whole file (RFC 9110 allows
    ignoring ``Range``); an unsatisfiable one raises ``ValueError`` (416).
    """
    match = RANGE.match(header.strip()) if header else None
    if match is None:
        return None
    first, last = match.groups()
    if not first and not last:
        return None
    if not first:  # suffix: the last N bytes
        count = int(last)
        if count == 0:
            raise ValueError("empty suffix range")
        return max(size - count, 0), size
    start = int(first)
    end = min(int(last) + 1, size) if last else size
    if start >= size or end <= start:
        raise ValueError("range outside the file")
    return start, end


@router.get("/files/{key:path}")
def signed_file(
    key: str, expires: int, sig: str, request: Request, services: ServicesDep
) -> Response:
    signed = services.signed_urls
    size = signed.size_of(key, expires, sig)
    services.datasets.check_link_target(key)
    headers = {"Accept-Ranges": "bytes"}
    try:
        span = _byte_range(request.headers.get("range"), size)
    except ValueError:
        return Response(status_code=416, headers={**headers, "Content-Range": f"bytes */{size}"})
    media_type = _media_type(key)
    if span is None:
        headers["Content-Length"] = str(size)
        whole = signed.stream(key, 0, None)
        return StreamingResponse(whole, media_type=media_type, headers=headers)
    start, end = span
    headers["Content-Range"] = f"bytes {start}-{end - 1}/{size}"
    headers["Content-Length"] = str(end - start)
    return StreamingResponse(
        signed.stream(key, start, end), status_code=206, media_type=media_type, headers=headers
    )


@router.put("/uploads/{uploadId}")
async def receive_upload(
    uploadId: str, expires: int, sig: str, request: Request, services: ServicesDep
) -> UploadReceived:
    uploads = services.dataset_uploads
    cap = await run_in_threadpool(uploads.upload_cap, uploadId, expires, sig)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap:
        raise too_large(cap)
    spool = services.settings.scratch_dir
    spool.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=spool, prefix=UPLOAD_SPOOL_PREFIX, delete=True) as handle:
        received = 0
        pending = bytearray()
        async for chunk in request.stream():
            received += len(chunk)
            if received > cap:
                raise too_large(cap)
            pending += chunk
            if len(pending) >= SPOOL_BLOCK:
                await run_in_threadpool(handle.write, bytes(pending))
                pending.clear()
        await run_in_threadpool(handle.write, bytes(pending))
        await run_in_threadpool(handle.flush)
        size = await run_in_threadpool(uploads.receive_upload, uploadId, Path(handle.name))
    return UploadReceived(uploadId=uploadId, bytes=size)
