"""The strategy service on real parts (SQLite, the engine-host JVM), without the HTTP layer.

Identical submissions racing each other must end as one strategy, stored and counted once;
the same text from another user is another strategy; a registration that cannot fit the storage
pool stores nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from backtestd.domain.accounts import Principal
from backtestd.errors import StorageQuotaExceeded
from backtestd.services.container import Services, build_services
from backtestd.settings import Settings
from backtestd.storage.db.repositories.strategies import StrategyRepository
from backtestd.storage.db.repositories.usage import UsageRepository
from tests.support.services import requires_java
from tests.support.strategies import source

pytestmark = requires_java


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    data_dir: Path = tmp_path_factory.mktemp("registration")
    built = build_services(
        Settings(
            data_dir=data_dir, engine_hosts=2, max_compiles_per_user=4, max_compiles_in_flight=8
        )
    )
    yield built
    built.close()


def _stored(services: Services, user_id: str) -> list[str]:
    with services.database.unit_of_work() as uow:
        return [r.strategy_id for r in StrategyRepository(uow.session).list_of(user_id, False)]


def test_identical_submissions_racing_end_as_one_strategy_counted_once(services: Services) -> None:
    alice = Principal("race-alice", "pro")
    text = source("ema_cross.java")

    with ThreadPoolExecutor(4) as pool:
        results = list(
            pool.map(lambda _: services.strategies.register(alice, text.encode()), range(4))
        )

    ids = {record.strategy_id for record, _ in results}
    assert len(ids) == 1
    assert _stored(services, alice.user_id) == list(ids)
    with services.database.unit_of_work() as uow:
        usage = UsageRepository(uow.session).usage_of(alice.user_id)
    assert usage.strategies_used == 1
    assert usage.storage_bytes_used == results[0][0].stored_bytes


def test_the_same_text_from_another_user_is_another_strategy(services: Services) -> None:
    text = source("ema_cross.qts").encode()
    first, _ = services.strategies.register(Principal("twin-1", "pro"), text)
    second, _ = services.strategies.register(Principal("twin-2", "pro"), text)
    assert first.strategy_id != second.strategy_id
    assert _stored(services, "twin-1") == [first.strategy_id]


def test_a_registration_over_the_storage_pool_stores_nothing(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path, engine_hosts=1)
    settings.tiers["free"] = settings.tiers["free"].model_copy(
        update={"max_total_storage_bytes": 100}
    )
    tight = build_services(settings)
    try:
        with pytest.raises(StorageQuotaExceeded, match="maxTotalStorageBytes"):
            tight.strategies.register(Principal("tight", "free"), source("ema_cross.java").encode())
        assert _stored(tight, "tight") == []
        with tight.database.unit_of_work() as uow:
            assert UsageRepository(uow.session).usage_of("tight").storage_bytes_used == 0
    finally:
        tight.close()
