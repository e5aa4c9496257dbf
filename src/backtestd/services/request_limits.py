"""The general request rate limit on every ``/v1`` route: per account and per client address.

Two token buckets (burst up to the per-minute budget, refilled continuously), in process memory
like the token-exchange and download limits (``rate_limit.py``); each API replica limits on its
own (docs/limits.md, "Request rate"):

* **per account** — every request that carries a valid token counts against the account named by
  its ``sub`` claim, at the tier's ``requests_per_minute``. The account, not the key or the token,
  is the identity: minting more tokens, or creating more keys for one user, does not multiply
  the budget.
* **per client address** — every request to ``/v1`` counts against its TCP peer address
  (``BACKTESTD_REQUESTS_PER_MINUTE_PER_ADDRESS``), authenticated or not and whatever the answer,
  so one address cannot flood with bad keys or forged tokens either. The budget is above every
  tier's own, since everyone behind one NAT shares it.

Over either budget the caller gets ``LimitExceeded`` (429 with ``Retry-After``) naming the
budget, its number and when to retry.
"""

from __future__ import annotations

from backtestd.domain.accounts import Principal
from backtestd.services.rate_limit import RateLimiter
from backtestd.settings import Settings

ACCOUNT_REASON = "RATE_LIMITED_ACCOUNT"
ADDRESS_REASON = "RATE_LIMITED_ADDRESS"


class RequestLimits:
    def __init__(self, settings: Settings, limiter: RateLimiter | None = None) -> None:
        self._settings = settings
        self._limiter = limiter or RateLimiter()

    def admit_address(self, address: str) -> None:
        """Count one request from ``address``; ``LimitExceeded`` over the per-address budget."""
        per_minute = self._settings.requests_per_minute_per_address
        if per_minute <= 0:
            return
        self._limiter.check(
            f"address:{address}",
            per_minute,
            what="requests",
            advice=(
                f"for client address {address} (every request from one address counts, "
                "whoever sends it and whatever the answer); retry in {wait} s"
            ),
            reason=ADDRESS_REASON,
        )

    def admit_principal(self, principal: Principal) -> None:
        """Count one authenticated request of the principal's account against its tier budget."""
        per_minute = self._settings.tiers[principal.tier].requests_per_minute
        self._limiter.check(
            f"account:{principal.user_id}",
            per_minute,
            what="requests",
            advice=(
                f"for account {principal.user_id!r} ({principal.tier} tier; all of its API keys "
                "and tokens share it); retry in {wait} s, and poll less often "
                "(GET /v1/account shows maxRequestsPerMinute)"
            ),
            reason=ACCOUNT_REASON,
        )
