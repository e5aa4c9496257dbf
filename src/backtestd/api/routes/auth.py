"""``POST /v1/auth/token``: exchange an API key for a JWT."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Security
from fastapi.security import APIKeyHeader

from backtestd.api.deps import ServicesDep
from backtestd.api.schemas.auth import AuthTokenError, AuthTokenResponse
from backtestd.api.schemas.common import ResponseError
from backtestd.domain.scopes import to_wire

router = APIRouter(tags=["auth"])
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False)


@router.post(
    "/auth/token",
    response_model=AuthTokenResponse,
    responses={
        401: {"model": AuthTokenError},
        403: {"model": AuthTokenError},
        429: {
            "model": ResponseError,
            "description": "too many token requests for this key, or requests from this "
            "address (Retry-After: seconds)",
        },
    },
    summary="Exchange an API key for a short-lived JWT",
)
def authenticate(
    services: ServicesDep, api_key: Annotated[str | None, Security(_api_key)] = None
) -> AuthTokenResponse:
    issued = services.auth.exchange(api_key)
    return AuthTokenResponse(
        access_token=issued.access_token,
        expires_in=issued.expires_in,
        tier=issued.tier,  # type: ignore[arg-type]
        scopes=to_wire(issued.scopes),
    )
