"""Black-box: user datasets through the official SDK 0.4.2 and raw HTTP on a live server.

Upload (signed PUT) → finalize → ingest → version fields → data URL with ranges → prepare,
execute on ``exchangeId=user``; failures that keep earlier versions; imports from ``sim``;
limits; and isolation (another user's ids are 404).
"""

from __future__ import annotations

import gzip
import io
import math
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from lastra import LastraReader
from qtsurfer_sdk import AuthenticatedSession, QTSError, auth

from tests.e2e.backtest_helpers import call, recent_range, wait_prepare, wait_result
from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.support.strategies import source

START = datetime(2025, 3, 3, tzinfo=UTC)
MINUTES = 180
GAP = range(100, 104)  # four missing minutes: one gap of 4 steps


def candle_rows() -> list[tuple[datetime, float, float, float, float, float]]:
    """Three hours of 1-minute candles with one four-minute hole."""
    rows = []
    for minute in range(MINUTES):
        if minute in GAP:
            continue
        close = 100 + 10 * math.sin(minute / 9)
        rows.append(
            (
                START + timedelta(minutes=minute),
                close - 0.5,
                close + 1,
                close - 1,
                close,
                1 + minute % 7,
            )
        )
    return rows


def candle_csv() -> bytes:
    lines = ["timestamp,open,high,low,close,volume"]
    for ts, o, h, lo, c, v in candle_rows():
        lines.append(f"{ts:%Y-%m-%dT%H:%M:%SZ},{o!r},{h!r},{lo!r},{c!r},{v!r}")
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def dana(live_server: LiveServer) -> AuthenticatedSession:
    return auth(live_server.create_key("ds-dana", tier="pro"), base_url=live_server.base_url)


@pytest.fixture(scope="module")
def eve(live_server: LiveServer) -> AuthenticatedSession:
    return auth(live_server.create_key("ds-eve", tier="pro"), base_url=live_server.base_url)


def wait_upload(
    session: AuthenticatedSession, dataset_id: str, upload_id: str, timeout: float = 120
) -> Any:
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        state = session.get_dataset_upload(dataset_id=dataset_id, upload_id=upload_id)
        if state.status.value in ("ready", "failed"):
            return state
        pauses.sleep()
    raise AssertionError(f"upload {upload_id} not ingested after {timeout}s")


def ingest(session: AuthenticatedSession, dataset_id: str, target: Any, data: bytes) -> Any:
    session.upload_dataset_file(target, io.BytesIO(data))
    accepted = session.finalize_dataset_upload(dataset_id=dataset_id, upload_id=target.upload_id)
    return wait_upload(session, dataset_id, target.upload_id), accepted.job_id


@pytest.fixture(scope="module")
def candles(dana: AuthenticatedSession) -> dict[str, Any]:
    """A ready 1-minute candle dataset; what its first ingest answered."""
    created = dana.create_dataset(name="candles-1m", instrument="btc/usdt")
    state, job_id = ingest(dana, created.dataset_id, created, candle_csv())
    assert state.status.value == "ready", state.to_dict()
    return {"created": created, "state": state, "job_id": job_id}


def test_create_answers_an_absolute_signed_upload_target(
    live_server: LiveServer, candles: dict[str, Any]
) -> None:
    created = candles["created"]
    assert created.dataset_id
    assert created.upload_id
    assert created.name == "candles-1m"
    assert created.instrument == "BTC/USDT"
    assert created.type_.value == "ticker"
    assert created.upload.url.startswith(live_server.base_url.removesuffix("/v1"))
    assert created.upload.expires_in_minutes == 15


def test_ingest_discovers_cadence_gaps_and_counts(candles: dict[str, Any]) -> None:
    version = candles["state"].version
    rows = candle_rows()
    assert version.rows == len(rows)
    assert version.cadence == "1m"
    assert version.gaps == 1
    assert version.largest_gap_steps == len(GAP)
    assert version.timestamp_unit.value == "iso"
    assert version.data_format.value == "lastra"
    assert version.id.startswith("dsv_")


def test_dataset_reads_ready_with_version_fields_and_link(
    dana: AuthenticatedSession, candles: dict[str, Any]
) -> None:
    dataset = dana.get_dataset(candles["created"].dataset_id)
    body = dataset.to_dict()
    rows = candle_rows()
    assert body["status"] == "ready"
    assert body["type"] == "klines"  # candles discovered in the data
    assert body["currentVersionId"] == candles["state"].version.id
    assert datetime.fromisoformat(body["from"]) == rows[0][0]
    assert datetime.fromisoformat(body["to"]) == rows[-1][0]
    assert body["rows"] == len(rows)
    assert body["cadence"] == "1m"
    assert body["dataFormat"] == "lastra"
    assert body["dataUrl"].startswith("http")
    assert "error" not in body
    listed = dana.list_datasets().to_dict()["datasets"]
    assert listed[0]["datasetId"] == candles["created"].dataset_id or any(
        d["datasetId"] == candles["created"].dataset_id for d in listed
    )


def test_data_url_serves_the_version_with_ranges(
    dana: AuthenticatedSession, candles: dict[str, Any]
) -> None:
    url = dana.get_dataset(candles["created"].dataset_id).to_dict()["dataUrl"]
    whole = httpx.get(url, timeout=30)
    assert whole.status_code == 200
    assert whole.headers["accept-ranges"] == "bytes"
    reader = LastraReader.from_bytes(whole.content)
    closes = list(reader.read_series_double("close"))
    assert closes == [row[4] for row in candle_rows()]
    part = httpx.get(url, headers={"Range": "bytes=10-99"}, timeout=30)
    assert part.status_code == 206
    assert part.content == whole.content[10:100]
    assert part.headers["content-range"] == f"bytes 10-99/{len(whole.content)}"
    tail = httpx.get(url, headers={"Range": "bytes=-16"}, timeout=30)
    assert tail.status_code == 206
    assert tail.content == whole.content[-16:]
    beyond = httpx.get(url, headers={"Range": f"bytes={len(whole.content)}-"}, timeout=30)
    assert beyond.status_code == 416
    tampered = httpx.get(url.replace("sig=", "sig=0"), timeout=30)
    assert tampered.status_code == 404
    assert tampered.json()["code"] == 404


def test_preview_is_the_close_series_downsampled_with_its_extremes(
    live_server: LiveServer,
    dana: AuthenticatedSession,
    eve: AuthenticatedSession,
    candles: dict[str, Any],
) -> None:
    """``GET /datasets/{id}/preview`` (additive, docs/api-decisions.md): every close when the
    version is short, its extremes when downsampled; 409 before a version is ready; 404 for
    another user."""
    dataset_id = candles["created"].dataset_id
    headers = {"Authorization": f"Bearer {dana.token.access_token}"}  # type: ignore[union-attr]
    url = f"{live_server.base_url}/datasets/{dataset_id}/preview"
    rows = candle_rows()
    whole = httpx.get(url, headers=headers, timeout=30)
    assert whole.status_code == 200
    body = whole.json()
    assert body["versionId"] == candles["state"].version.id
    assert (body["rows"], body["cadence"], body["column"]) == (len(rows), "1m", "close")
    assert body["downsampled"] is False
    assert body["values"] == [row[4] for row in rows]
    assert body["timestamps"] == [int(row[0].timestamp() * 1000) for row in rows]
    small = httpx.get(url, params={"points": 40}, headers=headers, timeout=30).json()
    assert small["downsampled"] is True
    assert len(small["values"]) <= 40
    assert max(small["values"]) == max(row[4] for row in rows)
    assert min(small["values"]) == min(row[4] for row in rows)
    assert small["timestamps"] == sorted(small["timestamps"])
    assert httpx.get(url, params={"points": 2}, headers=headers).status_code == 400
    other = {"Authorization": f"Bearer {eve.token.access_token}"}  # type: ignore[union-attr]
    assert httpx.get(url, headers=other).status_code == 404
    empty = dana.create_dataset(name="not-yet", instrument="btc/usdt")
    pending = httpx.get(
        f"{live_server.base_url}/datasets/{empty.dataset_id}/preview", headers=headers
    )
    assert pending.status_code == 409
    assert "no ready version" in pending.json()["message"]
    deleted = httpx.delete(f"{live_server.base_url}/datasets/{empty.dataset_id}", headers=headers)
    assert deleted.status_code == 200


def test_finalize_is_idempotent_then_spent(
    live_server: LiveServer, dana: AuthenticatedSession, candles: dict[str, Any]
) -> None:
    created = candles["created"]
    path = f"/datasets/{created.dataset_id}/uploads/{created.upload_id}/finalize"
    again = call(live_server, dana, "POST", path)
    assert again.status_code == 409, again.text
    assert "already produced version" in again.json()["message"]


def test_repeat_finalize_before_version_returns_same_job(
    live_server: LiveServer, dana: AuthenticatedSession
) -> None:
    created = dana.create_dataset(name="twice", instrument="ETH/USDT")
    dana.upload_dataset_file(created, io.BytesIO(candle_csv()))
    waiting = dana.get_dataset_upload(dataset_id=created.dataset_id, upload_id=created.upload_id)
    assert waiting.status.value == "uploading"
    first = dana.finalize_dataset_upload(dataset_id=created.dataset_id, upload_id=created.upload_id)
    path = f"/datasets/{created.dataset_id}/uploads/{created.upload_id}/finalize"
    second = call(live_server, dana, "POST", path)
    assert second.status_code in (202, 409), second.text
    if second.status_code == 202:  # still ingesting: the same job
        assert second.json() == {"jobId": first.job_id}
    assert wait_upload(dana, created.dataset_id, created.upload_id).status.value == "ready"


def test_prepare_and_execute_on_user_kline(
    dana: AuthenticatedSession, candles: dict[str, Any]
) -> None:
    dataset_id = candles["created"].dataset_id
    frm, to = "2025-03-03T00:00:00Z", "2025-03-03T03:00:00Z"
    job = dana.prepare(
        exchange_id="user", type_="kline", dataset_id=dataset_id, from_=frm, to=to, cadence="5m"
    )
    state = wait_prepare(dana, "user", "kline", job.job_id).to_dict()
    assert state["status"] == "Completed", state
    buckets = {int(row[0].timestamp()) // 300 for row in candle_rows()}
    assert state["cadence"] == "5m"
    assert state["coverageRatio"] == pytest.approx(len(buckets) / 36)
    assert state["gaps"] == 0  # a 4-minute hole inside 5-minute bars leaves none empty
    assert datetime.fromisoformat(state["dataFrom"]) == START
    strategy_id = dana.compile_strategy(source("sma_kline.java")).strategy_id
    run = dana.execute(
        exchange_id="user", type_="kline", prepare_job_id=job.job_id, strategy_id=strategy_id
    )
    result = wait_result(dana, "user", "kline", run.job_id)
    assert result["state"]["status"] == "Completed", result
    same = dana.prepare(
        exchange_id="user", type_="kline", dataset_id=dataset_id, from_=frm, to=to, cadence="5m"
    )
    assert same.job_id == job.job_id


def test_sweep_on_user_matches_single_executes(
    live_server: LiveServer, dana: AuthenticatedSession, candles: dict[str, Any]
) -> None:
    body = {
        "datasetId": candles["created"].dataset_id,
        "from": "2025-03-03T00:00:00Z",
        "to": "2025-03-03T03:00:00Z",
        "cadence": "1m",
    }
    accepted = call(live_server, dana, "POST", "/backtest/user/kline/prepare", json=body)
    prepared = accepted.json()["jobId"]
    assert wait_prepare(dana, "user", "kline", prepared).status.value == "Completed"
    strategy_id = dana.compile_strategy(source("sma_kline.java")).strategy_id
    sweep = {
        "strategyId": strategy_id,
        "sweep": {"params": {"sma.period": {"values": [3, 8]}}, "sampler": "grid"},
    }
    base = f"/backtest/user/kline/executeSweep/{prepared}"
    submitted = call(live_server, dana, "POST", base, json=sweep)
    assert submitted.status_code == 202, submitted.text
    deadline = time.monotonic() + 180
    pauses = Pauses()
    while True:
        result = call(live_server, dana, "GET", f"{base}/{submitted.json()['sweepId']}").json()
        if result.get("status") not in ("RUNNING", None) or time.monotonic() > deadline:
            break
        pauses.sleep()
    assert result["status"] == "COMPLETED", result
    by_period = {row["params"]["sma.period"]: row for row in result["leaderboard"]}
    for period in (3, 8):
        single = {
            "prepareJobId": prepared,
            "strategyId": strategy_id,
            "params": {"sma.period": period},
        }
        run = call(live_server, dana, "POST", "/backtest/user/kline/execute", json=single)
        assert run.status_code == 202, run.text
        alone = wait_result(dana, "user", "kline", run.json()["jobId"])["results"]
        assert by_period[period]["trades"] == alone["totalTrades"]
        assert by_period[period]["pnl"] == alone["pnlTotal"]
        assert alone["totalTrades"] > 0  # the comparison is about real trades


def test_prepare_default_cadence_is_the_datasets_and_ticker_rows_are_ticks(
    live_server: LiveServer, dana: AuthenticatedSession, candles: dict[str, Any]
) -> None:
    body = {
        "datasetId": candles["created"].dataset_id,
        "from": "2025-03-03T00:00:00Z",
        "to": "2025-03-03T01:00:00Z",
    }
    response = call(live_server, dana, "POST", "/backtest/user/ticker/prepare", json=body)
    assert response.status_code == 202, response.text
    assert response.json()["cadence"] == "1m"
    state = wait_prepare(dana, "user", "ticker", response.json()["jobId"]).to_dict()
    assert state["status"] == "Completed"
    assert state["coverageRatio"] == 1.0
    assert "totalHours" not in state


@pytest.mark.parametrize("cadence", ["5s", "1s"])
def test_prepare_finer_than_the_dataset_is_400_listing_allowed(
    live_server: LiveServer, dana: AuthenticatedSession, candles: dict[str, Any], cadence: str
) -> None:
    body = {
        "datasetId": candles["created"].dataset_id,
        "from": "2025-03-03T00:00:00Z",
        "to": "2025-03-03T01:00:00Z",
        "cadence": cadence,
    }
    response = call(live_server, dana, "POST", "/backtest/user/kline/prepare", json=body)
    assert response.status_code == 400
    message = response.json()["message"]
    assert "1m" in message
    assert "5m" in message
    assert "whole multiple" in message


def test_failed_upload_keeps_the_previous_version_preparable(
    live_server: LiveServer, dana: AuthenticatedSession, candles: dict[str, Any]
) -> None:
    dataset_id = candles["created"].dataset_id
    previous = candles["state"].version.id
    target = dana.open_dataset_upload(dataset_id)
    again = dana.open_dataset_upload(dataset_id)
    assert again.upload_id == target.upload_id  # one open session per dataset
    unsorted = b"timestamp,close\n2025-03-04T00:01:00Z,1\n2025-03-04T00:00:00Z,2\n"
    state, _ = ingest(dana, dataset_id, target, unsorted)
    assert state.status.value == "failed"
    assert "row 2" in state.error
    assert "not after the previous row" in state.error
    body = dana.get_dataset(dataset_id).to_dict()
    assert body["status"] == "failed"
    assert "row 2" in body["error"]
    assert body["currentVersionId"] == previous
    assert "rows" not in body
    prepare = {
        "datasetId": dataset_id,
        "datasetVersionId": previous,
        "from": "2025-03-03T00:00:00Z",
        "to": "2025-03-03T01:00:00Z",
    }
    response = call(live_server, dana, "POST", "/backtest/user/ticker/prepare", json=prepare)
    assert response.status_code == 202, response.text
    done = wait_prepare(dana, "user", "ticker", response.json()["jobId"]).to_dict()
    assert done["status"] == "Completed"
    # A later good upload makes the dataset ready again, with a new current version.
    fresh = dana.open_dataset_upload(dataset_id)
    assert fresh.upload_id != target.upload_id
    state, _ = ingest(dana, dataset_id, fresh, gzip.compress(candle_csv()))
    assert state.status.value == "ready"
    assert state.version.id != previous
    assert dana.get_dataset(dataset_id).to_dict()["status"] == "ready"


def test_downloaded_lastra_uploads_again_unchanged(
    dana: AuthenticatedSession, candles: dict[str, Any]
) -> None:
    url = dana.get_dataset(candles["created"].dataset_id).to_dict()["dataUrl"]
    blob = httpx.get(url, timeout=30).content
    created = dana.create_dataset(name="round-trip", instrument="BTC/USDT")
    state, _ = ingest(dana, created.dataset_id, created, blob)
    assert state.status.value == "ready", state.to_dict()
    assert state.version.rows == len(candle_rows())
    assert state.version.cadence == "1m"
    assert state.version.timestamp_unit.value == "us"


def test_signed_put_refuses_tampered_links_and_stores_nothing(
    live_server: LiveServer, dana: AuthenticatedSession
) -> None:
    created = dana.create_dataset(name="tamper", instrument="SOL/USDT")
    url = created.upload.url
    last = created.upload_id[-1]
    forged = url.replace(created.upload_id, created.upload_id[:-1] + ("1" if last == "0" else "0"))
    assert forged != url
    for bad in (forged, url.replace("sig=", "sig=f"), url.replace("expires=", "expires=1")):
        response = httpx.put(bad, content=candle_csv(), timeout=30)
        assert response.status_code in (403, 404), response.text
        assert response.json()["code"] == response.status_code
    path = f"/datasets/{created.dataset_id}/uploads/{created.upload_id}/finalize"
    response = call(live_server, dana, "POST", path)
    assert response.status_code == 400
    assert "nothing has been uploaded" in response.json()["message"]


def test_create_rejects_taken_names_and_non_plain_pairs(
    live_server: LiveServer, dana: AuthenticatedSession, candles: dict[str, Any]
) -> None:
    taken = call(
        live_server, dana, "POST", "/datasets", json={"name": "candles-1m", "instrument": "A/B"}
    )
    assert taken.status_code == 409
    assert "candles-1m" in taken.json()["message"]
    for instrument in ("BTC/USDT:USDT", "BTCUSDT", "BTC/USDT/X", ""):
        response = call(
            live_server, dana, "POST", "/datasets", json={"name": "x", "instrument": instrument}
        )
        assert response.status_code == 400, (instrument, response.text)
    with pytest.raises(QTSError):
        dana.create_dataset(name="candles-1m", instrument="BTC/USDT")


def test_other_users_get_404_everywhere(
    live_server: LiveServer, eve: AuthenticatedSession, candles: dict[str, Any]
) -> None:
    created = candles["created"]
    ds, up = created.dataset_id, created.upload_id
    for method, path in (
        ("GET", f"/datasets/{ds}"),
        ("DELETE", f"/datasets/{ds}"),
        ("POST", f"/datasets/{ds}/uploads"),
        ("GET", f"/datasets/{ds}/uploads/{up}"),
        ("POST", f"/datasets/{ds}/uploads/{up}/finalize"),
    ):
        response = call(live_server, eve, method, path)
        assert response.status_code == 404, (method, path, response.text)
    body = {"datasetId": ds, "from": "2025-03-03T00:00:00Z", "to": "2025-03-03T01:00:00Z"}
    response = call(live_server, eve, "POST", "/backtest/user/ticker/prepare", json=body)
    assert response.status_code == 404
    assert all(d["datasetId"] != ds for d in eve.list_datasets().to_dict()["datasets"])


def test_delete_is_soft(live_server: LiveServer, dana: AuthenticatedSession) -> None:
    created = dana.create_dataset(name="short-lived", instrument="BTC/USDT")
    state, _ = ingest(dana, created.dataset_id, created, candle_csv())
    assert state.status.value == "ready"
    data_url = dana.get_dataset(created.dataset_id).to_dict()["dataUrl"]
    assert httpx.get(data_url, timeout=30).status_code == 200
    answer = dana.delete_dataset(created.dataset_id).to_dict()
    assert answer == {"datasetId": created.dataset_id, "deleted": True}
    assert call(live_server, dana, "GET", f"/datasets/{created.dataset_id}").status_code == 404
    revoked = httpx.get(data_url, timeout=30)  # the link handed out before the delete
    assert revoked.status_code == 404  # a local-store link (S3's expire with their TTL)
    assert revoked.json()["message"] == "the dataset was deleted; its data link no longer works"
    listed = dana.list_datasets().to_dict()["datasets"]
    assert all(d["datasetId"] != created.dataset_id for d in listed)
    with_deleted = dana.list_datasets(include_deleted=True).to_dict()["datasets"]
    (gone,) = [d for d in with_deleted if d["datasetId"] == created.dataset_id]
    assert "deletedAt" in gone
    live = {d["datasetId"] for d in listed}
    # Exactly the datasets missing from the plain list carry deletedAt (other tests of this
    # module delete datasets of their own).
    assert all(("deletedAt" in d) == (d["datasetId"] not in live) for d in with_deleted)
    body = {"datasetId": created.dataset_id, "from": "2025-03-03T00:00:00Z", "to": "2025-03-03"}
    response = call(live_server, dana, "POST", "/backtest/user/ticker/prepare", json=body)
    assert response.status_code == 404
    # The name is free again.
    dana.create_dataset(name="short-lived", instrument="BTC/USDT")


def test_cex_import_from_sim_builds_a_version(
    live_server: LiveServer, dana: AuthenticatedSession
) -> None:
    frm, to = recent_range(2)
    body = {
        "name": "sim-import",
        "instrument": "ETH/USDT",
        "from": frm,
        "to": to,
        "type": "cex",
        "cadence": "1m",
        "cex": {"exchange": "sim", "segment": "spot", "dataType": "ticker"},
    }
    response = call(live_server, dana, "POST", "/datasets/imports", json=body)
    assert response.status_code == 202, response.text
    created = response.json()
    assert created["status"] == "fetching"
    assert created["cadence"] == "1m"
    assert created["jobId"]
    path = f"/datasets/{created['datasetId']}/imports/{created['importId']}"
    deadline = time.monotonic() + 180
    pauses = Pauses()
    while True:
        state = call(live_server, dana, "GET", path).json()
        if state["status"] in ("ready", "failed") or time.monotonic() > deadline:
            break
        pauses.sleep()
    assert state["status"] == "ready", state
    closes = sim_minute_closes(live_server, frm, to)
    version = state["version"]
    assert version["cadence"] == "1m"
    assert version["rows"] == len(closes)
    stored = LastraReader.from_bytes(httpx.get(version["dataUrl"], timeout=30).content)
    assert list(stored.read_series_double("close")) == list(closes.values())
    assert [t // 1000 for t in stored.read_series_long("ts")] == list(closes)
    dataset = dana.get_dataset(created["datasetId"]).to_dict()
    assert dataset["type"] == "klines"
    assert dataset["instrument"] == "ETH/USDT"
    taken = call(live_server, dana, "POST", "/datasets/imports", json=body)
    assert taken.status_code == 409


def sim_minute_closes(server: LiveServer, frm: str, to: str) -> dict[int, float]:
    """Independent 1-minute closes of sim ETH/USDT ticks: the last tick price per minute."""
    closes: dict[int, float] = {}
    hour = datetime.fromisoformat(frm)
    while hour < datetime.fromisoformat(to):
        response = httpx.get(
            f"{server.base_url}/exchange/sim/tickers/ETH/USDT",
            params={"hour": f"{hour:%Y-%m-%dT%H}"},
            timeout=60,
        )
        assert response.status_code == 200, response.text
        scale = 1000 if response.headers.get("x-ts-unit") == "micros" else 1
        reader = LastraReader.from_bytes(response.content)
        for ts, last in zip(
            reader.read_series_long("ts"), reader.read_series_double("last"), strict=True
        ):
            minute = int(ts) // scale // 60_000 * 60_000
            closes[minute] = float(last)
        hour += timedelta(hours=1)
    return closes


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"type": "dex"}, "on-chain"),
        ({"cadence": "7m"}, "cannot be imported"),
        ({"cex": {"exchange": "nowhere", "segment": "spot", "dataType": "ticker"}}, "nowhere"),
        ({"from": "2025-01-01T00:00:00Z", "to": "2025-02-15T00:00:00Z"}, "maxImportRangeHours"),
    ],
)
def test_bad_imports_are_400(
    live_server: LiveServer, dana: AuthenticatedSession, change: dict[str, Any], words: str
) -> None:
    frm, to = recent_range(2)
    body = {
        "name": "bad-import",
        "instrument": "ETH/USDT",
        "from": frm,
        "to": to,
        "type": "cex",
        "cex": {"exchange": "sim", "segment": "spot", "dataType": "ticker"},
        **change,
    }
    response = call(live_server, dana, "POST", "/datasets/imports", json=body)
    assert response.status_code == 400, response.text
    assert words in response.json()["message"]


def test_dataset_limits_accounting_and_reaping(tmp_path: Path) -> None:
    """maxDatasets (429), the PUT body cap (413, nothing stored), storage accounting of
    versions, and a deleted dataset's files reclaimed (grace period 0 here)."""
    server = LiveServer(
        tmp_path / "limits",
        extra_env={
            "BACKTESTD_TIERS__FREE__MAX_DATASETS": "2",
            "BACKTESTD_TIERS__FREE__MAX_DATASET_BYTES": "4000",
            "BACKTESTD_DATASET_REAP_AFTER_SECONDS": "0",
        },
    )
    server.start()
    try:
        frank = auth(server.create_key("ds-frank", tier="free"), base_url=server.base_url)
        first = frank.create_dataset(name="one", instrument="BTC/USDT")
        second = frank.create_dataset(name="two", instrument="BTC/USDT")
        third = call(server, frank, "POST", "/datasets", json={"name": "3", "instrument": "A/B"})
        assert third.status_code == 429
        assert "at most 2 active datasets" in third.json()["message"]
        big = httpx.put(first.upload.url, content=b"x" * 5000, timeout=30)
        assert big.status_code == 413
        assert "4,000" in big.json()["message"]
        waiting = frank.get_dataset_upload(dataset_id=first.dataset_id, upload_id=first.upload_id)
        assert waiting.status.value == "uploading"
        path = f"/datasets/{first.dataset_id}/uploads/{first.upload_id}/finalize"
        assert call(server, frank, "POST", path).status_code == 400  # nothing was stored
        usage = call(server, frank, "GET", "/account/usage").json()
        assert usage["datasetsUsed"] == 2
        assert usage["datasetBytesUsed"] == 0
        small = b"timestamp,close\n" + b"".join(
            f"{1_700_000_000 + 60 * i},{100 + i}\n".encode() for i in range(20)
        )
        state, _ = ingest(frank, second.dataset_id, second, small)
        assert state.status.value == "ready", state.to_dict()
        usage = call(server, frank, "GET", "/account/usage").json()
        assert usage["datasetBytesUsed"] == state.version.bytes_
        assert usage["storageBytesUsed"] >= state.version.bytes_
        url = state.version.data_url
        assert httpx.get(url, timeout=30).status_code == 200
        stored = list((server.data_dir / "objects").rglob(f"{state.version.id}.*"))
        # the version and the preview base its ingest stored beside it
        assert sorted(path.name.split(".", 1)[1] for path in stored) == [
            "lastra",
            "lastra.preview.npz",
        ]
        frank.delete_dataset(second.dataset_id)
        assert httpx.get(url, timeout=30).status_code == 404
        assert not [path for path in stored if path.exists()]
        usage = call(server, frank, "GET", "/account/usage").json()
        assert usage["datasetsUsed"] == 1
        assert usage["datasetBytesUsed"] == 0
    finally:
        server.stop()
