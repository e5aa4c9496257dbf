"""Black-box: the service on an S3-compatible object store (moto in server mode).

Market hours, prepared columns (read by workers through the local read-through cache), stored
signals and datasets all live in the bucket; upload and data links are the store's own presigned
URLs, and nothing is written to the local object directory.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator

import httpx
import pyarrow.parquet as pq
import pytest
from qtsurfer_sdk import AuthenticatedSession, auth

from tests.e2e.backtest_helpers import call, recent_range, wait_prepare, wait_result
from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.support.services import S3_TEST_CREDENTIALS, s3_server
from tests.support.strategies import source


@pytest.fixture(scope="module")
def s3_live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str]]:
    with s3_server() as endpoint:
        server = LiveServer(
            tmp_path_factory.mktemp("s3-server"),
            extra_env={
                **S3_TEST_CREDENTIALS,
                "BACKTESTD_OBJECT_STORE_URL": "s3://backtestd-e2e/objects",
                "BACKTESTD_S3_ENDPOINT_URL": endpoint,
                "BACKTESTD_TIERS__FREE__MAX_DATASET_BYTES": "4000",
            },
        )
        server.start()
        try:
            yield server, endpoint
        finally:
            server.stop()


@pytest.fixture(scope="module")
def gina(s3_live: tuple[LiveServer, str]) -> AuthenticatedSession:
    server, _ = s3_live
    return auth(server.create_key("s3-gina", tier="pro"), base_url=server.base_url)


def prices_csv(rows: int) -> bytes:
    lines = ["timestamp,close"] + [f"{1_740_000_000 + i},{100 + i % 17}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def test_dataset_upload_goes_through_s3_presigned_urls(
    s3_live: tuple[LiveServer, str], gina: AuthenticatedSession
) -> None:
    server, endpoint = s3_live
    created = gina.create_dataset(name="on-s3", instrument="BTC/USDT")
    assert created.upload.url.startswith(endpoint)
    gina.upload_dataset_file(created, io.BytesIO(prices_csv(3600)))
    waiting = gina.get_dataset_upload(dataset_id=created.dataset_id, upload_id=created.upload_id)
    assert waiting.status.value == "uploading"
    gina.finalize_dataset_upload(dataset_id=created.dataset_id, upload_id=created.upload_id)
    deadline = time.monotonic() + 120
    pauses = Pauses()
    while True:
        state = gina.get_dataset_upload(dataset_id=created.dataset_id, upload_id=created.upload_id)
        if state.status.value in ("ready", "failed") or time.monotonic() > deadline:
            break
        pauses.sleep()
    assert state.status.value == "ready", state.to_dict()
    assert state.version.rows == 3600
    assert state.version.cadence == "1s"
    url = gina.get_dataset(created.dataset_id).to_dict()["dataUrl"]
    assert url.startswith(endpoint)
    whole = httpx.get(url, timeout=30)
    assert whole.status_code == 200
    assert len(whole.content) == state.version.bytes_
    part = httpx.get(url, headers={"Range": "bytes=4-35"}, timeout=30)
    assert part.status_code == 206
    assert part.content == whole.content[4:36]
    body = {
        "datasetId": created.dataset_id,
        "from": "2025-02-19T21:20:00Z",
        "to": "2025-02-19T22:20:00Z",
    }
    prepared = call(server, gina, "POST", "/backtest/user/ticker/prepare", json=body)
    assert prepared.status_code == 202, prepared.text
    done = wait_prepare(gina, "user", "ticker", prepared.json()["jobId"]).to_dict()
    assert done["status"] == "Completed", done
    assert not (server.data_dir / "objects").exists()


def test_prepare_execute_and_signals_live_in_the_bucket(
    s3_live: tuple[LiveServer, str], gina: AuthenticatedSession
) -> None:
    server, endpoint = s3_live
    start, end = recent_range(2)
    job = gina.prepare(
        exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
    )
    assert wait_prepare(gina, "sim", "ticker", job.job_id).status.value == "Completed"
    strategy_id = gina.compile_strategy(source("ema_cross.java")).strategy_id
    run = gina.execute(
        exchange_id="sim",
        type_="ticker",
        prepare_job_id=job.job_id,
        strategy_id=strategy_id,
        store_signals=True,
    )
    result = wait_result(gina, "sim", "ticker", run.job_id)
    assert result["state"]["status"] == "Completed", result
    signals_url = result["results"]["signalsUrl"]
    assert signals_url.startswith(endpoint)
    table = pq.read_table(io.BytesIO(httpx.get(signals_url, timeout=30).content))
    assert table.num_rows > 0
    assert (server.data_dir / "s3-cache").exists()  # workers read prepared columns from it


def test_over_cap_upload_is_refused_at_finalize_and_removed(
    s3_live: tuple[LiveServer, str],
) -> None:
    server, _ = s3_live
    hank = auth(server.create_key("s3-hank", tier="free"), base_url=server.base_url)
    created = hank.create_dataset(name="too-big", instrument="BTC/USDT")
    hank.upload_dataset_file(created, io.BytesIO(prices_csv(2000)))  # > 4,000 bytes
    path = f"/datasets/{created.dataset_id}/uploads/{created.upload_id}/finalize"
    response = call(server, hank, "POST", path)
    assert response.status_code == 413
    assert "4,000" in response.json()["message"]
    again = call(server, hank, "POST", path)
    assert again.status_code == 400  # the bytes were removed: nothing to finalize
