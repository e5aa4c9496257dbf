"""Drill (issue 12.4): the S3 server goes away in the middle of a dataset upload.

The service and the client reach the S3-compatible server (moto in server mode) through a TCP
proxy the test cuts while the presigned PUT is streaming. The upload must fail cleanly and leave
nothing half-written (finalize then says nothing was uploaded, no version appears); while the
store is down, calls that need it are 503 ``{code, message}``; once it is back, the same
presigned URL takes the file again and the dataset ingests with every row.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from qtsurfer_sdk import auth

from tests.e2e.backtest_helpers import call
from tests.support.server import LiveServer
from tests.support.services import S3_TEST_CREDENTIALS, s3_server
from tests.support.tcp_proxy import TcpProxy

ROWS = 400_000


def _csv(rows: int) -> bytes:
    lines = ["timestamp,close"] + [f"{1_740_000_000 + i},{100 + i % 17}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def drill(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, TcpProxy]]:
    with s3_server() as endpoint:
        target = urlsplit(endpoint)
        proxy = TcpProxy(target.hostname or "127.0.0.1", target.port or 80)
        proxy.start()
        server = LiveServer(
            Path(tmp_path_factory.mktemp("s3-outage")),
            extra_env={
                **S3_TEST_CREDENTIALS,
                "BACKTESTD_OBJECT_STORE_URL": "s3://backtestd-drill/objects",
                "BACKTESTD_S3_ENDPOINT_URL": f"http://127.0.0.1:{proxy.port}",
                "BACKTESTD_DASK_WORKERS": "1",
            },
        )
        server.start()
        try:
            yield server, proxy
        finally:
            if not proxy.running:
                proxy.start()
            server.stop()
            proxy.cut()


def test_an_upload_cut_by_an_s3_outage_fails_cleanly_and_can_be_retried(
    drill: tuple[LiveServer, TcpProxy], capsys: pytest.CaptureFixture[str]
) -> None:
    server, proxy = drill
    session = auth(server.create_key("s3-drill", tier="pro"), base_url=server.base_url)
    created = session.create_dataset(name="cut-short", instrument="BTC/USDT")
    body = _csv(ROWS)
    finalize = f"/datasets/{created.dataset_id}/uploads/{created.upload_id}/finalize"

    def slow_body() -> Iterator[bytes]:
        for start in range(0, len(body), 64 * 1024):
            yield body[start : start + 64 * 1024]
            time.sleep(0.005)

    outcome: dict[str, object] = {}

    def upload() -> None:
        try:
            outcome["status"] = httpx.put(created.upload.url, content=slow_body(), timeout=60)
        except httpx.HTTPError as exc:
            outcome["error"] = exc

    uploader = threading.Thread(target=upload)
    uploader.start()
    time.sleep(0.4)  # part of the file is on its way
    proxy.cut()
    cut_at = time.monotonic()
    uploader.join(timeout=60)
    upload_failed_after = time.monotonic() - cut_at
    asked = time.monotonic()
    down = call(server, session, "POST", finalize)
    answered_503_in = time.monotonic() - asked
    proxy.start()
    back_at = time.monotonic()

    assert "error" in outcome or getattr(outcome.get("status"), "status_code", 200) >= 400, outcome
    assert down.status_code == 503, down.text
    assert down.json()["code"] == 503
    assert "object store" in down.json()["message"]
    assert down.headers["Retry-After"] == "5"
    # Nothing half-written: the store holds no object for the session, so there is nothing
    # to finalize, and the dataset has no version.
    nothing = call(server, session, "POST", finalize)
    assert nothing.status_code == 400, nothing.text
    assert "nothing has been uploaded" in nothing.json()["message"]
    assert (
        call(server, session, "GET", f"/datasets/{created.dataset_id}").json().get("latestVersion")
        is None
    )

    retried = httpx.put(created.upload.url, content=body, timeout=120)
    assert retried.status_code == 200, retried.text
    accepted = call(server, session, "POST", finalize)
    assert accepted.status_code == 202, accepted.text
    retried_in = time.monotonic() - back_at
    deadline = time.monotonic() + 180
    while True:
        state = session.get_dataset_upload(
            dataset_id=created.dataset_id, upload_id=created.upload_id
        )
        if state.status.value in ("ready", "failed"):
            break
        assert time.monotonic() < deadline, state.to_dict()
        time.sleep(0.5)
    assert state.status.value == "ready", state.to_dict()
    assert state.version.rows == ROWS
    with capsys.disabled():  # the drill's figures, for docs/deployment.md
        sys.stdout.write(
            f"\nS3 cut mid-upload: the client's PUT failed {upload_failed_after:.1f} s after "
            f"the cut; finalize while down answered 503 in {answered_503_in:.2f} s; once back, "
            f"the retried PUT ({len(body) / 1e6:.1f} MB) and finalize took {retried_in:.1f} s, "
            f"and the ingest was ready {time.monotonic() - back_at:.1f} s after the store "
            "returned\n"
        )
