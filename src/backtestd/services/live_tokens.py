"""The connection token of the live signal WebSocket (``POST /live/token``, spec §3.13, §7.6).

An HS256 JWT ``{sub: user id, aud: "live-ws", iat, exp}``, 600 s by default. It is only the
``connect``/``refresh`` credential of the Centrifugo-protocol socket, so it carries no tier or
scopes, and its audience keeps it apart from the API's bearer tokens even when both are signed
with the same secret: the API refuses a token with an audience it did not ask for, and this
module refuses a token without ``aud: "live-ws"``.

Verification tells an *expired* token apart from an *invalid* one because the socket answers
them differently: expired → error ``109`` (Centrifugo SDKs then fetch a new token and retry),
invalid → close ``3500`` (terminal; the SDK stops reconnecting).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import jwt

LIVE_WS_AUDIENCE = "live-ws"
LIVE_TOKEN_ALGORITHM = "HS256"
DEFAULT_LIVE_TOKEN_TTL_SECONDS = 600


@dataclass(frozen=True)
class LiveConnectionToken:
    """What ``POST /live/token`` returns: ``{token, expiresAtMs}`` on the wire."""

    token: str
    expires_at_ms: int


@dataclass(frozen=True)
class LiveTokenClaims:
    """A verified token: whose it is and when it stops being accepted (epoch seconds)."""

    user_id: str
    expires_at: int


class LiveTokenRejected(Exception):
    """Base of the two verification failures."""


class LiveTokenInvalid(LiveTokenRejected):
    """Bad signature, wrong or missing audience, missing claims, or not a JWT at all."""


class LiveTokenExpired(LiveTokenRejected):
    """Well signed and meant for the socket, but past its ``exp``: the client should mint a new
    one and try again."""


def mint_live_token(
    secret: str,
    user_id: str,
    *,
    ttl_seconds: int = DEFAULT_LIVE_TOKEN_TTL_SECONDS,
    now: float | None = None,
) -> LiveConnectionToken:
    """Sign a connection token for ``user_id``, valid ``ttl_seconds`` from ``now``."""
    if not secret:
        raise ValueError("the live token secret must not be empty")
    if not user_id:
        raise ValueError("a live token needs a user id")
    issued = int(time.time() if now is None else now)
    expires = issued + int(ttl_seconds)
    claims = {"sub": user_id, "aud": LIVE_WS_AUDIENCE, "iat": issued, "exp": expires}
    token = jwt.encode(claims, secret, algorithm=LIVE_TOKEN_ALGORITHM)
    return LiveConnectionToken(token=token, expires_at_ms=expires * 1000)


def verify_live_token(secret: str, token: str, *, now: float | None = None) -> LiveTokenClaims:
    """The claims of a token this service minted for the socket.

    Raises ``LiveTokenExpired`` for a genuine token past ``exp`` (checked only once signature
    and audience are good, so a forged token never reads as merely expired) and
    ``LiveTokenInvalid`` for everything else. No leeway: the socket's own close timer gives
    the grace a refreshing client needs.
    """
    if not isinstance(token, str) or not token:
        raise LiveTokenInvalid("no token")
    try:
        claims = jwt.decode(
            token,
            secret,
            algorithms=[LIVE_TOKEN_ALGORITHM],
            audience=LIVE_WS_AUDIENCE,
            options={"require": ["sub", "aud", "iat", "exp"], "verify_exp": False},
        )
    except jwt.InvalidTokenError as exc:
        raise LiveTokenInvalid(str(exc)) from exc
    sub = claims.get("sub")
    exp = claims.get("exp")
    if not isinstance(sub, str) or not sub or not isinstance(exp, int) or isinstance(exp, bool):
        raise LiveTokenInvalid("the token carries no valid subject or expiry")
    current = time.time() if now is None else now
    if exp <= current:
        raise LiveTokenExpired("the token has expired")
    return LiveTokenClaims(user_id=sub, expires_at=exp)
