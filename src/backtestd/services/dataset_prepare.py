"""The ``exchangeId=user`` half of prepare: a dataset version in place of an exchange.

The request names ``datasetId`` (and may pin ``datasetVersionId``); the current version is read
by default, so the job spec (and with it the job id) carries the version actually read: a new
upload makes a new prepare, an identical request on the same version returns the same job.
The exchange lookback window does not apply (the data is the user's); ``maxRangeDays`` does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from backtestd.domain.accounts import Principal
from backtestd.domain.backtests import DatasetVersionRef, PrepareSpec
from backtestd.domain.datasets import BUSY, RT_CADENCE, USER_EXCHANGE, DatasetVersion
from backtestd.domain.marketdata import DataType
from backtestd.engine.cadence import CADENCE_MS, DEFAULT_CADENCE
from backtestd.engine.prepare import parse_range_bound
from backtestd.errors import InvalidInput, NotFound
from backtestd.settings import Settings
from backtestd.storage.db.engine import Database
from backtestd.storage.db.repositories.datasets import DatasetRepository


@dataclass(frozen=True)
class DatasetPrepare:
    """What a ``user`` prepare names: the dataset, an optional pinned version, range, cadence."""

    dataset_id: str | None
    dataset_version_id: str | None
    from_: str
    to: str
    cadence: str | None


def dataset_prepare_spec(
    settings: Settings,
    database: Database,
    principal: Principal,
    data_type: str,
    request: DatasetPrepare,
    check_range: Callable[[Principal, datetime, datetime], None],
) -> PrepareSpec:
    """Validate a ``user`` prepare and return its job spec (``cadence`` = the one in effect);
    ``data_type`` is the path's ``ticker`` | ``kline`` | ``funding``.

    A version of prices without candles (only ``timestamp`` and ``close`` are required on
    upload) can be prepared as ``kline`` too: each bar is built from the closes in its bucket
    (``feed_columns``), so at the version's own cadence open, high, low and close all equal
    the close.
    """
    feed = DataType(data_type)
    if feed is DataType.FUNDING:
        raise InvalidInput(
            "datasets hold prices, not funding rates; prepare a user dataset as ticker or kline"
        )
    if not request.dataset_id:
        raise InvalidInput(
            "'datasetId' is required when exchangeId is 'user' (instrument is ignored there); "
            "see GET /v1/datasets"
        )
    instrument, version = _version(
        database, principal, request.dataset_id, request.dataset_version_id
    )
    start, end = _bound("from", request.from_), _bound("to", request.to)
    if end <= start:
        raise InvalidInput(f"'to' ({request.to}) must be after 'from' ({request.from_})")
    check_range(principal, start, end)
    cadence, cadence_ms = _cadence(settings, principal, feed, version, request.cadence)
    return PrepareSpec(
        exchange=USER_EXCHANGE,
        data_type=feed,
        instrument=instrument,
        start=start,
        end=end,
        cadence=cadence,
        cadence_ms=cadence_ms,
        dataset=DatasetVersionRef(version.dataset_id, version.version_id),
    )


def _bound(name: str, text: str) -> datetime:
    try:
        return parse_range_bound(text)
    except ValueError as exc:
        raise InvalidInput(f"'{name}': {exc}") from exc


def _version(
    database: Database, principal: Principal, dataset_id: str, pinned: str | None
) -> tuple[str, DatasetVersion]:
    """The dataset's instrument and the version to read."""
    with database.unit_of_work() as uow:
        repo = DatasetRepository(uow.session)
        dataset = repo.of(principal.user_id, dataset_id)
        if dataset is None:
            raise NotFound(f"no dataset {dataset_id!r}; see GET /v1/datasets")
        if pinned:
            version = repo.version_of(principal.user_id, pinned)
            if version is None or version.dataset_id != dataset_id:
                raise NotFound(f"dataset {dataset_id} has no version {pinned!r}")
            return dataset.instrument, version
        busy = [s for s in repo.sessions_of(dataset_id) if s.status in BUSY]
        if busy:
            raise InvalidInput(
                f"dataset {dataset_id} has an upload or import still ingesting ({busy[0].job_id});"
                " wait until it is ready, or pin an earlier version with datasetVersionId",
                retryable=True,
            )
        current = (
            repo.version_of(principal.user_id, dataset.current_version_id)
            if dataset.current_version_id
            else None
        )
    if current is None:
        raise InvalidInput(
            f"dataset {dataset_id} has no ingested version yet; upload a file and finalize it "
            "(or fix the failed upload: see the dataset's error)"
        )
    return dataset.instrument, current


def allowed_for(version_cadence: str) -> list[str]:
    """Cadence labels a version can be prepared at: whole multiples of its own step (any for
    ``rt``), finest first."""
    if version_cadence == RT_CADENCE:
        return list(CADENCE_MS)
    step = CADENCE_MS[version_cadence]
    return [label for label, width in CADENCE_MS.items() if width % step == 0]


def _cadence(
    settings: Settings,
    principal: Principal,
    feed: DataType,
    version: DatasetVersion,
    asked: str | None,
) -> tuple[str, int]:
    """The cadence in effect: omitted = the version's own (``rt`` ticks stay ``rt``; ``rt``
    candles get the tier's default cadence)."""
    own = version.cadence
    if asked is None:
        if own != RT_CADENCE:
            return own, CADENCE_MS[own]
        if feed is DataType.TICKER:
            return RT_CADENCE, 0
        label = settings.tiers[principal.tier].default_cadence or DEFAULT_CADENCE
        return label, CADENCE_MS[label]
    allowed = allowed_for(own)
    if asked not in allowed:
        raise InvalidInput(
            f"cadence {asked!r} cannot be prepared from this dataset version (cadence {own}): "
            f"use its own cadence or a whole multiple of it: {', '.join(allowed)}",
            reason="INVALID_CADENCE",
        )
    return asked, CADENCE_MS[asked]
