"""One user journey through whichever official SDK generation is importable.

Run as ``python -m tests.support.journey BASE_URL API_KEY`` (with ``PYTHONPATH`` choosing the
generation); it prints one JSON object of what the user saw. The same calls run with
``qtsurfer-sdk`` 0.4.2 and 0.8.0, so neither generation can regress unnoticed.
"""

from __future__ import annotations

import importlib.metadata
import io
import json
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from qtsurfer_sdk import auth

from tests.support.polling import Pauses
from tests.support.strategies import source

TERMINAL = ("Completed", "Failed", "Aborted")


def _poll(fetch: Any, done: Any, timeout: float = 240) -> Any:
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        value = fetch()
        if done(value):
            return value
        pauses.sleep()
    raise TimeoutError("the journey step did not finish in time")


def _result(session: Any, job_id: str, exchange: str = "sim") -> dict[str, Any]:
    def fetch() -> dict[str, Any] | None:
        response = session.get_backtest_result(exchange_id=exchange, type_="ticker", job_id=job_id)
        return response.json() if response.status_code == 200 else None

    body: dict[str, Any] = _poll(fetch, lambda b: b and b["state"]["status"] in TERMINAL)
    return body


def journey(base_url: str, key: str) -> dict[str, Any]:
    seen: dict[str, Any] = {"sdk": importlib.metadata.version("qtsurfer-sdk")}
    session = auth(key, base_url=base_url)
    account = session.get_account()
    seen["tier"] = str(account.tier.value if hasattr(account.tier, "value") else account.tier)
    seen["maxExecute"] = account.max_execute
    seen["usageStorage"] = session.get_account_usage().storage_bytes_used
    seen["exchanges"] = sorted(e.id for e in session.list_exchanges())
    listing = session.list_instruments("sim")
    seen["instruments"] = sorted(i.id for i in listing.data)
    strategy_id = session.compile_strategy(source("ema_cross.java")).strategy_id
    seen["validation"] = _validate(session, strategy_id)
    seen["listed"] = strategy_id in [s.strategy_id for s in session.list_strategies().strategies]
    seen["codeMatches"] = session.get_strategy_code(strategy_id) == source("ema_cross.java")
    end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=3)
    accepted = session.prepare(
        exchange_id="sim",
        type_="ticker",
        instrument="BTC/USDT",
        from_=(end - timedelta(hours=3)).isoformat(),
        to=end.isoformat(),
    )
    state = _poll(
        lambda: session.get_prepare_status(
            exchange_id="sim", type_="ticker", job_id=accepted.job_id
        ),
        lambda s: s.status.value in TERMINAL,
    )
    seen["prepare"] = {"status": state.status.value, "coverageRatio": state.coverage_ratio}
    job = session.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=accepted.job_id, strategy_id=strategy_id
    )
    body = _result(session, job.job_id)
    seen["execute"] = {
        "status": body["state"]["status"],
        "trades": body["results"].get("totalTrades", 0),
        "curvePoints": len(body["results"].get("equityCurve", {}).get("points", [])),
    }
    # Cancelling a finished job: 200 without `status`, the job unchanged (issue 27, point 3).
    finished = session.cancel_backtest(exchange_id="sim", type_="ticker", job_id=job.job_id)
    answer = finished.to_dict()
    seen["cancelFinished"] = {
        "keys": sorted(answer),
        "jobStatus": answer.get("jobStatus"),
        "after": _result(session, job.job_id)["state"]["status"],
    }
    runaway = session.compile_strategy(source("loops_forever.java")).strategy_id
    busy = session.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=accepted.job_id, strategy_id=runaway
    )
    cancel = session.cancel_backtest(exchange_id="sim", type_="ticker", job_id=busy.job_id)
    seen["cancel"] = {
        "answer": cancel.status.value,
        "final": _result(session, busy.job_id)["state"]["status"],
    }
    sweep = session.sweep(
        exchange_id="sim",
        type_="ticker",
        request_id=accepted.job_id,
        strategy_id=strategy_id,
        params={"fast": {"values": [5, 9]}, "slow": {"values": [21]}},
        objective="pnl",
    )
    result = _poll(
        lambda: session.get_sweep_result(
            exchange_id="sim", type_="ticker", request_id=accepted.job_id, sweep_id=sweep.sweep_id
        ).to_dict(),
        lambda r: r["status"] != "RUNNING" and r["progress"]["pendingShards"] == 0,
    )
    again = session.cancel_sweep(
        exchange_id="sim", type_="ticker", request_id=accepted.job_id, sweep_id=sweep.sweep_id
    ).to_dict()
    after = session.get_sweep_result(
        exchange_id="sim", type_="ticker", request_id=accepted.job_id, sweep_id=sweep.sweep_id
    ).to_dict()
    seen["cancelFinishedSweep"] = {
        "status": again["status"],
        "sweepStatus": again.get("sweepStatus"),
        "after": after["status"],
    }
    sensitivity = session.get_sweep_sensitivity(
        exchange_id="sim", type_="ticker", request_id=accepted.job_id, sweep_id=sweep.sweep_id
    ).to_dict()
    seen["sweep"] = {
        "status": result["status"],
        "rows": len(result["leaderboard"]),
        "marginals": len(sensitivity["marginals"]),
    }
    seen["dataset"] = _dataset_journey(session, strategy_id)
    session.delete_strategy(runaway)
    seen["deleted"] = runaway not in [s.strategy_id for s in session.list_strategies().strategies]
    return seen


def _dataset_journey(session: Any, strategy_id: str) -> dict[str, Any]:
    """Upload a CSV of one-second prices, ingest it, back-test it on ``user``, delete it."""
    start = datetime(2025, 6, 2, tzinfo=UTC)
    lines = ["timestamp,close"]
    for second in range(3 * 3600):
        price = 100 + (second % 600) / 60 - (second % 1800) / 200
        lines.append(f"{int((start + timedelta(seconds=second)).timestamp() * 1000)},{price}")
    created = session.create_dataset(name="journey-prices", instrument="BTC/USDT")
    session.upload_dataset_file(created, io.BytesIO(("\n".join(lines) + "\n").encode()))
    session.finalize_dataset_upload(dataset_id=created.dataset_id, upload_id=created.upload_id)
    upload = _poll(
        lambda: session.get_dataset_upload(
            dataset_id=created.dataset_id, upload_id=created.upload_id
        ),
        lambda u: u.status.value in ("ready", "failed"),
    )
    dataset = session.get_dataset(created.dataset_id)
    listed = [d.dataset_id for d in session.list_datasets().datasets]
    accepted = session.prepare(
        exchange_id="user",
        type_="ticker",
        dataset_id=created.dataset_id,
        from_=start.isoformat(),
        to=(start + timedelta(hours=3)).isoformat(),
    )
    state = _poll(
        lambda: session.get_prepare_status(
            exchange_id="user", type_="ticker", job_id=accepted.job_id
        ),
        lambda s: s.status.value in TERMINAL,
    )
    job = session.execute(
        exchange_id="user", type_="ticker", prepare_job_id=accepted.job_id, strategy_id=strategy_id
    )
    body = _result(session, job.job_id, exchange="user")
    deleted = session.delete_dataset(created.dataset_id)
    return {
        "upload": upload.status.value,
        "rows": upload.version.rows,
        "cadence": upload.version.cadence,
        "status": str(getattr(dataset.status, "value", dataset.status)),
        "listed": created.dataset_id in listed,
        "prepare": state.status.value,
        "execute": body["state"]["status"],
        "deleted": bool(deleted.deleted),
    }


def _validate(session: Any, strategy_id: str) -> str:
    session.validate_strategy(strategy_id)
    state = _poll(
        lambda: session.get_strategy(strategy_id),
        lambda s: str(getattr(s.validation, "value", s.validation)) != "pending",
    )
    return str(getattr(state.validation, "value", state.validation))


if __name__ == "__main__":
    print(json.dumps(journey(sys.argv[1], sys.argv[2])))  # noqa: T201
