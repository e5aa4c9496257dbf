"""Accounts, API keys and the authenticated principal."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from backtestd.domain.scopes import ALL_SCOPES, Scopes


@dataclass(frozen=True)
class ApiKeyRecord:
    """What is stored about a key: never the secret itself, only its hash."""

    key_id: str
    user_id: str
    tier: str
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    scopes: Scopes = field(default_factory=lambda: dict(ALL_SCOPES))


@dataclass(frozen=True)
class Principal:
    """The caller of a protected route, taken from verified JWT claims."""

    user_id: str
    tier: str
    scopes: Scopes = field(default_factory=lambda: dict(ALL_SCOPES))


@dataclass(frozen=True)
class IssuedToken:
    access_token: str
    expires_in: int
    tier: str
    scopes: Scopes = field(default_factory=lambda: dict(ALL_SCOPES))


@dataclass(frozen=True)
class Usage:
    datasets_used: int = 0
    dataset_bytes_used: int = 0
    signals_used: int = 0
    signal_bytes_used: int = 0
    strategies_used: int = 0
    strategy_bytes_used: int = 0

    @property
    def storage_bytes_used(self) -> int:
        return self.dataset_bytes_used + self.signal_bytes_used + self.strategy_bytes_used
