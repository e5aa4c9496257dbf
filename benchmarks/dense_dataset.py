"""``bench_sweep.py --dense``: the sim month with a bar in every second, as a user dataset.

The ``sim`` exchange's 1 s klines have a bar only in the seconds that saw a tick (about a third
of them). ``prepare_dense`` reads the kline columns the service prepared for the sim range,
fills every empty second of ``[from, to)`` with a flat bar at the previous close and volume 0
(``bench_execute.fill_seconds``; before the first bar, at its open), writes the bars as parquet
(``timestamp`` int64 epoch ms, float64 ``open high low close volume``), uploads the file as a
dataset the way a user would (docs/datasets.md: ``POST /datasets``, PUT to the signed URL,
finalize, wait until ``ready``) and prepares it as ``kline`` at ``1s`` on ``exchangeId=user``.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bench_execute import fill_seconds

COLUMNS = ("ts", "open", "high", "low", "close", "volume")
UPLOAD_CHUNK = 1 << 20


class DensePrepare(NamedTuple):
    job_id: str
    """The ``user`` kline prepare at ``1s``: sweep it on ``/backtest/user/kline/...``."""
    sim_bars: int
    """Bars of the sim prepare the dense series was filled from."""
    build_s: float
    """Reading the sim columns, filling the empty seconds and writing the parquet file."""
    service_s: float
    """Dataset creation, upload, ingest until ``ready`` and the prepare until ``Completed``."""


def sim_bars(data_dir: Path, job_id: str) -> dict[str, np.ndarray]:
    """The kline columns the service prepared for ``job_id`` (``ts`` epoch ms)."""
    directory = next((p.parent for p in data_dir.rglob(f"prepared/{job_id}/ts.bin")), None)
    if directory is None:
        raise SystemExit(f"prepared columns of {job_id} not found under {data_dir}")
    return {
        name: np.fromfile(directory / f"{name}.bin", dtype="<i8" if name == "ts" else "<f8")
        for name in COLUMNS
    }


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(UPLOAD_CHUNK):
            yield chunk


def _wait(client: httpx.Client, path: str, done: tuple[str, ...]) -> dict[str, Any]:
    while True:
        response = client.get(path)
        response.raise_for_status()
        body: dict[str, Any] = response.json()
        if body["status"] in done:
            return body
        time.sleep(0.1)


def prepare_dense(
    client: httpx.Client, data_dir: Path, sim_job: str, start: datetime, end: datetime
) -> DensePrepare:
    """Fill the sim prepare ``sim_job`` of ``[start, end)`` to a bar every second, upload it as
    a dataset and prepare it at ``1s``; a failed ingest or prepare ends the bench."""
    t0 = time.perf_counter()
    bars = sim_bars(data_dir, sim_job)
    dense = fill_seconds(bars, int(start.timestamp() * 1000), int(end.timestamp() * 1000))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dense.parquet"
        table = pa.table({"timestamp": dense["ts"], **{n: dense[n] for n in COLUMNS[1:]}})
        pq.write_table(table, path)
        build_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        created = client.post("/datasets", json={"name": "bench-dense", "instrument": "BTC/USDT"})
        created.raise_for_status()
        body = created.json()
        httpx.put(body["upload"]["url"], content=_chunks(path), timeout=600).raise_for_status()
    state_path = f"/datasets/{body['datasetId']}/uploads/{body['uploadId']}"
    client.post(f"{state_path}/finalize").raise_for_status()
    state = _wait(client, state_path, ("ready", "failed"))
    if state["status"] != "ready":
        raise SystemExit(f"the dense dataset's ingest failed: {state}")
    prepare = {
        "datasetId": body["datasetId"],
        "from": start.isoformat(),
        "to": end.isoformat(),
        "cadence": "1s",
    }
    accepted = client.post("/backtest/user/kline/prepare", json=prepare)
    accepted.raise_for_status()
    job = accepted.json()["jobId"]
    state = _wait(client, f"/backtest/user/kline/prepare/{job}", ("Completed", "Failed", "Aborted"))
    if state["status"] != "Completed":
        raise SystemExit(f"the dense dataset's prepare failed: {state}")
    return DensePrepare(job, int(bars["ts"].size), build_s, time.perf_counter() - t0)
