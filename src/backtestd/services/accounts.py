"""Account identity, tier limits and storage usage."""

from __future__ import annotations

from backtestd.domain.accounts import Principal, Usage
from backtestd.settings import Settings, TierLimits
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.usage import UsageRepository


class AccountService:
    def __init__(self, settings: Settings, database: Database) -> None:
        self._settings = settings
        self._database = database

    def limits(self, principal: Principal) -> TierLimits:
        """From configuration only: ``GET /account`` makes no database call."""
        return self._settings.tiers[principal.tier]

    def usage(self, principal: Principal) -> Usage:
        with self._database.unit_of_work() as uow:
            return UsageRepository(uow.session).usage_of(principal.user_id)
