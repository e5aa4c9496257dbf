"""Black-box: exchanges and instrument listings through the official SDK and raw HTTP."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import httpx
import pyarrow.parquet as pq
import pytest
from qtsurfer_sdk import QTSError, auth

from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def session(live_server: LiveServer):  # type: ignore[no-untyped-def]
    return auth(live_server.create_key("catalogue-user"), base_url=live_server.base_url)


def _last_complete_hour_end() -> datetime:
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0)


def test_exchanges_lists_the_sim_exchange(session) -> None:  # type: ignore[no-untyped-def]
    exchanges = session.list_exchanges()
    sim = next(e for e in exchanges if e.id == "sim")
    assert sim.name
    assert sim.description


def test_spot_listing_has_six_pairs_with_coverage_windows(session) -> None:  # type: ignore[no-untyped-def]
    listing = session.list_instruments("sim")
    assert listing.meta.segment.value == "spot"
    assert listing.meta.exchange == "sim"
    ids = {i.id for i in listing.data}
    assert {"BTC/USDT", "ETH/USDT", "SOL/USDT"} <= ids
    assert len(ids) >= 6
    end = _last_complete_hour_end()
    for instrument in listing.data:
        assert instrument.id == f"{instrument.base}/{instrument.quote}"
        for window in (instrument.coverage.tickers, instrument.coverage.klines):
            # coverage runs from 365 days back (hour-aligned) to the last complete hour
            assert abs(window.from_ - (end - timedelta(days=365))) <= timedelta(hours=1)
            assert window.to in (end, end - timedelta(hours=1))
        assert instrument.last_price > 0
        assert instrument.volume24h > 0
    assert listing.field_links.self_.href == "/v1/exchange/sim/spot/instruments"
    assert listing.field_links.spot.href == "/v1/exchange/sim/spot/instruments"
    assert listing.field_links.futures.href == "/v1/exchange/sim/futures/instruments"


def test_futures_listing_holds_perpetuals(session) -> None:  # type: ignore[no-untyped-def]
    listing = session.list_instruments("sim", "futures")
    assert listing.meta.segment.value == "futures"
    assert {"BTC/USDT", "ETH/USDT"} <= {i.id for i in listing.data}


def test_last_price_and_volume_match_the_downloadable_hours(live_server: LiveServer) -> None:
    """lastPrice is the last trade of the last hour; volume24h the quote volume of 24 hours."""
    listing = httpx.get(f"{live_server.base_url}/exchange/sim/instruments").json()
    entry = next(i for i in listing["data"] if i["id"] == "ETH/USDT")
    end = datetime.fromisoformat(entry["coverage"]["tickers"]["to"].replace("Z", "+00:00"))
    volume = 0.0
    last_price = None
    for back in range(1, 25):
        hour = end - timedelta(hours=back)
        response = httpx.get(
            f"{live_server.base_url}/exchange/sim/tickers/ETH/USDT",
            params={"hour": f"{hour:%Y-%m-%dT%H}", "format": "parquet"},
            timeout=30,
        )
        assert response.status_code == 200
        table = pq.read_table(io.BytesIO(response.content))
        last = table.column("last").to_pylist()
        size = table.column("volume").to_pylist()
        volume += sum(p * s for p, s in zip(last, size, strict=True))
        if last_price is None and last:
            last_price = last[-1]
    assert entry["lastPrice"] == pytest.approx(last_price, rel=1e-12)
    assert entry["volume24h"] == pytest.approx(volume, rel=1e-9)


@pytest.mark.parametrize(
    "path",
    [
        "/exchange/nowhere/instruments",
        "/exchange/nowhere/spot/instruments",
        "/exchange/sim/options/instruments",
    ],
)
def test_unknown_exchange_or_segment_gives_404(live_server: LiveServer, path: str) -> None:
    response = httpx.get(f"{live_server.base_url}{path}")
    assert response.status_code == 404
    body = response.json()
    assert body["code"] == 404
    assert "nowhere" in body["message"] or "options" in body["message"]


def test_sdk_surfaces_404_message(session) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(QTSError, match="nowhere"):
        session.list_instruments("nowhere")
