"""Typed dependencies: the service container and the authenticated caller."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from backtestd.domain.accounts import Principal
from backtestd.services.container import Services

# Declares the bearer scheme in OpenAPI; verification (with our own messages) reads the raw
# header, so a malformed header gets a precise 401 rather than a generic one.
_bearer = HTTPBearer(auto_error=False, description="JWT from POST /v1/auth/token")


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def get_principal(
    request: Request,
    services: ServicesDep,
    _credentials: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)] = None,
) -> Principal:
    return services.auth.verify(request.headers.get("authorization"))


PrincipalDep = Annotated[Principal, Depends(get_principal)]
