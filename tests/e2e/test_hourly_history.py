"""Black-box: real-looking hourly history (weekdays only, 2018) ingested, then prepared.

This is the shape of the EUR/USD hours a newcomer brings: one `1h` bar per trading hour, the
market closed at weekends, years older than the sim lookback window. A finer prepare would show
each hour's close early (look-ahead); coverage must call the data complete.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from qtsurfer_sdk import AuthenticatedSession, auth

from tests.e2e.backtest_helpers import call, wait_prepare
from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.unit.marketdata.binance_files import Kline, write_klines

START = datetime(2018, 1, 1, tzinfo=UTC)  # a Monday
WEEKS = 3
HOUR_MS = 3_600_000


def _weekday_hours() -> list[Kline]:
    rows = []
    price = 1.2
    for h in range(WEEKS * 7 * 24):
        hour = START + timedelta(hours=h)
        if hour.weekday() >= 5:
            continue
        close = round(price * (1 + 0.0004 * ((h * 7919) % 11 - 5)), 5)
        rows.append(
            Kline(
                int(hour.timestamp() * 1000),
                price,
                max(price, close),
                min(price, close),
                close,
                1000.0,
            )
        )
        price = close
    return rows


@pytest.fixture(scope="module")
def fx(live_server: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> AuthenticatedSession:
    folder: Path = tmp_path_factory.mktemp("fx-archives")
    path = write_klines(
        folder,
        _weekday_hours(),
        symbol="EURUSDT",
        interval="1h",
        period="2018-01",
        header=False,
        micros=False,
    )
    out = live_server.cli("ingest", "--exchange", "fxhist", str(path)).stdout
    assert "EUR/USDT" in out
    deadline = time.monotonic() + 15
    pauses = Pauses()
    while time.monotonic() < deadline:
        if any(e["id"] == "fxhist" for e in httpx.get(f"{live_server.base_url}/exchanges").json()):
            break
        pauses.sleep()
    return auth(live_server.create_key("fx-trader"), base_url=live_server.base_url)


def _body(cadence: str | None, days: int = 14) -> dict[str, str]:
    body = {
        "instrument": "EUR/USDT",
        "from": START.isoformat(),
        "to": (START + timedelta(days=days)).isoformat(),
    }
    if cadence:
        body["cadence"] = cadence
    return body


def test_a_cadence_finer_than_the_hourly_source_is_400_listing_the_allowed(
    live_server: LiveServer, fx: AuthenticatedSession
) -> None:
    response = call(live_server, fx, "POST", "/backtest/fxhist/kline/prepare", json=_body("1m"))
    assert response.status_code == 400, response.text
    message = response.json()["message"]
    assert "finer than, or not a whole multiple of, the source bars" in message
    assert "(1h)" in message
    assert message.endswith("use one of 1h, 2h, 4h, 8h, 12h, 1d, 1w, 1q")


def test_history_older_than_the_lookback_prepares_with_full_coverage(
    live_server: LiveServer, fx: AuthenticatedSession
) -> None:
    response = call(live_server, fx, "POST", "/backtest/fxhist/kline/prepare", json=_body("1h"))
    assert response.status_code == 202, response.text
    state = wait_prepare(fx, "fxhist", "kline", response.json()["jobId"])
    assert state.status.value == "Completed", state.to_dict()
    body = state.to_dict()
    assert body["coverageRatio"] == 1.0
    assert body["closedHours"] == 4 * 24  # two weekends in two weeks
    assert body["totalHours"] == 10 * 24
    assert body["hoursWithData"] == 10 * 24
    assert body.get("hoursWithoutData", []) == []


def test_an_omitted_cadence_is_the_source_cadence_and_bars_close_at_the_hour_end(
    live_server: LiveServer, fx: AuthenticatedSession
) -> None:
    response = call(live_server, fx, "POST", "/backtest/fxhist/kline/prepare", json=_body(None, 2))
    assert response.status_code == 202, response.text
    state = wait_prepare(fx, "fxhist", "kline", response.json()["jobId"])
    assert state.status.value == "Completed"
    last = START + timedelta(days=2) - timedelta(milliseconds=1)
    assert state.data_to == last - timedelta(hours=1) + timedelta(milliseconds=1)  # last bar open


def test_sim_lookback_error_names_the_setting(
    live_server: LiveServer, fx: AuthenticatedSession
) -> None:
    response = call(
        live_server,
        fx,
        "POST",
        "/backtest/sim/kline/prepare",
        json={
            "instrument": "BTC/USDT",
            "from": "2015-01-01T00:00:00Z",
            "to": "2015-01-02T00:00:00Z",
        },
    )
    assert response.status_code == 400
    assert "BACKTESTD_PREPARE_LOOKBACK_DAYS" in response.json()["message"]


def test_stale_instruments_say_as_of_when_their_price_is(fx: AuthenticatedSession) -> None:
    listing = fx.list_instruments("fxhist").to_dict()
    (eur,) = [i for i in listing["data"] if i["id"] == "EUR/USDT"]
    assert eur["lastPriceAt"].startswith("2018-01-20")  # the end of the last stored hour
    assert eur["lastPrice"] > 0
