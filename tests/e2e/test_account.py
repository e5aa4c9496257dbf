"""Black-box: account identity, tier limits and usage through the official SDK."""

from __future__ import annotations

import httpx
import pytest
from qtsurfer_sdk import auth

from backtestd.settings import DEFAULT_TIERS
from tests.support.server import LiveServer


@pytest.mark.parametrize("tier", ["free", "basic", "pro", "elite"])
def test_account_reports_user_and_tier_limits(live_server: LiveServer, tier: str) -> None:
    session = auth(live_server.create_key(f"acct-{tier}", tier=tier), base_url=live_server.base_url)
    account = session.get_account()
    limits = DEFAULT_TIERS[tier]
    assert account.user_id == f"acct-{tier}"
    assert account.tier == tier
    assert account.max_execute == limits.max_execute
    assert account.max_range_days == limits.max_range_days
    assert account.max_sweep_cartesian == limits.max_sweep_cartesian
    assert account.max_import_range_hours == limits.max_import_range_hours
    assert account.max_datasets == limits.max_datasets
    assert account.max_dataset_bytes == limits.max_dataset_bytes
    assert account.max_total_storage_bytes == limits.max_total_storage_bytes
    assert account.field_links.self_.href == "/v1/account"
    assert account.field_links.usage.href == "/v1/account/usage"
    raw = httpx.get(
        f"{live_server.base_url}/account",
        headers={"Authorization": f"Bearer {session.token.access_token}"},  # type: ignore[union-attr]
    ).json()
    assert raw["maxDatasetRows"] == limits.max_dataset_rows  # additive (docs/limits.md)
    assert raw["maxRunSeconds"] == limits.max_run_seconds  # additive
    assert raw["maxSweepWorkerSeconds"] == limits.max_sweep_worker_seconds  # additive
    # additive (docs/limits.md, "Request rate"); the SDK keeps unknown keys aside
    assert raw["maxRequestsPerMinute"] == limits.requests_per_minute
    assert account.additional_properties["maxRequestsPerMinute"] == limits.requests_per_minute
    # additive (docs/live.md, "Plans")
    assert raw["maxLiveRuns"] == limits.max_live_runs
    assert raw["maxLiveInstruments"] == limits.max_live_instruments
    assert raw["liveWildcards"] is limits.live_wildcards
    assert raw["liveStream"] is limits.live_stream
    assert raw["minSandboxMinutes"] == limits.min_sandbox_minutes


def test_usage_of_a_new_user_is_zero_with_links(live_server: LiveServer) -> None:
    session = auth(live_server.create_key("usage-user"), base_url=live_server.base_url)
    usage = session.get_account_usage()
    assert usage.storage_bytes_used == 0
    assert usage.datasets_used == usage.signals_used == usage.strategies_used == 0
    raw = httpx.get(
        f"{live_server.base_url}/account/usage",
        headers={"Authorization": f"Bearer {session.token.access_token}"},  # type: ignore[union-attr]
    ).json()
    assert raw["_links"] == {
        "self": {"href": "/v1/account/usage"},
        "account": {"href": "/v1/account"},
    }
    assert set(raw) == {
        "datasetsUsed",
        "datasetBytesUsed",
        "signalsUsed",
        "signalBytesUsed",
        "strategiesUsed",
        "strategyBytesUsed",
        "storageBytesUsed",
        "_links",
    }
