"""The web dashboard: static pages at ``/`` that use only the public ``/v1`` API.

Everything the page needs ships inside this package (no CDN, no build step), so it works on a
machine without internet access and ``make run`` stays the only set-up command. The page keeps
its JWT in the tab's ``sessionStorage``; the server sets no cookie.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"


def security_headers(upload_origin: str | None = None) -> dict[str, str]:
    """The page's headers. ``upload_origin`` is where presigned dataset uploads go when the
    object store is S3 (the page PUTs files there itself, like the SDK); else only 'self'."""
    connect = "'self'" + (f" {upload_origin}" if upload_origin else "")
    return {
        "Cache-Control": "no-cache",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Content-Security-Policy": (
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            f"script-src 'self'; connect-src {connect}; frame-ancestors 'none'"
        ),
    }


def upload_origin(object_store_url: str, s3_endpoint_url: str) -> str | None:
    """The origin presigned upload URLs point at, or None for the local store (same origin)."""
    if not object_store_url.startswith("s3://"):
        return None
    if not s3_endpoint_url:
        return "https://*.amazonaws.com"
    parts = urlsplit(s3_endpoint_url)
    return f"{parts.scheme}://{parts.netloc}"


def mount_dashboard(app: FastAPI, upload_to: str | None = None) -> None:
    headers = security_headers(upload_to)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=headers)

    app.mount("/assets", StaticFiles(directory=STATIC), name="dashboard-assets")
