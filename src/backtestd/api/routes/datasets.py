"""Dataset routes: datasets, upload sessions, finalize, imports.

The signed PUT of an upload and the signed data URL live in ``files.py``: they carry no
credentials, the link is the credential.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from backtestd.api.deps import DatasetsRead, DatasetsWrite, ServicesDep
from backtestd.api.schemas.common import ResponseDocs, ResponseError
from backtestd.api.schemas.datasets import (
    CreateDatasetBody,
    DatasetCreated,
    DatasetImportCreated,
    DatasetImportRequest,
    DatasetImportState,
    DatasetList,
    DatasetPreviewModel,
    DatasetUploadSession,
    DatasetUploadState,
    DatasetWithLinks,
    DeleteDatasetResponse,
    FinalizeAccepted,
)

router = APIRouter(tags=["datasets"], responses={401: {"model": ResponseError}})
_ERRORS: ResponseDocs = {
    400: {"model": ResponseError},
    404: {"model": ResponseError},
    409: {"model": ResponseError},
    413: {"model": ResponseError},
    429: {"model": ResponseError},
}


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
    return DatasetCreated.of(services.datasets.create(principal, body.name, body.instrument))


@router.get(
    "/datasets",
    response_model=DatasetList,
    response_model_exclude_none=True,
    summary="List your datasets, most recently created first",
)
def list_datasets(
    principal: DatasetsRead, services: ServicesDep, includeDeleted: bool = False
) -> DatasetList:
    return DatasetList.of(services.datasets.list(principal, includeDeleted))


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
    return DatasetImportCreated.of(services.dataset_imports.create(principal, body.to_domain()))


@router.get(
    "/datasets/{datasetId}",
    response_model=DatasetWithLinks,
    response_model_exclude_none=True,
    responses=_ERRORS,
    summary="A dataset with its data URL",
)
def get_dataset(datasetId: str, principal: DatasetsRead, services: ServicesDep) -> DatasetWithLinks:
    return DatasetWithLinks.of(services.datasets.get(principal, datasetId))


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
    return DeleteDatasetResponse.of(datasetId)


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
    return DatasetUploadSession.of(services.dataset_uploads.open_upload(principal, datasetId))


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
    return DatasetUploadState.of(
        services.dataset_uploads.upload_state(principal, datasetId, uploadId)
    )


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
    return DatasetImportState.of(services.dataset_imports.state(principal, datasetId, importId))


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
    return DatasetPreviewModel.of(services.dataset_previews.preview(principal, datasetId, points))
