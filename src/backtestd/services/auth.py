"""API keys and JWTs: issuing, exchanging, verifying, revoking.

Keys look like ``btd_<key id>_<secret>``; only the SHA-256 of the whole key is stored, so a
database leak does not leak usable keys. Tokens are HS256 JWTs with ``sub``, ``tier``, ``iat``
and ``exp``; verification pins the algorithm, so ``alg: none`` and RS/HS confusion are refused.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import jwt

from backtestd.domain.accounts import ApiKeyRecord, IssuedToken, Principal
from backtestd.domain.scopes import ALL_SCOPES, Scopes, allows, to_wire
from backtestd.errors import (
    ApiKeyRejected,
    InsufficientScope,
    InvalidInput,
    NotFound,
    Unauthenticated,
)
from backtestd.services.rate_limit import RateLimiter
from backtestd.settings import TIER_NAMES, Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.api_keys import ApiKeyRepository

KEY_PREFIX = "btd_"
_USER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$")
JWT_ALGORITHM = "HS256"


def hash_key(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode("utf-8")).hexdigest()


def load_or_create_secret(settings: Settings) -> str:
    """The JWT signing secret: configured, or generated once and kept in the data dir."""
    if settings.jwt_secret:
        return settings.jwt_secret
    path = Path(settings.data_dir) / "jwt-secret"
    if path.exists():
        return path.read_text(encoding="ascii").strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".jwt-secret.{os.getpid()}.tmp")
    tmp.write_text(secrets.token_urlsafe(48), encoding="ascii")
    tmp.chmod(0o600)
    try:
        os.link(tmp, path)  # atomic; loses cleanly to a concurrent first start
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return path.read_text(encoding="ascii").strip()


class AuthService:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        secret: str,
        limiter: RateLimiter,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._settings = settings
        self._database = database
        self._secret = secret
        self._limiter = limiter
        self._clock = clock

    # -- keys ---------------------------------------------------------------------------

    def create_key(
        self,
        user_id: str,
        tier: str,
        expires_at: datetime | None,
        scopes: Scopes | None = None,
    ) -> tuple[ApiKeyRecord, str]:
        """Create a key; returns the record and the raw key (shown once, never stored)."""
        if not _USER_ID.match(user_id):
            raise InvalidInput(
                f"user id {user_id!r} is not valid: use 1-128 letters, digits, '_', '.', '@' "
                "or '-', starting with a letter or digit"
            )
        if tier not in TIER_NAMES:
            raise InvalidInput(f"tier {tier!r} is unknown; choose one of {', '.join(TIER_NAMES)}")
        now = self._clock()
        if expires_at is not None:
            if expires_at.tzinfo is None:
                expires_at = expires_at.replace(tzinfo=UTC)
            if expires_at <= now:
                raise InvalidInput(f"expiry {expires_at.isoformat()} is in the past")
        key_id = secrets.token_hex(8)
        raw_key = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        record = ApiKeyRecord(
            key_id,
            user_id,
            tier,
            now,
            expires_at,
            None,
            dict(ALL_SCOPES if scopes is None else scopes),
        )
        with self._database.unit_of_work() as uow:
            ApiKeyRepository(uow.session).add(record, hash_key(raw_key))
        return record, raw_key

    def revoke_key(self, key_or_id: str) -> ApiKeyRecord:
        """Revoke by raw key or by key id (as ``apikey list`` shows it)."""
        with self._database.unit_of_work() as uow:
            repo = ApiKeyRepository(uow.session)
            record = repo.by_hash(hash_key(key_or_id)) or repo.by_id(key_or_id)
            if record is None:
                raise NotFound("no API key matches; pass the key itself or its id from 'list'")
            repo.revoke(record.key_id, self._clock())
            return repo.by_id(record.key_id) or record

    def list_keys(self) -> list[ApiKeyRecord]:
        with self._database.unit_of_work() as uow:
            return ApiKeyRepository(uow.session).all()

    def has_usable_key(self) -> bool:
        with self._database.unit_of_work() as uow:
            return ApiKeyRepository(uow.session).count_usable(self._clock()) > 0

    # -- tokens -------------------------------------------------------------------------

    def exchange(self, raw_key: str | None) -> IssuedToken:
        """Trade an API key for a JWT, enforcing revocation, expiry and the rate limit."""
        if not raw_key:
            raise ApiKeyRejected(
                "invalid_apikey", "no API key given: send it in the X-API-Key header"
            )
        with self._database.unit_of_work() as uow:
            record = ApiKeyRepository(uow.session).by_hash(hash_key(raw_key.strip()))
        now = self._clock()
        if record is None:
            raise ApiKeyRejected(
                "invalid_apikey",
                "the API key is not valid: this server does not know it (keys live in the "
                "server's database; create one with 'backtestd apikey create' using the same "
                "BACKTESTD_DATA_DIR or BACKTESTD_DATABASE_URL as the server)",
            )
        if record.revoked_at is not None:
            raise ApiKeyRejected(
                "apikey_revoked",
                f"the API key was revoked at {record.revoked_at.isoformat()}; create a new one",
            )
        if record.expires_at is not None and record.expires_at <= now:
            raise ApiKeyRejected(
                "apikey_expired",
                f"the API key expired at {record.expires_at.isoformat()}; create a new one",
            )
        if not any(record.scopes.values()):
            raise ApiKeyRejected(
                "apikey_without_scopes",
                "the API key has no scopes, so it may do nothing; create a key with at least "
                "one --scope (or none of them for every scope)",
                status=403,
            )
        limits = self._settings.tiers[record.tier]
        self._limiter.check(record.key_id, limits.token_requests_per_minute)
        ttl = self._settings.token_ttl_seconds
        issued = int(now.timestamp())
        claims = {
            "sub": record.user_id,
            "tier": record.tier,
            "scopes": to_wire(record.scopes),
            "iat": issued,
            "exp": issued + ttl,
        }
        token = jwt.encode(claims, self._secret, algorithm=JWT_ALGORITHM)
        return IssuedToken(token, ttl, record.tier, record.scopes)

    def verify(self, authorization: str | None) -> Principal:
        """Check an ``Authorization: Bearer`` header and return who is calling."""
        if not authorization:
            raise Unauthenticated(
                "missing bearer token: send 'Authorization: Bearer <access_token>' "
                "(get one from POST /v1/auth/token)"
            )
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthenticated("the Authorization header must be 'Bearer <access_token>'")
        try:
            claims = jwt.decode(
                token.strip(),
                self._secret,
                algorithms=[JWT_ALGORITHM],
                options={"require": ["sub", "tier", "iat", "exp"]},
                leeway=5,
            )
        except jwt.ExpiredSignatureError as exc:
            raise Unauthenticated(
                "the access token has expired; get a new one from POST /v1/auth/token"
            ) from exc
        except jwt.InvalidTokenError as exc:
            raise Unauthenticated(
                "the access token is not valid; get a new one from POST /v1/auth/token"
            ) from exc
        tier = claims.get("tier")
        sub = claims.get("sub")
        if tier not in TIER_NAMES or not isinstance(sub, str) or not sub:
            raise Unauthenticated("the access token carries no valid subject or tier")
        raw_scopes = claims.get("scopes")
        if raw_scopes is None:  # a token minted before keys had scopes: every scope
            return Principal(user_id=sub, tier=tier)
        if not isinstance(raw_scopes, dict):
            raise Unauthenticated("the access token carries malformed scopes")
        scopes = {str(r): tuple(str(a) for a in actions) for r, actions in raw_scopes.items()}
        return Principal(user_id=sub, tier=tier, scopes=scopes)

    @staticmethod
    def require(principal: Principal, required: str) -> Principal:
        """The principal when its token allows ``resource:action``; else 403."""
        if not allows(principal.scopes, required):
            raise InsufficientScope(required)
        return principal
