"""Black-box: prepares over ingested hourly kline archives (issue 14 points 1, 2 and 4).

Real FX-like data: one bar an hour, Monday to Friday, nothing at weekends, in 2017 (older
than the 1,825-day lookback) and in 2024. Checks what a user sees: a too-fine cadence is a
400 listing the cadences this instrument allows, an hourly prepare reports the coverage the
data really has, and old stored history prepares like recent history.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.server import LiveServer
from tests.unit.marketdata.binance_files import Kline, write_klines

SYMBOL, INSTRUMENT = "EURUSDT", "EUR/USDT"
# An exchange of its own, so this module's listing requests do not fill the catalogue's
# short-lived listing cache of the exchange other modules ingest into.
EXCHANGE = "fxhistory"
HOUR = timedelta(hours=1)
ALLOWED_OVER_1H = "1h, 2h, 4h, 8h, 12h, 1d, 1w, 1q"


def weekday_bars(first_day: datetime, days: int) -> list[Kline]:
    """One bar per hour on weekdays only, prices varying so bars are distinguishable."""
    bars = []
    for index in range(days * 24):
        hour = first_day + index * HOUR
        if hour.weekday() >= 5:
            continue
        open_ = 1.05 + (index % 17) * 0.001
        close = open_ + ((index * 7) % 5 - 2) * 0.0005
        bars.append(
            Kline(
                int(hour.timestamp() * 1000),
                open_,
                max(open_, close) + 0.0003,
                min(open_, close) - 0.0003,
                round(close, 6),
                100.0 + index % 9,
            )
        )
    return bars


BARS_2017 = weekday_bars(datetime(2017, 3, 6, tzinfo=UTC), 14)  # Mon 6 .. Sun 19 March
BARS_2024 = weekday_bars(datetime(2024, 3, 4, tzinfo=UTC), 12)  # Mon 4 .. Fri 15 March


@pytest.fixture(scope="module")
def hourly(live_server: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder: Path = tmp_path_factory.mktemp("hourly")
    files = [
        write_klines(folder, BARS_2017, symbol=SYMBOL, interval="1h", period="2017-03"),
        write_klines(folder, BARS_2024, symbol=SYMBOL, interval="1h", period="2024-03"),
    ]
    out = live_server.cli("ingest", "--exchange", EXCHANGE, *map(str, files)).stdout
    assert INSTRUMENT in out
    token = live_server.token(live_server.create_key("hourly-user"))
    headers = {"Authorization": f"Bearer {token}"}
    deadline = time.monotonic() + 25  # the catalogue caches lists for up to 10 s
    while time.monotonic() < deadline:
        exchanges = httpx.get(f"{live_server.base_url}/exchanges").json()
        listing = httpx.get(f"{live_server.base_url}/exchange/{EXCHANGE}/instruments").json()
        if any(e["id"] == EXCHANGE for e in exchanges) and any(
            i["id"] == INSTRUMENT for i in listing.get("data", [])
        ):
            break
        time.sleep(0.5)
    return headers


def prepare(server: LiveServer, headers: dict[str, str], body: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        f"{server.base_url}/backtest/{EXCHANGE}/kline/prepare",
        json={"instrument": INSTRUMENT, **body},
        headers=headers,
        timeout=60,
    )


def completed(server: LiveServer, headers: dict[str, str], body: dict[str, Any]) -> Any:
    response = prepare(server, headers, body)
    assert response.status_code == 202, response.text
    job_id = response.json()["jobId"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = httpx.get(
            f"{server.base_url}/backtest/{EXCHANGE}/kline/prepare/{job_id}", headers=headers
        ).json()
        if state["status"] in ("Completed", "Failed", "Aborted"):
            assert state["status"] == "Completed", state
            return state
        time.sleep(0.3)
    raise AssertionError(f"prepare {job_id} did not finish")


@pytest.mark.parametrize("cadence", ["1m", "1s", "30m", "500ms", "1.5s"])
def test_a_cadence_finer_than_the_hourly_source_is_refused_with_the_allowed_list(
    live_server: LiveServer, hourly: dict[str, str], cadence: str
) -> None:
    response = prepare(
        live_server, hourly, {"from": "2024-03-04", "to": "2024-03-09", "cadence": cadence}
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == 400
    assert body["message"].endswith(f"use one of {ALLOWED_OVER_1H}")
    assert repr(cadence) in body["message"]


def test_an_hourly_prepare_reports_the_coverage_the_data_has(
    live_server: LiveServer, hourly: dict[str, str]
) -> None:
    # Mon 4 .. Mon 11 March 2024: five weekdays with a bar every hour, then the weekend.
    state = completed(
        live_server, hourly, {"from": "2024-03-04", "to": "2024-03-11", "cadence": "1h"}
    )
    weekend = [datetime(2024, 3, 9, tzinfo=UTC) + i * HOUR for i in range(48)]
    assert state["totalHours"] == 7 * 24
    assert state["hoursWithData"] == 5 * 24
    assert state["coverageRatio"] == pytest.approx(1.0)
    assert [g["hour"] for g in state["hoursWithoutData"]] == [
        h.strftime("%Y-%m-%dT%H:%M:%SZ") for h in weekend
    ]
    assert {g["rationale"] for g in state["hoursWithoutData"]} == {"low_activity"}
    assert state["dataFrom"] == "2024-03-04T00:00:00Z"
    assert state["dataTo"] == "2024-03-08T23:00:00Z"


def test_hours_past_the_stored_data_lower_the_ratio(
    live_server: LiveServer, hourly: dict[str, str]
) -> None:
    # Thu 14 .. Wed 20 March: 48 hours with bars, then nothing: the stored data ends on
    # Friday. A run of empty hours that goes on past the weekend is not a weekend closure,
    # so all 96 hours are unknown and count against the ratio.
    state = completed(
        live_server, hourly, {"from": "2024-03-14", "to": "2024-03-20", "cadence": "4h"}
    )
    assert state["totalHours"] == 6 * 24
    assert state["hoursWithData"] == 48
    gaps = state["hoursWithoutData"]
    assert len(gaps) == 96
    assert gaps[0]["hour"] == "2024-03-16T00:00:00Z"
    assert {g["rationale"] for g in gaps} == {"unknown"}
    assert state["coverageRatio"] == pytest.approx(48 / 144)


def test_stored_history_older_than_the_lookback_window_prepares(
    live_server: LiveServer, hourly: dict[str, str]
) -> None:
    state = completed(
        live_server, hourly, {"from": "2017-03-06", "to": "2017-03-11", "cadence": "1d"}
    )
    assert state["hoursWithData"] == 5 * 24
    assert state["coverageRatio"] == pytest.approx(1.0)
    assert state["dataFrom"] == "2017-03-06T00:00:00Z"


def test_generated_data_keeps_the_lookback_and_names_its_setting(
    live_server: LiveServer, hourly: dict[str, str]
) -> None:
    response = httpx.post(
        f"{live_server.base_url}/backtest/sim/kline/prepare",
        json={"instrument": "BTC/USDT", "from": "2017-03-06", "to": "2017-03-07"},
        headers=hourly,
    )
    assert response.status_code == 400, response.text
    assert "BACKTESTD_PREPARE_LOOKBACK_DAYS" in response.json()["message"]


def test_listing_of_stale_data_shows_values_as_of_its_last_day(
    live_server: LiveServer, hourly: dict[str, str]
) -> None:
    listing = httpx.get(f"{live_server.base_url}/exchange/{EXCHANGE}/instruments").json()
    entry = next(i for i in listing["data"] if i["id"] == INSTRUMENT)
    assert entry["coverage"]["klines"] == {
        "from": "2017-03-06T00:00:00Z",
        "to": "2024-03-16T00:00:00Z",
    }
    last_day = [k for k in BARS_2024 if k.open_time >= BARS_2024[-1].open_time - 23 * 3_600_000]
    assert entry["lastPrice"] == BARS_2024[-1].close
    assert entry["volume24h"] == pytest.approx(sum(k.close * k.volume for k in last_day))
