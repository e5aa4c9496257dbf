"""A live-run journey through the official SDK 0.8.0, unmodified.

Run as ``python -m tests.support.live_journey BASE_URL API_KEY`` with ``PYTHONPATH`` putting
``.venv/next-clients`` first; it prints one JSON object of what the user saw. Every live
operation of the newest client is called at least once (the SDK's session methods, and the
generated client's functions for the few the session does not wrap).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from qtsurfer.api.client._generated.api.live_execution import (
    get_live_run,
    mint_live_connection_token,
    revoke_live_stream,
    rotate_live_stream,
)
from qtsurfer.api.client._generated.models import (
    LiveSourceRequest,
    LiveSourceRequestType,
    LiveSourceRequestVenueType,
    StartLiveRequest,
    UpdateLiveRequest,
    UpdateLiveRequestVisibility,
)
from qtsurfer_sdk import auth
from qtsurfer_sdk._errors import QTSError

from tests.support.strategies import source


def _until(fetch: Any, done: Any, timeout: float = 90) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.3)


def journey(base_url: str, key: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    session = auth(key, base_url=base_url)
    strategy_id = session.compile_strategy(source("live_every_bar.java")).strategy_id
    request = StartLiveRequest(
        sources=[
            LiveSourceRequest(
                venue_type=LiveSourceRequestVenueType.CEX,
                exchange="sim",
                segment="spot",
                type_=LiveSourceRequestType.KLINE,
                instruments=["BTC/USDT"],
            )
        ],
        relay=True,
        stream=True,
        sandbox_minutes=5,
        name="sdk run",
    )
    run = session.start_live(strategy_id, request)
    seen["started"] = {
        "stage": str(run.stage.value),
        "state": run.state,
        "stream": bool(run.stream_url),
    }
    run_id = run.run_id
    try:
        session.start_live(strategy_id, request)
    except QTSError as error:
        seen["again"] = error.status
    current = _until(lambda: session.get_live(strategy_id), lambda r: r.state == "RUNNING")
    seen["running"] = current.state
    detail = session.call(lambda c: get_live_run.sync_detailed(run_id, client=c)).parsed
    seen["detail"] = {"runId": detail.run_id, "hasUpdated": detail.updated_at_ms > 0}
    seen["listed"] = [r.run_id for r in session.list_live(limit=5).runs]
    page = _until(lambda: session.get_live_signals(run_id, limit=2), lambda p: len(p.signals) == 2)
    nxt = session.get_next_live_signals(run_id, page)
    seen["signals"] = {
        "first": [s.signal_id for s in page.signals],
        "next": [s.signal_id for s in nxt.signals] if nxt is not None else None,
        "types": sorted({str(s.type_.value) for s in page.signals}),
    }
    updated = session.update_live_params(run_id, {"tag": "sdk"})
    seen["params"] = updated.params_version
    sent = session.send_live_command(run_id, "hello", properties={"qty": 2})
    seen["command"] = bool(sent.command_id)
    patched = session.update_live(
        run_id, UpdateLiveRequest(visibility=UpdateLiveRequestVisibility.PUBLIC, name="renamed")
    )
    seen["patched"] = {"visibility": str(patched.visibility.value), "name": patched.name}
    token = session.call(lambda c: mint_live_connection_token.sync_detailed(client=c)).parsed
    seen["token"] = bool(token.token) and token.expires_at_ms > 0
    rotated = session.call(lambda c: rotate_live_stream.sync_detailed(run_id, client=c)).parsed
    seen["rotated"] = rotated.stream_url.startswith("ws") and rotated.stream_url != run.stream_url
    revoked = session.call(lambda c: revoke_live_stream.sync_detailed(run_id, client=c)).parsed
    seen["revoked"] = revoked.revoked
    promoted = _until(lambda: session.get_live(strategy_id), lambda r: r.stage.value == "LIVE", 120)
    seen["promoted"] = {"stage": str(promoted.stage.value), "passed": promoted.gate["passed"]}
    public = session.list_public_live(limit=100)
    seen["public"] = run_id in [r.run_id for r in public.runs]
    stopped = session.stop_live(strategy_id)
    seen["stopped"] = str(stopped.desired.value)
    return seen


if __name__ == "__main__":
    print(json.dumps(journey(sys.argv[1], sys.argv[2])))  # noqa: T201
