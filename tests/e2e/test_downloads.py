"""Black-box: hourly downloads as lastra and parquet, and their errors."""

from __future__ import annotations

import concurrent.futures
import io
from datetime import UTC, datetime, timedelta

import httpx
import numpy as np
import pyarrow.parquet as pq
import pytest
from lastra import LastraReader

from tests.support.server import LiveServer

TICKER_COLUMNS = ["ts", "bid", "bidSize", "ask", "askSize", "last", "volume"]
KLINE_COLUMNS = ["ts", "open", "high", "low", "close", "volume"]


def _hour(back: int) -> datetime:
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=back)


def _get(server: LiveServer, kind: str, pair: str, **params: str) -> httpx.Response:
    return httpx.get(f"{server.base_url}/exchange/sim/{kind}/{pair}", params=params, timeout=60)


def _lastra_columns(blob: bytes) -> dict[str, np.ndarray]:
    reader = LastraReader.from_bytes(blob)
    names = [c.name for c in reader.series_columns]
    return {
        n: reader.read_series_long(n) if n == "ts" else reader.read_series_double(n) for n in names
    }


def test_ticker_hour_as_lastra_has_documented_layout(live_server: LiveServer) -> None:
    hour = _hour(30)
    response = _get(live_server, "tickers", "BTC/USDT", hour=f"{hour:%Y-%m-%dT%H}")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/vnd.lastra"
    assert response.headers["content-disposition"] == (
        f'attachment; filename="BTC_USDT_{hour:%Y-%m-%d}_h{hour:%H}.lastra"'
    )
    cols = _lastra_columns(response.content)
    assert list(cols) == TICKER_COLUMNS
    start = int(hour.timestamp() * 1000)
    assert len(cols["ts"]) > 100
    assert cols["ts"].min() >= start
    assert cols["ts"].max() < start + 3_600_000
    assert np.all(np.diff(cols["ts"]) >= 0)
    assert np.all(cols["ask"] > cols["bid"])


def test_parquet_has_same_rows_and_columns_as_lastra(live_server: LiveServer) -> None:
    hour = f"{_hour(31):%Y-%m-%dT%H}"
    for kind, columns, suffix in (
        ("tickers", TICKER_COLUMNS, ""),
        ("klines", KLINE_COLUMNS, "_klines"),
    ):
        lastra = _lastra_columns(_get(live_server, kind, "ETH/USDT", hour=hour).content)
        response = _get(live_server, kind, "ETH/USDT", hour=hour, format="parquet")
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/vnd.apache.parquet"
        assert response.headers["content-disposition"].endswith(f'{suffix}.parquet"')
        table = pq.read_table(io.BytesIO(response.content))
        assert table.column_names == columns
        for name in columns:
            assert np.array_equal(table.column(name).to_numpy(), lastra[name])


def test_klines_are_the_per_second_aggregation_of_the_tickers(live_server: LiveServer) -> None:
    hour = f"{_hour(32):%Y-%m-%dT%H}"
    ticks = _lastra_columns(_get(live_server, "tickers", "SOL/USDT", hour=hour).content)
    bars = _lastra_columns(_get(live_server, "klines", "SOL/USDT", hour=hour).content)
    expected: dict[int, list[float]] = {}
    for ts, price, size in zip(ticks["ts"], ticks["last"], ticks["volume"], strict=True):
        second = int(ts) // 1000 * 1000
        bar = expected.get(second)
        if bar is None:
            expected[second] = [price, price, price, price, size]
        else:
            bar[1] = max(bar[1], price)
            bar[2] = min(bar[2], price)
            bar[3] = price
            bar[4] += size
    assert list(bars["ts"]) == sorted(expected)
    for i, second in enumerate(bars["ts"]):
        o, h, lo, c, v = expected[int(second)]
        assert (bars["open"][i], bars["high"][i], bars["low"][i], bars["close"][i]) == (o, h, lo, c)
        assert bars["volume"][i] == pytest.approx(v, rel=1e-12)


def test_perpetual_is_addressed_with_settle_in_quote(live_server: LiveServer) -> None:
    hour = _hour(33)
    response = _get(live_server, "tickers", "BTC/USDT%3AUSDT", hour=f"{hour:%Y-%m-%dT%H}")
    assert response.status_code == 200
    assert (
        f"BTC_USDT_USDT_{hour:%Y-%m-%d}_h{hour:%H}.lastra"
        in (response.headers["content-disposition"])
    )


def test_concurrent_first_requests_generate_once_and_agree(live_server: LiveServer) -> None:
    hour = f"{_hour(200):%Y-%m-%dT%H}"
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        responses = list(
            pool.map(lambda _: _get(live_server, "tickers", "ADA/USDT", hour=hour), range(8))
        )
    assert {r.status_code for r in responses} == {200}
    assert len({r.content for r in responses}) == 1
    log = live_server.log_path.read_text()
    assert log.count(f"generated sim ADA/USDT tickers {hour}") == 1


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"hour": ""},
        {"hour": "2026-01-01T1"},
        {"hour": "2026-01-01T10:00"},
        {"hour": "2026-01-01 10"},
        {"hour": "2026-13-01T00"},
        {"hour": "2026-02-30T00"},
        {"hour": "2026-01-01T24"},
        {"hour": "0001-01-01T00"},
        {"hour": "1969-12-31T23"},
    ],
)
def test_missing_or_malformed_hour_gives_400(
    live_server: LiveServer, params: dict[str, str]
) -> None:
    response = _get(live_server, "tickers", "BTC/USDT", **params)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == 400
    assert any(
        hint in body["message"] for hint in ("YYYY-MM-DDTHH", "not a real date", "out of range")
    )


def test_csv_has_the_parquet_files_header_rows_and_values(live_server: LiveServer) -> None:
    """``format=csv`` is an additive option (docs/api-decisions.md) for browsers: the same
    columns and values as lastra and parquet, ``ts`` in epoch milliseconds."""
    hour = _hour(32)
    text = f"{hour:%Y-%m-%dT%H}"
    for kind, columns, suffix in (
        ("tickers", TICKER_COLUMNS, ""),
        ("klines", KLINE_COLUMNS, "_klines"),
    ):
        lastra = _lastra_columns(_get(live_server, kind, "ETH/USDT", hour=text).content)
        response = _get(live_server, kind, "ETH/USDT", hour=text, format="csv")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/csv")
        assert response.headers["content-disposition"] == (
            f'attachment; filename="ETH_USDT_{hour:%Y-%m-%d}_h{hour:%H}{suffix}.csv"'
        )
        lines = response.text.splitlines()
        assert lines[0] == ",".join(columns)
        assert len(lines) == 1 + len(lastra["ts"])
        values = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
        for ix, name in enumerate(columns):
            assert np.array_equal(values[:, ix], lastra[name].astype(np.float64)), name


def test_unknown_format_gives_400(live_server: LiveServer) -> None:
    response = _get(
        live_server, "tickers", "BTC/USDT", hour=f"{_hour(5):%Y-%m-%dT%H}", format="xml"
    )
    assert response.status_code == 400
    assert "format" in response.json()["message"]


@pytest.mark.parametrize(
    ("pair", "hours_back"),
    [
        ("BTC/USDT", -2),  # in the future
        ("BTC/USDT", -24 * 3),  # days ahead: 404 too, not 400 (issue 27, point 6)
        ("BTC/USDT", 0),  # the current, incomplete hour
        ("BTC/USDT", 24 * 400),  # before coverage
        ("DOGE/EUR", 5),  # unknown instrument
    ],
)
def test_unavailable_hour_or_instrument_gives_404(
    live_server: LiveServer, pair: str, hours_back: int
) -> None:
    # The hour is taken when the test runs, not when it is collected: a suite that crosses the
    # top of an hour would otherwise ask for an hour that has meanwhile completed.
    hour = _hour(hours_back)
    response = _get(live_server, "klines", pair, hour=f"{hour:%Y-%m-%dT%H}")
    assert response.status_code == 404
    assert response.json()["code"] == 404
    assert response.json()["message"]


def test_unknown_exchange_download_gives_404(live_server: LiveServer) -> None:
    response = httpx.get(
        f"{live_server.base_url}/exchange/nowhere/tickers/BTC/USDT",
        params={"hour": f"{_hour(3):%Y-%m-%dT%H}"},
    )
    assert response.status_code == 404
    assert "nowhere" in response.json()["message"]
