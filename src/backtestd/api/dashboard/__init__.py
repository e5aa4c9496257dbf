"""The web dashboard: static pages at ``/`` that use only the public ``/v1`` API.

Everything the page needs ships inside this package (no CDN, no build step), so it works on a
machine without internet access and ``make run`` stays the only set-up command. The page keeps
its JWT in the tab's ``sessionStorage``; the server sets no cookie.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"
SECURITY_HEADERS = {
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; connect-src 'self'; frame-ancestors 'none'"
    ),
}


def mount_dashboard(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=SECURITY_HEADERS)

    app.mount("/assets", StaticFiles(directory=STATIC), name="dashboard-assets")
