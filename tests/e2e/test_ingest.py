"""Black-box: `backtestd ingest` of Binance archive files, then catalogue and downloads."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import numpy as np
import pytest
from lastra import LastraReader

from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.unit.marketdata.binance_files import Kline, Trade, write_klines, write_trades

DAY = datetime(2024, 3, 5, tzinfo=UTC)
DAY_MS = int(DAY.timestamp() * 1000)


def _klines() -> list[Kline]:
    rows = []
    price = 100.0
    for minute in range(0, 3 * 60):  # three hours of 1m bars
        o = price
        c = round(price * (1 + 0.001 * ((minute * 7919) % 11 - 5)), 2)
        rows.append(
            Kline(
                DAY_MS + minute * 60_000, o, max(o, c) + 0.5, min(o, c) - 0.5, c, 1.0 + minute % 3
            )
        )
        price = c
    return rows


def _trades() -> list[Trade]:
    return [
        Trade(i, 50.0 + (i % 13) * 0.25, 0.1 + (i % 4) * 0.05, DAY_MS + i * 900, i % 2 == 0)
        for i in range(6000)  # 90 minutes of trades
    ]


@pytest.fixture(scope="module")
def ingested(live_server: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> LiveServer:
    folder: Path = tmp_path_factory.mktemp("archives")
    kl = write_klines(
        folder,
        _klines(),
        symbol="SOLUSDT",
        interval="1m",
        period="2024-03-05",
        header=True,
        micros=False,
    )
    tr = write_trades(folder, _trades(), symbol="ARBUSDT", period="2024-03-05", micros=True)
    out = live_server.cli("ingest", "--exchange", "binance", str(kl), str(tr)).stdout
    assert "SOL/USDT" in out
    assert "ARB/USDT" in out
    # The catalogue caches exchange lists for up to 10 s (docs/configuration.md).
    deadline = time.monotonic() + 15
    pauses = Pauses()
    while time.monotonic() < deadline:
        exchanges = httpx.get(f"{live_server.base_url}/exchanges").json()
        if any(e["id"] == "binance" for e in exchanges):
            break
        pauses.sleep()
    return live_server


def test_ingested_exchange_appears_in_catalogue(ingested: LiveServer) -> None:
    exchanges = httpx.get(f"{ingested.base_url}/exchanges").json()
    assert any(e["id"] == "binance" and e["name"] == "Binance" for e in exchanges)
    listing = httpx.get(f"{ingested.base_url}/exchange/binance/instruments").json()
    by_id = {i["id"]: i for i in listing["data"]}
    sol = by_id["SOL/USDT"]
    assert sol["coverage"]["klines"] == {
        "from": "2024-03-05T00:00:00Z",
        "to": "2024-03-05T03:00:00Z",
    }
    assert "tickers" not in sol["coverage"]
    assert sol["lastPrice"] == _klines()[-1].close
    arb = by_id["ARB/USDT"]
    assert arb["coverage"]["tickers"] == {
        "from": "2024-03-05T00:00:00Z",
        "to": "2024-03-05T02:00:00Z",
    }
    expected_volume = sum(t.price * t.qty for t in _trades())
    assert arb["volume24h"] == pytest.approx(expected_volume, rel=1e-9)
    futures = httpx.get(f"{ingested.base_url}/exchange/binance/futures/instruments").json()
    assert futures["data"] == []


def test_ingested_hours_download_with_the_input_values(ingested: LiveServer) -> None:
    response = httpx.get(
        f"{ingested.base_url}/exchange/binance/klines/SOL/USDT", params={"hour": "2024-03-05T01"}
    )
    assert response.status_code == 200
    reader = LastraReader.from_bytes(response.content)
    expected = [k for k in _klines() if DAY_MS + 3_600_000 <= k.open_time < DAY_MS + 7_200_000]
    assert list(reader.read_series_long("ts")) == [k.open_time for k in expected]
    assert np.array_equal(reader.read_series_double("close"), [k.close for k in expected])
    trades = httpx.get(
        f"{ingested.base_url}/exchange/binance/tickers/ARB/USDT", params={"hour": "2024-03-05T00"}
    )
    reader = LastraReader.from_bytes(trades.content)
    first_hour = [t for t in _trades() if t.time < DAY_MS + 3_600_000]
    assert list(reader.read_series_long("ts")) == [t.time for t in first_hour]
    assert np.array_equal(reader.read_series_double("last"), [t.price for t in first_hour])
    assert np.all(reader.read_series_double("bid") <= reader.read_series_double("ask"))
    missing = httpx.get(
        f"{ingested.base_url}/exchange/binance/tickers/ARB/USDT", params={"hour": "2024-03-05T05"}
    )
    assert missing.status_code == 404


def test_ingest_of_garbage_fails_clearly(live_server: LiveServer, tmp_path: Path) -> None:
    bad = tmp_path / "BTCUSDT-1m-2024-01-01.csv"
    bad.write_text("1704067200000,abc,1,1,1,1,1,1,1,1,1,0\n")
    result = live_server.cli("ingest", str(bad), check=False)
    assert result.returncode != 0
    assert "BTCUSDT-1m-2024-01-01.csv" in result.stderr
    assert "Traceback" not in result.stderr
    reserved = live_server.cli("ingest", "--exchange", "sim", str(bad), check=False)
    assert reserved.returncode != 0
    assert "reserved" in reserved.stderr


def test_ingest_shows_progress_on_a_terminal_and_keeps_stdout_for_the_report(
    live_server: LiveServer, tmp_path: Path
) -> None:
    """On a terminal, stderr shows which file is being stored and how far; stdout carries
    only the per-file report a script may read."""
    import os
    import pty
    import subprocess
    import threading

    from tests.support.server import BIN

    kl = write_klines(
        tmp_path, _klines(), symbol="ADAUSDT", interval="1m", period="2024-03-05", header=True
    )
    main, replica = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        # Read the terminal while the command runs: a slow run redraws its progress more often,
        # and a pty nobody reads fills up and blocks the writer (the test then timed out).
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO once the last writer is gone
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        result = subprocess.run(
            [str(BIN), "ingest", "--exchange", "binance", str(kl)],
            stdout=subprocess.PIPE,
            stderr=replica,
            env={**live_server.env, "COLUMNS": "120", "TERM": "xterm"},
            timeout=120,
            check=False,
        )
        os.close(replica)
        reader.join(timeout=10)
    finally:
        os.close(main)
    shown = b"".join(chunks)

    assert result.returncode == 0
    assert b"storing hours" in shown
    assert b"3/3" in shown  # three hours of 1m bars
    report = result.stdout.decode()
    assert report.startswith(f"{kl.name}: ADA/USDT klines 1m 3 hours, 180 rows")
    assert "storing" not in report


def test_apikey_list_is_a_table_with_the_scopes(live_server: LiveServer) -> None:
    scoped = (
        live_server.cli("apikey", "create", "--user", "table-user", "--scope", "backtests:read")
        .stdout.strip()
        .splitlines()[-1]
    )
    listing = live_server.cli("apikey", "list").stdout
    header = listing.splitlines()[0].split()
    assert header == ["KEY", "ID", "USER", "TIER", "SCOPES", "CREATED", "EXPIRES", "STATUS"]
    row = next(r for r in listing.splitlines() if r.startswith(scoped.split("_")[1]))
    assert "table-user" in row
    assert "backtests:read" in row
    assert row.split()[-1] == "active"
