"""``create_app``: the FastAPI application under ``/v1``, built from settings."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI

from backtestd.api.address_limit import AddressLimitMiddleware
from backtestd.api.body_limit import BodyLimitMiddleware
from backtestd.api.dashboard import mount_dashboard, upload_origin
from backtestd.api.docs import API_DESCRIPTION_VERSION, mount_api_docs, project_version
from backtestd.api.errors import install_error_handlers
from backtestd.api.live_mount import LIVE_BODY_MAX_BYTES, LIVE_COMMAND_MAX_BYTES, LiveChannel
from backtestd.api.nul_guard import NulGuardMiddleware
from backtestd.api.routes import (
    account,
    auth,
    backtests,
    datasets,
    files,
    job_listing,
    market,
    strategies,
    sweeps,
)
from backtestd.api.routes import (
    live as live_routes,
)
from backtestd.api.routes import (
    live_paper as live_paper_routes,
)
from backtestd.api.schemas.common import ResponseDocs, ResponseError
from backtestd.services.container import Services, build_services, start_executor
from backtestd.services.job_recovery import JobRecovery
from backtestd.services.leftovers import remove_leftovers_in_background
from backtestd.settings import Settings

API_PREFIX = "/v1"
# Every /v1 route may answer this (docs/limits.md, "Request rate"); a route documenting its own
# 429 (queues, concurrency, downloads) keeps its own description.
RATE_LIMITED: ResponseDocs = {
    429: {
        "model": ResponseError,
        "description": (
            "Too many requests: the account's or the client address's request rate "
            "(reason RATE_LIMITED_ACCOUNT or RATE_LIMITED_ADDRESS); the Retry-After header "
            "says how many seconds to wait"
        ),
        "headers": {
            "Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}
        },
    }
}
log = logging.getLogger(__name__)


def create_app(settings: Settings, services: Services | None = None) -> FastAPI:
    """Build the app; the lifespan creates (or adopts) the services and disposes of them."""
    if settings.live_clock_rate != 1.0 and not settings.live_clock_anchor_ms:
        # A sped-up market clock is anchored once, here, and shipped to the workers with the
        # settings, so that the API and every worker read the same market time.
        settings = settings.model_copy(update={"live_clock_anchor_ms": int(time.time() * 1000)})

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = services is None
        app.state.services = services or build_services(settings)
        app.state.services.strategies.resume_pending()
        if app.state.services.backtests.executor is None:
            app.state.services.backtests.executor = start_executor(settings)
        log.info("jobs run on %s", app.state.services.backtests.executor.describe())
        app.state.services.sweeps.finish_orphans()
        app.state.services.datasets.reap_deleted()
        remove_leftovers_in_background(app.state.services.objects, settings)
        resumed = app.state.services.backtests.resume_unfinished()
        if resumed:
            log.info("resubmitted %d unfinished jobs", resumed)
        recovery = JobRecovery(app.state.services.backtests, settings.job_recovery_seconds)
        recovery.start()
        bridge = live.attach(app.state.services)
        try:
            yield
        finally:
            await live.detach(bridge)
            recovery.stop()
            if owned:
                app.state.services.close()

    app = FastAPI(
        title="backtestd — Strategy Backtesting Service API",
        version=project_version(),
        description=(
            f"backtestd implements the Strategy Backtesting Service API, interface description "
            f"version {API_DESCRIPTION_VERSION}. Errors are `{{code, message}}`; invalid "
            "requests are 400 (never 422)."
        ),
        openapi_url=f"{API_PREFIX}/openapi.json",
        docs_url=None,
        redoc_url=None,
        redirect_slashes=False,
        lifespan=lifespan,
    )
    v1 = APIRouter(prefix=API_PREFIX, responses=RATE_LIMITED)
    for module in (
        auth,
        account,
        market,
        strategies,
        job_listing,
        backtests,
        sweeps,
        datasets,
        files,
        live_routes,
        live_paper_routes,
    ):
        v1.include_router(module.router)
    app.include_router(v1)
    live = LiveChannel(settings)
    live.mount(app)
    mount_api_docs(app, API_PREFIX)
    mount_dashboard(
        app, upload_origin(settings.object_store_url, settings.resolved_s3_public_endpoint_url)
    )
    install_error_handlers(app)

    def cap_for(method: str, path: str) -> int | None:
        if method == "PUT" and path.startswith(f"{API_PREFIX}/uploads/"):
            return None
        if method == "POST" and path.rstrip("/") == f"{API_PREFIX}/strategy":
            return settings.strategy_max_bytes
        if path.startswith(f"{API_PREFIX}/live/") and path.endswith("/commands"):
            return LIVE_COMMAND_MAX_BYTES
        if "/live" in path:
            return LIVE_BODY_MAX_BYTES
        return settings.max_body_bytes

    app.add_middleware(BodyLimitMiddleware, cap_for=cap_for)
    app.add_middleware(NulGuardMiddleware)
    # Added last, so it runs first: a flood is refused before any body is read.
    app.add_middleware(AddressLimitMiddleware, prefix=API_PREFIX)
    return app
