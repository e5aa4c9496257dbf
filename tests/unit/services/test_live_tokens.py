"""The live socket's connection token: minted for one user, told apart when merely expired."""

from __future__ import annotations

import base64
import json
import time

import jwt
import pytest

from backtestd.services.live_tokens import (
    LIVE_WS_AUDIENCE,
    LiveTokenExpired,
    LiveTokenInvalid,
    mint_live_token,
    verify_live_token,
)

SECRET = "unit-secret"


def test_a_minted_token_verifies_to_its_user_and_expiry() -> None:
    issued = mint_live_token(SECRET, "alice", now=1_767_225_600)
    claims = jwt.decode(issued.token, options={"verify_signature": False})
    assert claims == {
        "sub": "alice",
        "aud": LIVE_WS_AUDIENCE,
        "iat": 1_767_225_600,
        "exp": 1_767_225_600 + 600,
    }
    assert issued.expires_at_ms == (1_767_225_600 + 600) * 1000
    verified = verify_live_token(SECRET, issued.token, now=1_767_225_600 + 599)
    assert (verified.user_id, verified.expires_at) == ("alice", 1_767_226_200)


def test_a_token_past_its_expiry_is_expired_not_invalid() -> None:
    issued = mint_live_token(SECRET, "alice", ttl_seconds=60, now=1_000_000)
    with pytest.raises(LiveTokenExpired):
        verify_live_token(SECRET, issued.token, now=1_000_060)


def _forged(claims: dict[str, object], secret: str = SECRET, alg: str = "HS256") -> str:
    return jwt.encode(claims, secret, algorithm=alg)


def _unsigned(claims: dict[str, object]) -> str:
    def part(obj: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."


NOW = int(time.time())
GOOD = {"sub": "alice", "aud": LIVE_WS_AUDIENCE, "iat": NOW, "exp": NOW + 600}


@pytest.mark.parametrize(
    "token",
    [
        _forged(GOOD, secret="another-secret"),
        _forged({**GOOD, "exp": NOW - 10}, secret="another-secret"),
        _forged({**GOOD, "aud": "api"}),
        _forged({k: v for k, v in GOOD.items() if k != "aud"}),
        _forged({"sub": "alice", "tier": "pro", "iat": NOW, "exp": NOW + 600}),
        _forged({k: v for k, v in GOOD.items() if k != "sub"}),
        _forged({**GOOD, "sub": ""}),
        _forged(GOOD, alg="HS512"),
        _unsigned(GOOD),
        "not.a.jwt",
        "",
    ],
    ids=[
        "foreign-signature",
        "foreign-signature-and-expired",
        "other-audience",
        "no-audience",
        "api-bearer-token",
        "no-subject",
        "empty-subject",
        "other-algorithm",
        "alg-none",
        "garbage",
        "empty",
    ],
)
def test_anything_but_a_genuine_socket_token_is_invalid(token: str) -> None:
    with pytest.raises(LiveTokenInvalid):
        verify_live_token(SECRET, token, now=NOW)
