"""Black-box: API keys, JWT exchange and bearer verification on a live server."""

from __future__ import annotations

import base64
import json
import time
from datetime import UTC, datetime, timedelta

import httpx
import jwt
import pytest
from qtsurfer.api.client._generated import AuthenticatedClient
from qtsurfer.api.client._generated.api.auth import authenticate
from qtsurfer.api.client._generated.models import AuthTokenError, AuthTokenResponse
from qtsurfer_sdk import QTSAuthError, auth

from tests.support.server import LiveServer


def _mint(server: LiveServer, key: str) -> AuthTokenResponse | AuthTokenError | None:
    client = AuthenticatedClient(
        base_url=server.base_url, token=key, prefix="", auth_header_name="X-API-Key"
    )
    return authenticate.sync_detailed(client=client).parsed


def test_token_exchange_returns_hs256_jwt_with_claims(live_server: LiveServer) -> None:
    key = live_server.create_key("tok-user", tier="basic")
    session = auth(key, base_url=live_server.base_url)
    token = session.token
    assert token is not None
    assert token.token_type.value == "Bearer"
    assert token.tier.value == "basic"
    assert token.expires_in == 3600
    header = jwt.get_unverified_header(token.access_token)
    claims = jwt.decode(token.access_token, options={"verify_signature": False})
    assert header["alg"] == "HS256"
    assert claims["sub"] == "tok-user"
    assert claims["tier"] == "basic"
    assert claims["exp"] - claims["iat"] == 3600


@pytest.mark.parametrize("key", ["", "btd_0000_nothing", "garbage key"])
def test_invalid_key_gives_401_invalid_apikey(live_server: LiveServer, key: str) -> None:
    response = httpx.post(f"{live_server.base_url}/auth/token", headers={"X-API-Key": key})
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_apikey"
    assert response.json()["message"]


def test_missing_key_header_gives_401_invalid_apikey(live_server: LiveServer) -> None:
    response = httpx.post(f"{live_server.base_url}/auth/token")
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_apikey"


def test_revoked_key_gives_apikey_revoked(live_server: LiveServer) -> None:
    key = live_server.create_key("revoked-user")
    assert isinstance(_mint(live_server, key), AuthTokenResponse)
    out = live_server.cli("apikey", "revoke", key).stdout
    assert "revoked key" in out
    parsed = _mint(live_server, key)
    assert isinstance(parsed, AuthTokenError)
    assert parsed.code.value == "apikey_revoked"
    with pytest.raises(QTSAuthError):
        auth(key, base_url=live_server.base_url)


def test_expired_key_gives_apikey_expired(live_server: LiveServer) -> None:
    # The key must outlive the CLI's start and the first exchange, and the test then waits for
    # it to expire: a few seconds' margin, doubled (with a new key) whenever a loaded machine
    # took longer than that, so the exchange that must succeed always ran before the expiry.
    for margin in (4, 8, 16, 32):
        expiry = datetime.now(UTC) + timedelta(seconds=margin)
        key = live_server.create_key("expiring-user", expires=expiry.isoformat())
        minted = _mint(live_server, key)
        if datetime.now(UTC) < expiry:
            break
    assert isinstance(minted, AuthTokenResponse)
    time.sleep(max(0.0, (expiry - datetime.now(UTC)).total_seconds()) + 0.5)
    parsed = _mint(live_server, key)
    assert isinstance(parsed, AuthTokenError)
    assert parsed.code.value == "apikey_expired"


def test_key_over_rate_limit_gets_429(live_server: LiveServer) -> None:
    """Free tier: 30 tokens per minute, refilled at one per 2 s while we hammer it."""
    key = live_server.create_key("chatty-user", tier="free")
    started = time.monotonic()
    statuses: list[int] = []
    while 429 not in statuses and len(statuses) < 200:
        response = httpx.post(f"{live_server.base_url}/auth/token", headers={"X-API-Key": key})
        statuses.append(response.status_code)
    elapsed = time.monotonic() - started
    assert statuses[:30] == [200] * 30
    assert statuses[-1] == 429
    assert statuses.count(200) <= 30 + int(elapsed / 2) + 1
    body = response.json()
    assert body["code"] == 429
    assert "30 token requests per minute" in body["message"]


def test_apikey_list_shows_ids_and_status_but_no_secret(live_server: LiveServer) -> None:
    key = live_server.create_key("listed-user")
    key_id = key.split("_")[1]
    listing = live_server.cli("apikey", "list").stdout
    line = next(row for row in listing.splitlines() if row.startswith(key_id))
    assert "listed-user" in line
    assert "active" in line
    assert key not in listing
    live_server.cli("apikey", "revoke", key_id)
    listing = live_server.cli("apikey", "list").stdout
    assert "revoked" in next(row for row in listing.splitlines() if row.startswith(key_id))


def _b64(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def _bad_tokens(server: LiveServer) -> dict[str, str]:
    good = server.token(server.create_key("bearer-user"))
    head, payload, signature = good.split(".")
    now = int(time.time())
    secret = (server.data_dir / "jwt-secret").read_text().strip()
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    forged = {"sub": "admin", "tier": "elite", "iat": now, "exp": now + 60}
    return {
        "tampered-signature": f"{head}.{payload}.{flipped}",
        "tampered-claims": f"{head}.{_b64(forged)}.{signature}",
        "alg-none": f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(forged)}.",
        "expired": jwt.encode(
            {"sub": "x", "tier": "pro", "iat": now - 7200, "exp": now - 3600}, secret, "HS256"
        ),
        "wrong-secret": jwt.encode(
            {"sub": "x", "tier": "pro", "iat": now, "exp": now + 60}, "not-the-secret", "HS256"
        ),
        "garbage": "not.a.jwt",
    }


def test_protected_routes_refuse_bad_tokens_with_401(live_server: LiveServer) -> None:
    for name, token in _bad_tokens(live_server).items():
        response = httpx.get(
            f"{live_server.base_url}/account", headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 401, name
        body = response.json()
        assert body["code"] == 401, name
        assert "token" in body["message"], name


def test_protected_route_without_token_gives_401(live_server: LiveServer) -> None:
    response = httpx.get(f"{live_server.base_url}/account/usage")
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == 401
    assert "Bearer" in body["message"]
    assert (body["reason"], body["retryable"]) == ("UNAUTHENTICATED", False)
    assert set(body) == {"code", "message", "reason", "retryable"}
    assert "Authorization: Bearer" in response.json()["message"]


def test_public_routes_ignore_a_bearer_header(live_server: LiveServer) -> None:
    response = httpx.get(
        f"{live_server.base_url}/exchanges", headers={"Authorization": "Bearer whatever"}
    )
    assert response.status_code == 200
