"""Wire shapes of the dataset endpoints, each built from the domain value the service returns
(``of``); the wire's spellings of the dataset vocabulary live here only."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, StrictStr

from backtestd.api.schemas.common import HalLink, RequestBody, WireModel
from backtestd.domain import datasets as domain
from backtestd.domain.datasets import DatasetStatus, SessionStatus
from backtestd.domain.marketdata import DataKind
from backtestd.domain.timefmt import iso_z

WIRE_TYPE: dict[DataKind, Literal["ticker", "klines"]] = {
    DataKind.TICKERS: "ticker",
    DataKind.KLINES: "klines",
}
"""``Dataset.type``: note the singular ``ticker`` beside the plural ``klines``."""

WIRE_SESSION_STATUS = {SessionStatus.OPEN: SessionStatus.UPLOADING}
"""``open`` (no bytes yet) is internal: on the wire a session is ``uploading`` until finalized."""


class CreateDatasetBody(RequestBody):
    name: StrictStr
    instrument: StrictStr


class DatasetUploadTarget(WireModel):
    url: str
    expiresInMinutes: int

    @classmethod
    def of(cls, target: domain.UploadTarget) -> Self:
        return cls(url=target.url, expiresInMinutes=target.expires_in_minutes)


class DatasetUploadSession(WireModel):
    uploadId: str
    upload: DatasetUploadTarget

    @classmethod
    def of(cls, upload: domain.OpenUpload) -> Self:
        return cls(uploadId=upload.upload_id, upload=DatasetUploadTarget.of(upload.target))


class DatasetCreated(WireModel):
    uploadId: str
    upload: DatasetUploadTarget
    datasetId: str
    name: str
    type: Literal["ticker"] = "ticker"
    instrument: str

    @classmethod
    def of(cls, created: domain.CreatedDataset) -> Self:
        dataset = created.dataset
        return cls(
            uploadId=created.upload.upload_id,
            upload=DatasetUploadTarget.of(created.upload.target),
            datasetId=dataset.dataset_id,
            name=dataset.name,
            instrument=dataset.instrument,
        )


class DatasetVersionModel(WireModel):
    datasetId: str
    id: str | None = None
    bytes: int | None = None
    rows: int | None = None
    cadence: str | None = None
    timestampUnit: str | None = None
    gaps: int | None = None
    largestGapSteps: int | None = None
    dataUrl: str | None = None
    dataFormat: str | None = None

    @classmethod
    def of(cls, version: domain.DatasetVersion, data_url: str | None) -> Self:
        return cls(
            datasetId=version.dataset_id,
            id=version.version_id,
            bytes=version.bytes,
            rows=version.rows,
            cadence=version.cadence,
            timestampUnit=version.timestamp_unit.value,
            gaps=version.gaps,
            largestGapSteps=version.largest_gap_steps,
            dataUrl=data_url,
            dataFormat=version.data_format.value,
        )


class DatasetModel(WireModel):
    datasetId: str
    name: str
    type: str
    instrument: str
    createdAt: str
    status: str
    currentVersionId: str | None = None
    deletedAt: str | None = None
    updatedAt: str | None = None
    from_: str | None = Field(default=None, serialization_alias="from")
    to: str | None = None
    cadence: str | None = None
    timestampUnit: str | None = None
    bytes: int | None = None
    rows: int | None = None
    gaps: int | None = None
    largestGapSteps: int | None = None
    error: str | None = None

    @classmethod
    def of(cls, view: domain.DatasetView) -> Self:
        """The Dataset fields; version-derived ones only while the dataset is ``ready``, the
        error only while it is ``failed`` (absent fields are left out: routes exclude None)."""
        dataset = view.dataset
        shown = view.version if dataset.status is DatasetStatus.READY else None
        return cls(
            datasetId=dataset.dataset_id,
            name=dataset.name,
            type=WIRE_TYPE[dataset.kind],
            instrument=dataset.instrument,
            createdAt=iso_z(dataset.created_at) or "",
            status=dataset.status.value,
            currentVersionId=dataset.current_version_id,
            deletedAt=iso_z(dataset.deleted_at),
            updatedAt=iso_z(dataset.updated_at),
            from_=iso_z(shown.data_from) if shown else None,
            to=iso_z(shown.data_to) if shown else None,
            cadence=shown.cadence if shown else None,
            timestampUnit=shown.timestamp_unit.value if shown else None,
            bytes=shown.bytes if shown else None,
            rows=shown.rows if shown else None,
            gaps=shown.gaps if shown else None,
            largestGapSteps=shown.largest_gap_steps if shown else None,
            error=dataset.error if dataset.status is DatasetStatus.FAILED else None,
        )


class DatasetLinks(WireModel):
    self: HalLink | None = None


class DatasetWithLinks(DatasetModel):
    dataUrl: str | None = None
    dataFormat: str | None = None
    links: DatasetLinks | None = Field(default=None, alias="_links")

    @classmethod
    def of(cls, view: domain.DatasetView) -> Self:
        """The dataset with its data URL while ready, and its own link."""
        base = DatasetModel.of(view).model_dump()
        shown = view.version if view.dataset.status is DatasetStatus.READY else None
        return cls(
            **base,
            dataUrl=view.data_url if shown else None,
            dataFormat=shown.data_format.value if shown else None,
            _links=DatasetLinks(self=HalLink(href=f"/v1/datasets/{view.dataset.dataset_id}")),
        )


class DatasetList(WireModel):
    datasets: list[DatasetModel]

    @classmethod
    def of(cls, views: list[domain.DatasetView]) -> Self:
        return cls(datasets=[DatasetModel.of(view) for view in views])


class DeleteDatasetResponse(WireModel):
    datasetId: str
    deleted: bool

    @classmethod
    def of(cls, dataset_id: str) -> Self:
        return cls(datasetId=dataset_id, deleted=True)


class FinalizeAccepted(WireModel):
    jobId: str


class UploadReceived(WireModel):
    """The signed PUT's answer (not in the OpenAPI document: the route is the store's stand-in)."""

    uploadId: str
    bytes: int


def _wire_status(state: domain.UploadState) -> Any:
    """The session's status as the wire spells it (``Any``: each state model narrows it to its
    own ``Literal`` and validates it)."""
    return WIRE_SESSION_STATUS.get(state.status, state.status).value


def _version_model(state: domain.UploadState) -> DatasetVersionModel | None:
    if state.status is SessionStatus.READY and state.version is not None:
        return DatasetVersionModel.of(state.version, state.data_url)
    return None


class DatasetUploadState(WireModel):
    uploadId: str
    status: Literal["uploading", "ingesting", "ready", "failed"]
    jobId: str | None = None
    error: str | None = None
    version: DatasetVersionModel | None = None

    @classmethod
    def of(cls, state: domain.UploadState) -> Self:
        """The status, the job while it works, the error once failed, the version once ready."""
        return cls(
            uploadId=state.session.session_id,
            status=_wire_status(state),
            jobId=state.session.job_id if state.status in domain.BUSY else None,
            error=state.error if state.status is SessionStatus.FAILED else None,
            version=_version_model(state),
        )


class CexImportSource(WireModel):
    exchange: StrictStr
    segment: Literal["spot"] = "spot"
    dataType: Literal["ticker", "klines"] = "ticker"


class DatasetImportRequest(RequestBody):
    name: StrictStr
    instrument: StrictStr
    from_: StrictStr = Field(alias="from")
    to: StrictStr
    type: StrictStr
    cadence: StrictStr | None = None
    cex: CexImportSource | None = None
    dex: dict[str, object] | None = None

    def to_domain(self) -> domain.ImportRequest:
        """The import as asked; the service checks it (``type``, exchange, range, cadence)."""
        return domain.ImportRequest(
            name=self.name,
            instrument=self.instrument,
            from_=self.from_,
            to=self.to,
            source=self.type,
            cadence=self.cadence,
            exchange=self.cex.exchange if self.cex else None,
            data_kind=DataKind.parse(self.cex.dataType if self.cex else "ticker"),
        )


class DatasetImportCreated(WireModel):
    datasetId: str
    importId: str
    jobId: str
    status: Literal["fetching"] = "fetching"
    cadence: str | None = None  # 0.128.49: the candle width built, when one was asked

    @classmethod
    def of(cls, started: domain.ImportStarted) -> Self:
        return cls(
            datasetId=started.dataset_id,
            importId=started.import_id,
            jobId=started.job_id,
            cadence=started.cadence,
        )


class DatasetImportState(WireModel):
    importId: str
    status: Literal["fetching", "ingesting", "ready", "failed"]
    jobId: str | None = None
    error: str | None = None
    version: DatasetVersionModel | None = None

    @classmethod
    def of(cls, state: domain.UploadState) -> Self:
        """The status, the job while it works, the error once failed, the version once ready."""
        return cls(
            importId=state.session.session_id,
            status=_wire_status(state),
            jobId=state.session.job_id if state.status in domain.BUSY else None,
            error=state.error if state.status is SessionStatus.FAILED else None,
            version=_version_model(state),
        )


class DatasetPreviewModel(WireModel):
    """Additive (docs/api-decisions.md): the current version's close, downsampled with its
    extremes kept, for a chart; ``timestamps`` in epoch milliseconds."""

    datasetId: str
    versionId: str
    rows: int
    cadence: str
    column: Literal["close"] = "close"
    downsampled: bool
    timestamps: list[int]
    values: list[float]

    @classmethod
    def of(cls, preview: domain.DatasetPreview) -> Self:
        return cls(
            datasetId=preview.dataset_id,
            versionId=preview.version_id,
            rows=preview.rows,
            cadence=preview.cadence,
            downsampled=preview.downsampled,
            timestamps=list(preview.timestamps_ms),
            values=list(preview.close),
        )
