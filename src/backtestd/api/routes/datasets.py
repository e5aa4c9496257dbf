"""Dataset routes: datasets, upload sessions, finalize, imports.

The signed PUT of an upload and the signed data URL live in ``files.py``: they carry no
credentials, the link is the credential.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from backtestd.api.deps import DatasetsRead, DatasetsWrite, ServicesDep
from backtestd.api.schemas.common import HalLink, ResponseError
from backtestd.api.schemas.datasets import (
    CreateDatasetBody,
    DatasetCreated,
    DatasetImportCreated,
    DatasetImportRequest,
    DatasetImportState,
    DatasetLinks,
    DatasetList,
    DatasetModel,
    DatasetPreviewModel,
    DatasetUploadSession,
    DatasetUploadState,
    DatasetUploadTarget,
    DatasetVersionModel,
    DatasetWithLinks,
    DeleteDatasetResponse,
    FinalizeAccepted,
)
from backtestd.domain.datasets import DatasetStatus, DatasetVersion, SessionStatus
from backtestd.domain.marketdata import DataKind
from backtestd.domain.timefmt import iso_z
from backtestd.services.dataset_imports import ImportRequest
from backtestd.services.datasets import DatasetView, UploadState, UploadTarget

router = APIRouter(tags=["datasets"], responses={401: {"model": ResponseError}})
_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ResponseError},
    404: {"model": ResponseError},
    409: {"model": ResponseError},
    413: {"model": ResponseError},
    429: {"model": ResponseError},
}
# ``open`` (no bytes yet) is internal: on the wire a session is ``uploading`` until finalized.
_WIRE_STATUS = {SessionStatus.OPEN: "uploading"}


def _target(target: UploadTarget) -> DatasetUploadTarget:
    return DatasetUploadTarget(url=target.url, expiresInMinutes=target.expires_in_minutes)


def _version(version: DatasetVersion, data_url: str | None) -> DatasetVersionModel:
    return DatasetVersionModel(
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


def _dataset_fields(view: DatasetView) -> dict[str, Any]:
    """The Dataset fields; version-derived ones only while the dataset is ``ready``."""
    dataset = view.dataset
    fields: dict[str, Any] = {
        "datasetId": dataset.dataset_id,
        "name": dataset.name,
        "type": dataset.type.value,
        "instrument": dataset.instrument,
        "createdAt": iso_z(dataset.created_at),
        "status": dataset.status.value,
        "currentVersionId": dataset.current_version_id,
        "deletedAt": iso_z(dataset.deleted_at),
        "updatedAt": iso_z(dataset.updated_at),
    }
    version = view.version
    if dataset.status is DatasetStatus.READY and version is not None:
        fields.update(
            {
                "from": iso_z(version.data_from),
                "to": iso_z(version.data_to),
                "cadence": version.cadence,
                "timestampUnit": version.timestamp_unit.value,
                "bytes": version.bytes,
                "rows": version.rows,
                "gaps": version.gaps,
                "largestGapSteps": version.largest_gap_steps,
            }
        )
    if dataset.status is DatasetStatus.FAILED:
        fields["error"] = dataset.error
    return fields


def _session_fields(state: UploadState) -> dict[str, Any]:
    session = state.session
    fields: dict[str, Any] = {
        "status": _WIRE_STATUS.get(session.status, session.status.value),
    }
    if session.status in (SessionStatus.FETCHING, SessionStatus.INGESTING):
        fields["jobId"] = session.job_id
    if session.status is SessionStatus.FAILED:
        fields["error"] = session.error
    if session.status is SessionStatus.READY and state.version is not None:
        fields["version"] = _version(state.version, state.data_url)
    return fields


@router.post(
    "/datasets",
    status_code=201,
    response_model=DatasetCreated,
    responses=_ERRORS,
    summary="Create a dataset and its first upload session",
)
def create_dataset(
    body: CreateDatasetBody, principal: DatasetsWrite, services: ServicesDep
) -> DatasetCreated:
    dataset, session, target = services.datasets.create(principal, body.name, body.instrument)
    return DatasetCreated(
        uploadId=session.session_id,
        upload=_target(target),
        datasetId=dataset.dataset_id,
        name=dataset.name,
        instrument=dataset.instrument,
    )


@router.get(
    "/datasets",
    response_model=DatasetList,
    response_model_exclude_none=True,
    summary="List your datasets, most recently created first",
)
def list_datasets(
    principal: DatasetsRead, services: ServicesDep, includeDeleted: bool = False
) -> DatasetList:
    views = services.datasets.list(principal, includeDeleted)
    return DatasetList(datasets=[DatasetModel(**_dataset_fields(view)) for view in views])


@router.post(
    "/datasets/imports",
    status_code=202,
    response_model=DatasetImportCreated,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="Import a range from one of the service's exchanges as a new dataset",
)
def create_import(
    body: DatasetImportRequest, principal: DatasetsWrite, services: ServicesDep
) -> DatasetImportCreated:
    request = ImportRequest(
        name=body.name,
        instrument=body.instrument,
        from_=body.from_,
        to=body.to,
        type=body.type,
        cadence=body.cadence,
        exchange=body.cex.exchange if body.cex else None,
        segment=body.cex.segment if body.cex else "spot",
        data_kind=DataKind.parse(body.cex.dataType if body.cex else "ticker"),
    )
    dataset_id, import_id, job_id = services.dataset_imports.create(principal, request)
    return DatasetImportCreated(
        datasetId=dataset_id, importId=import_id, jobId=job_id, cadence=body.cadence
    )


@router.get(
    "/datasets/{datasetId}",
    response_model=DatasetWithLinks,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="A dataset with its data URL",
)
def get_dataset(datasetId: str, principal: DatasetsRead, services: ServicesDep) -> JSONResponse:
    view = services.datasets.get(principal, datasetId)
    fields = _dataset_fields(view)
    if view.dataset.status is DatasetStatus.READY and view.version is not None:
        fields["dataUrl"] = view.data_url
        fields["dataFormat"] = view.version.data_format.value
    links = DatasetLinks(self=HalLink(href=f"/v1/datasets/{datasetId}"))
    model = DatasetWithLinks(**fields, _links=links)
    return JSONResponse(model.model_dump(by_alias=True, exclude_none=True))


@router.delete(
    "/datasets/{datasetId}",
    response_model=DeleteDatasetResponse,
    responses=_ERRORS,
    summary="Delete a dataset (soft: running backtests finish)",
)
def delete_dataset(
    datasetId: str, principal: DatasetsWrite, services: ServicesDep
) -> DeleteDatasetResponse:
    services.datasets.delete(principal, datasetId)
    return DeleteDatasetResponse(datasetId=datasetId, deleted=True)


@router.post(
    "/datasets/{datasetId}/uploads",
    status_code=201,
    response_model=DatasetUploadSession,
    responses=_ERRORS,
    summary="Open the dataset's next upload session (or return the open one)",
)
def open_upload(
    datasetId: str, principal: DatasetsWrite, services: ServicesDep
) -> DatasetUploadSession:
    session, target = services.dataset_uploads.open_upload(principal, datasetId)
    return DatasetUploadSession(uploadId=session.session_id, upload=_target(target))


@router.get(
    "/datasets/{datasetId}/uploads/{uploadId}",
    response_model=DatasetUploadState,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="An upload session's state",
)
def upload_state(
    datasetId: str, uploadId: str, principal: DatasetsRead, services: ServicesDep
) -> DatasetUploadState:
    state = services.dataset_uploads.upload_state(principal, datasetId, uploadId)
    return DatasetUploadState(uploadId=uploadId, **_session_fields(state))


@router.post(
    "/datasets/{datasetId}/uploads/{uploadId}/finalize",
    status_code=202,
    response_model=FinalizeAccepted,
    responses=_ERRORS,
    summary="Ingest the uploaded file into a new version",
)
def finalize_upload(
    datasetId: str, uploadId: str, principal: DatasetsWrite, services: ServicesDep
) -> FinalizeAccepted:
    return FinalizeAccepted(jobId=services.dataset_uploads.finalize(principal, datasetId, uploadId))


@router.get(
    "/datasets/{datasetId}/imports/{importId}",
    response_model=DatasetImportState,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="An import's state",
)
def import_state(
    datasetId: str, importId: str, principal: DatasetsRead, services: ServicesDep
) -> DatasetImportState:
    state = services.dataset_imports.state(principal, datasetId, importId)
    return DatasetImportState(importId=importId, **_session_fields(state))


@router.get(
    "/datasets/{datasetId}/preview",
    response_model=DatasetPreviewModel,
    responses=_ERRORS,
    summary="The current version's close, downsampled for a chart (additive; 409 until ready)",
)
def dataset_preview(
    datasetId: str,
    principal: DatasetsRead,
    services: ServicesDep,
    points: Annotated[int, Query(ge=8, le=20_000)] = 1000,
) -> DatasetPreviewModel:
    preview = services.dataset_previews.preview(principal, datasetId, points)
    return DatasetPreviewModel(
        datasetId=preview.dataset_id,
        versionId=preview.version_id,
        rows=preview.rows,
        cadence=preview.cadence,
        downsampled=preview.downsampled,
        timestamps=list(preview.timestamps_ms),
        values=list(preview.close),
    )
