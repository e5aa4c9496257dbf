"""Every object-store key is built here, so the layout is documented in one place.

Layout::

    marketdata/{exchange}/{kind}/{SYMBOL}/{YYYY-MM-DD}/{HH}.lastra
        SYMBOL is BASE_QUOTE for spot and BASE_QUOTE_SETTLE for perpetuals.
    prepared/{prepare job id}/{column}.bin     raw little-endian columns, then manifest.json
    signals/{user}/{execute job id}.parquet    stored signals of one execution
    datasets/{user}/{dataset}/uploads/{upload}.bin        bytes PUT to an upload session
    datasets/{user}/{dataset}/versions/{version}.{fmt}    an immutable ingested version
"""

from __future__ import annotations

from datetime import datetime

from backtestd.domain.marketdata import DataKind, Instrument


def symbol_path(instrument: Instrument) -> str:
    parts = [instrument.base, instrument.quote]
    if instrument.settle:
        parts.append(instrument.settle)
    return "_".join(parts)


def market_hour_key(
    exchange_id: str, instrument: Instrument, kind: DataKind, hour: datetime
) -> str:
    return (
        f"marketdata/{exchange_id}/{kind.value}/{symbol_path(instrument)}/"
        f"{hour:%Y-%m-%d}/{hour:%H}.lastra"
    )


def prepared_column_key(job_id: str, column: str) -> str:
    """One raw little-endian column of a prepared dataset (memory-mapped by the engine)."""
    return f"prepared/{job_id}/{column}.bin"


def prepared_manifest_key(job_id: str) -> str:
    """Written last: a prepared dataset exists once its manifest does."""
    return f"prepared/{job_id}/manifest.json"


def signals_key(user_id: str, job_id: str) -> str:
    return f"signals/{user_id}/{job_id}.parquet"


def dataset_upload_key(user_id: str, dataset_id: str, upload_id: str) -> str:
    return f"datasets/{user_id}/{dataset_id}/uploads/{upload_id}.bin"


def dataset_version_key(user_id: str, dataset_id: str, version_id: str, extension: str) -> str:
    return f"datasets/{user_id}/{dataset_id}/versions/{version_id}.{extension}"


def dataset_preview_key(version_key: str) -> str:
    """The preview base stored beside a dataset version (``datasets/preview.py``)."""
    return f"{version_key}.preview.npz"


def dataset_of_key(key: str) -> tuple[str, str] | None:
    """The (user id, dataset id) a dataset object's key belongs to; ``None`` for other keys.

    >>> dataset_of_key(dataset_version_key("u1", "ds_2", "dsv_3", "lastra"))
    ('u1', 'ds_2')
    >>> dataset_of_key("signals/u1/job.parquet") is None
    True
    """
    parts = key.split("/")
    if len(parts) < 4 or parts[0] != "datasets":
        return None
    return parts[1], parts[2]
