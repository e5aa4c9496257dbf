"""Connection tokens of the live channel (§3.13, §7.6), signed with the service's secret."""

from __future__ import annotations

from backtestd.services.live_tokens import mint_live_token


class LiveTokens:
    def __init__(self, secret: str) -> None:
        self.secret = secret

    def mint(self, user_id: str) -> tuple[str, int]:
        """``(token, expiresAtMs)`` for ``user_id``."""
        token = mint_live_token(self.secret, user_id)
        return token.token, token.expires_at_ms
