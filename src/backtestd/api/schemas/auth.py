"""Wire shapes of ``POST /v1/auth/token``."""

from __future__ import annotations

from typing import Literal

from backtestd.api.schemas.common import WireModel


class AuthTokenResponse(WireModel):
    access_token: str
    token_type: Literal["Bearer"] = "Bearer"
    expires_in: int
    tier: Literal["basic", "elite", "free", "pro"]
    # KeyScopes: resource -> actions. Older clients read `scopes` without checking its shape.
    scopes: dict[str, list[str]] = {}


class AuthTokenError(WireModel):
    code: Literal["apikey_expired", "apikey_revoked", "invalid_apikey", "apikey_without_scopes"]
    message: str
