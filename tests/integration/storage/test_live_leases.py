"""Live-run leases on both databases: one holder at a time, takeover only after expiry."""

from __future__ import annotations

from backtestd.domain.live import (
    LiveDesired,
    LiveRunRecord,
    LiveSource,
    LiveStage,
    LiveState,
    Visibility,
)
from backtestd.domain.marketdata import DataType
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.live import LiveRunRepository


def _add(database: Database, run_id: str, desired: LiveDesired = LiveDesired.RUNNING) -> None:
    with database.unit_of_work() as uow:
        LiveRunRepository(uow.session).add(
            LiveRunRecord(
                run_id=run_id,
                user_id="u",
                strategy_id="s",
                compilation="s@1",
                visibility=Visibility.PRIVATE,
                stage=LiveStage.SANDBOX,
                state=LiveState.STARTING,
                desired=desired,
                source=LiveSource("cex", "sim", "spot", DataType.KLINE, ("BTC/USDT",)),
                params={},
                params_version=0,
                relay=False,
                stream=False,
                warm_from=0,
                created_at_ms=1,
                started_at_ms=1,
                updated_at_ms=1,
            )
        )


def test_a_lease_has_one_holder_until_it_expires(database: Database) -> None:
    _add(database, "run-a")
    _add(database, "run-off", LiveDesired.STOPPED)
    with database.unit_of_work() as uow:
        runs = LiveRunRepository(uow.session)
        assert runs.claimable(1_000, 10) == ["run-a"]
        assert runs.claim("run-a", "w1", 1_000, 11_000) == 1
    with database.unit_of_work() as uow:
        runs = LiveRunRepository(uow.session)
        assert runs.claim("run-a", "w2", 5_000, 15_000) is None  # held
        assert runs.claimable(5_000, 10) == []
        assert runs.renew("w1", ["run-a"], 20_000) == {"run-a"}
        assert runs.renew("w2", ["run-a"], 20_000) == set()
    with database.unit_of_work() as uow:
        runs = LiveRunRepository(uow.session)
        assert runs.claim("run-a", "w2", 20_001, 30_000) == 2  # expired: taken over
        assert runs.renew("w1", ["run-a"], 40_000) == set()  # the old holder lost it
        runs.release("run-a", "w1")  # a stale release changes nothing
        assert runs.lease_of("run-a") == ("w2", 30_000)
