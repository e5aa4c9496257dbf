"""Wire shapes of the dataset endpoints."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictStr

from backtestd.api.schemas.common import HalLink, WireModel


class CreateDatasetBody(WireModel):
    name: StrictStr
    instrument: StrictStr


class DatasetUploadTarget(WireModel):
    url: str
    expiresInMinutes: int


class DatasetUploadSession(WireModel):
    uploadId: str
    upload: DatasetUploadTarget


class DatasetCreated(DatasetUploadSession):
    datasetId: str
    name: str
    type: Literal["ticker"] = "ticker"
    instrument: str


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
    from_: str | None = Field(default=None, alias="from")
    to: str | None = None
    cadence: str | None = None
    timestampUnit: str | None = None
    bytes: int | None = None
    rows: int | None = None
    gaps: int | None = None
    largestGapSteps: int | None = None
    error: str | None = None


class DatasetLinks(WireModel):
    self: HalLink | None = None


class DatasetWithLinks(DatasetModel):
    dataUrl: str | None = None
    dataFormat: str | None = None
    links: DatasetLinks | None = Field(default=None, alias="_links")


class DatasetList(WireModel):
    datasets: list[DatasetModel]


class DeleteDatasetResponse(WireModel):
    datasetId: str
    deleted: bool


class FinalizeAccepted(WireModel):
    jobId: str


class DatasetUploadState(WireModel):
    uploadId: str
    status: Literal["uploading", "ingesting", "ready", "failed"]
    jobId: str | None = None
    error: str | None = None
    version: DatasetVersionModel | None = None


class CexImportSource(WireModel):
    exchange: StrictStr
    segment: Literal["spot"] = "spot"
    dataType: Literal["ticker", "klines"] = "ticker"


class DatasetImportRequest(WireModel):
    name: StrictStr
    instrument: StrictStr
    from_: StrictStr = Field(alias="from")
    to: StrictStr
    type: StrictStr
    cadence: StrictStr | None = None
    cex: CexImportSource | None = None
    dex: dict[str, object] | None = None


class DatasetImportCreated(WireModel):
    datasetId: str
    importId: str
    jobId: str
    status: Literal["fetching"] = "fetching"
    cadence: str | None = None  # 0.128.49: the candle width built, when one was asked


class DatasetImportState(WireModel):
    importId: str
    status: Literal["fetching", "ingesting", "ready", "failed"]
    jobId: str | None = None
    error: str | None = None
    version: DatasetVersionModel | None = None


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
