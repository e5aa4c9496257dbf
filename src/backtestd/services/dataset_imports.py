"""Dataset imports: a range of one of the service's own exchanges becomes a dataset version.

``type: "cex"`` reads the hourly store (the ``sim`` exchange generates on demand, ingested
exchanges serve what they hold) and re-enters the upload's ingest chain; ``type: "dex"`` needs
on-chain sources this deployment does not have, and says so (400).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from backtestd.domain.accounts import Principal
from backtestd.domain.canonical import content_id
from backtestd.domain.datasets import (
    Dataset,
    DatasetImportSpec,
    DatasetLimits,
    DatasetSession,
    DatasetStatus,
    ImportRequest,
    ImportStarted,
    SessionKind,
    SessionStatus,
    UploadState,
)
from backtestd.domain.marketdata import DataKind
from backtestd.engine.cadence import CADENCE_MS, TICKER_CADENCES
from backtestd.engine.prepare import parse_range_bound
from backtestd.errors import InvalidInput, NotFound, PlanRequired
from backtestd.marketdata.catalogue import Catalogue
from backtestd.services.datasets import DatasetService, new_id, plain_pair
from backtestd.storage.db.repositories.datasets import DatasetRepository

IMPORT_CADENCES = {label: CADENCE_MS[label] for label in TICKER_CADENCES}
"""Candle widths an import can build: 0.128.25 sends 1s/1m/5m, 0.128.49 the 15 prepare labels."""


class DatasetImports:
    def __init__(self, datasets: DatasetService, catalogue: Catalogue) -> None:
        self._datasets = datasets
        self._catalogue = catalogue

    def create(self, principal: Principal, request: ImportRequest) -> ImportStarted:
        """Queue an import of a range into a new dataset."""
        service = self._datasets
        DatasetService.check_name(request.name)
        fetch = self._fetch(principal, request)
        now = service.clock()
        dataset = Dataset(
            dataset_id=new_id("ds"),
            user_id=principal.user_id,
            name=request.name,
            instrument=plain_pair(request.instrument),
            kind=DataKind.KLINES if request.cadence else DataKind.TICKERS,
            status=DatasetStatus.PENDING,
            created_at=now,
        )
        import_id = new_id("imp")
        job_id = content_id("import", principal.user_id, import_id)
        spec = replace(fetch, dataset_id=dataset.dataset_id, import_id=import_id)
        with service.database.unit_of_work() as uow:
            service.reserve(uow, principal, dataset)
            session = DatasetSession(
                session_id=import_id,
                dataset_id=dataset.dataset_id,
                user_id=principal.user_id,
                kind=SessionKind.IMPORT,
                status=SessionStatus.FETCHING,
                object_key="",
                created_at=now,
                updated_at=now,
                job_id=job_id,
            )
            DatasetRepository(uow.session).add_session(session)
            service.submit_job(uow, principal, job_id, spec)
        return ImportStarted(dataset.dataset_id, import_id, job_id, request.cadence)

    def state(self, principal: Principal, dataset_id: str, import_id: str) -> UploadState:
        return self._datasets.session_state(principal, dataset_id, import_id, SessionKind.IMPORT)

    def _fetch(self, principal: Principal, request: ImportRequest) -> DatasetImportSpec:
        """What the import reads and under which limits (dataset and import ids still blank)."""
        if request.source == "dex":
            raise InvalidInput(
                "type 'dex' imports read on-chain pools, and this deployment has no on-chain "
                "data source; import from one of the service's exchanges with type 'cex' and "
                "a cex block {exchange, segment: 'spot', dataType: 'ticker' | 'klines'}"
            )
        if request.source != "cex":
            raise InvalidInput(f"import type {request.source!r} is not known; use 'cex'")
        if not request.exchange:
            raise InvalidInput(
                "a 'cex' import needs a cex block {exchange, segment, dataType}, e.g. "
                '{"exchange": "sim", "segment": "spot", "dataType": "ticker"}'
            )
        if not self._catalogue.exchange_exists(request.exchange):
            raise InvalidInput(f"no exchange {request.exchange!r}; see GET /v1/exchanges")
        base, _, quote = plain_pair(request.instrument).partition("/")
        try:
            instrument = self._catalogue.resolve(request.exchange, base, quote)
        except NotFound as exc:
            raise InvalidInput(exc.message) from None
        if request.cadence is not None and request.cadence not in IMPORT_CADENCES:
            raise InvalidInput(
                f"cadence {request.cadence!r} cannot be imported; choose one of "
                f"{', '.join(IMPORT_CADENCES)}, or omit it for the exchange's native data",
                reason="INVALID_CADENCE",
            )
        limits = self._datasets.settings.tiers[principal.tier]
        plan = limits.cadences
        if request.cadence and plan is not None and request.cadence not in plan:
            raise PlanRequired(
                f"cadence {request.cadence!r} is not included in the {principal.tier} tier; it "
                f"offers {', '.join(plan) or 'no cadence'}",
                upgrade_url=self._datasets.settings.upgrade_url,
            )
        start, end = self._range(principal, request)
        return DatasetImportSpec(
            dataset_id="",
            import_id="",
            exchange=request.exchange,
            instrument=instrument.symbol,
            data_kind=request.data_kind,
            start=start,
            end=end,
            limits=DatasetLimits(
                principal.tier,
                limits.max_dataset_bytes,
                limits.max_total_storage_bytes,
                limits.max_dataset_rows,
            ),
            cadence=request.cadence,
            cadence_ms=IMPORT_CADENCES[request.cadence] if request.cadence else None,
        )

    def _range(self, principal: Principal, request: ImportRequest) -> tuple[datetime, datetime]:
        settings = self._datasets.settings
        try:
            start, end = parse_range_bound(request.from_), parse_range_bound(request.to)
        except ValueError as exc:
            raise InvalidInput(f"'from'/'to': {exc}") from None
        if end <= start:
            raise InvalidInput(f"'to' ({request.to}) must be after 'from' ({request.from_})")
        now = self._datasets.clock()
        if end > now:
            raise InvalidInput(f"'to' ({request.to}) is in the future; the latest allowed is now")
        hours = settings.tiers[principal.tier].max_import_range_hours
        if end - start > timedelta(hours=hours):
            span = (end - start) / timedelta(hours=1)
            raise InvalidInput(
                f"the import spans {span:g} hours, over the {principal.tier} tier's "
                f"maxImportRangeHours of {hours}; import at most {hours} hours at a time",
                reason="RANGE_TOO_LONG",
            )
        oldest = now - timedelta(days=settings.prepare_lookback_days)
        if start < oldest and self._catalogue.generates(request.exchange or ""):
            raise InvalidInput(
                f"'from' ({request.from_}) is older than the {settings.prepare_lookback_days}-day "
                f"window of generated data (earliest {oldest:%Y-%m-%d})",
                reason="OUTSIDE_WINDOW",
            )
        return start, end
