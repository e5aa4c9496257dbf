"""``GET /v1/account`` and ``GET /v1/account/usage``."""

from __future__ import annotations

from fastapi import APIRouter

from backtestd.api.deps import PrincipalDep, ServicesDep
from backtestd.api.schemas.account import Account, AccountLinks, AccountUsage, UsageLinks
from backtestd.api.schemas.common import HalLink, ResponseError
from backtestd.domain.scopes import to_wire

router = APIRouter(tags=["account"], responses={401: {"model": ResponseError}})

ACCOUNT_HREF = "/v1/account"
USAGE_HREF = "/v1/account/usage"


@router.get("/account", response_model=Account, summary="Identity and tier limits")
def get_account(principal: PrincipalDep, services: ServicesDep) -> Account:
    limits = services.accounts.limits(principal)
    return Account(
        userId=principal.user_id,
        tier=principal.tier,
        maxExecute=limits.max_execute,
        maxRangeDays=limits.max_range_days,
        maxSweepCartesian=limits.max_sweep_cartesian,
        maxImportRangeHours=limits.max_import_range_hours,
        maxDatasets=limits.max_datasets,
        maxDatasetBytes=limits.max_dataset_bytes,
        maxDatasetRows=limits.max_dataset_rows,
        maxTotalStorageBytes=limits.max_total_storage_bytes,
        maxRunSeconds=limits.max_run_seconds,
        maxSweepWorkerSeconds=limits.max_sweep_worker_seconds,
        maxRequestsPerMinute=limits.requests_per_minute,
        maxLiveRuns=limits.max_live_runs,
        maxLiveInstruments=limits.max_live_instruments,
        liveWildcards=limits.live_wildcards,
        liveStream=limits.live_stream,
        livePublic=limits.live_public,
        minSandboxMinutes=limits.min_sandbox_minutes,
        scopes=to_wire(principal.scopes),
        _links=AccountLinks(self=HalLink(href=ACCOUNT_HREF), usage=HalLink(href=USAGE_HREF)),
    )


@router.get("/account/usage", response_model=AccountUsage, summary="Live storage usage")
def get_account_usage(principal: PrincipalDep, services: ServicesDep) -> AccountUsage:
    usage = services.accounts.usage(principal)
    return AccountUsage(
        datasetsUsed=usage.datasets_used,
        datasetBytesUsed=usage.dataset_bytes_used,
        signalsUsed=usage.signals_used,
        signalBytesUsed=usage.signal_bytes_used,
        strategiesUsed=usage.strategies_used,
        strategyBytesUsed=usage.strategy_bytes_used,
        storageBytesUsed=usage.storage_bytes_used,
        _links=UsageLinks(self=HalLink(href=USAGE_HREF), account=HalLink(href=ACCOUNT_HREF)),
    )
