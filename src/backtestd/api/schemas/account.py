"""Wire shapes of ``/v1/account`` and ``/v1/account/usage``."""

from __future__ import annotations

from pydantic import Field

from backtestd.api.schemas.common import HalLink, WireModel


class AccountLinks(WireModel):
    self_: HalLink = Field(alias="self")
    usage: HalLink


class Account(WireModel):
    userId: str
    tier: str
    maxExecute: int
    maxRangeDays: int
    maxSweepCartesian: int
    maxImportRangeHours: int
    maxDatasets: int
    maxDatasetBytes: int
    maxDatasetRows: int  # additive (docs/limits.md): rows a dataset version may hold
    maxTotalStorageBytes: int
    # Additive (docs/limits.md): the wall clock of one run or sweep vector, blocked time
    # included, and the worker time one sweep may use in total.
    maxRunSeconds: float
    maxSweepWorkerSeconds: int
    # additive (docs/limits.md, "Request rate"): requests a minute to token-protected routes,
    # per account, as a token bucket that bursts up to this many
    maxRequestsPerMinute: int
    # additive (docs/live.md, "Plans"): live runs at once, instruments per run (0 = unlimited),
    # whether `*` instruments, stream URLs and public runs are allowed, the shortest trial
    maxLiveRuns: int
    maxLiveInstruments: int
    liveWildcards: bool
    liveStream: bool
    livePublic: bool
    minSandboxMinutes: int
    scopes: dict[str, list[str]] = {}  # KeyScopes of the token in use
    links: AccountLinks = Field(alias="_links")


class UsageLinks(WireModel):
    self_: HalLink = Field(alias="self")
    account: HalLink


class AccountUsage(WireModel):
    datasetsUsed: int
    datasetBytesUsed: int
    signalsUsed: int
    signalBytesUsed: int
    strategiesUsed: int
    strategyBytesUsed: int
    storageBytesUsed: int
    links: UsageLinks = Field(alias="_links")
