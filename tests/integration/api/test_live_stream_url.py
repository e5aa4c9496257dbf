"""The plain stream URL ``/stream/{secret}``: one signal per text frame, ``after`` replay, and
its close codes, on a real uvicorn server."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.support.live_channel import (
    LEGACY_WEBSOCKETS_WARNINGS,
    UNREACHABLE_SECRET,
    LiveChannelServer,
    signal_of,
)

pytestmark = pytest.mark.filterwarnings(LEGACY_WEBSOCKETS_WARNINGS)


def run(scenario: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(scenario, 60))


@contextlib.asynccontextmanager
async def stream(
    server: LiveChannelServer, secret: str, query: str = ""
) -> AsyncIterator[ClientConnection]:
    url = server.url(f"/stream/{secret}{query}")
    async with connect(url, proxy=None, open_timeout=5, close_timeout=1) as ws:
        yield ws


async def frame(ws: ClientConnection, timeout: float = 5.0) -> dict[str, Any]:
    text = await asyncio.wait_for(ws.recv(), timeout)
    assert isinstance(text, str)
    return json.loads(text)


async def closed(ws: ClientConnection, timeout: float = 5.0) -> tuple[int | None, list[Any]]:
    """Read until the server closes: its close code and the frames that came first."""
    frames = []
    with contextlib.suppress(ConnectionClosed):
        while True:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), timeout)))
    return ws.close_code, frames


def test_each_frame_is_one_signal_of_either_stage_big_and_paper_ones_left_out(
    live_server: LiveChannelServer,
) -> None:
    run_id = live_server.runs.add("alice", public=False)
    secret = live_server.runs.add_stream(run_id)

    async def scenario() -> None:
        async with stream(live_server, secret) as ws:
            sandbox = await live_server.apublish(run_id, 1, sandbox=True)
            big = signal_of(run_id, 2, data={"blob": "x" * 9000})
            paper = signal_of(run_id, 3, type="paper")
            for skipped in (big, paper):
                await live_server.acall(live_server.hub.publish, run_id, skipped, sandbox=True)
            live = await live_server.apublish(run_id, 4, sandbox=False)
            assert [await frame(ws), await frame(ws)] == [sandbox, live]
            with pytest.raises(TimeoutError):
                await frame(ws, timeout=0.3)

    run(scenario())


def test_after_replays_what_followed_then_continues_each_signal_once(
    live_server: LiveChannelServer,
) -> None:
    run_id = live_server.runs.add("alice")
    secret = live_server.runs.add_stream(run_id)

    async def scenario() -> None:
        sent = [await live_server.apublish(run_id, seq) for seq in range(1, 6)]
        async with stream(live_server, secret, f"?after={sent[1]['signalId']}") as ws:
            replayed = [await frame(ws) for _ in range(3)]
            later = await live_server.apublish(run_id, 6, sandbox=False)
            assert await frame(ws) == later
            with pytest.raises(TimeoutError):
                await frame(ws, timeout=0.3)
        assert replayed == sent[2:]

    run(scenario())


def test_after_a_signal_no_longer_held_closes_4001_before_any_frame(
    live_server: LiveChannelServer,
) -> None:
    run_id = live_server.runs.add("alice")
    secret = live_server.runs.add_stream(run_id)

    async def scenario() -> None:
        await live_server.apublish(run_id, 1)
        async with stream(live_server, secret, f"?after={run_id}-999999") as ws:
            assert await closed(ws) == (4001, [])

    run(scenario())


def test_small_client_frames_are_ignored_and_one_over_1_kib_closes_1009(
    live_server: LiveChannelServer,
) -> None:
    run_id = live_server.runs.add("alice")
    secret = live_server.runs.add_stream(run_id)

    async def scenario() -> None:
        async with stream(live_server, secret) as ws:
            await ws.send("hello")
            await ws.send("z" * 1024)
            signal = await live_server.apublish(run_id, 1)
            assert await frame(ws) == signal
            await ws.send("z" * 1025)
            assert await closed(ws) == (1009, [])

    run(scenario())


def test_close_stream_closes_the_runs_connections_1008(live_server: LiveChannelServer) -> None:
    run_id = live_server.runs.add("alice")
    secret = live_server.runs.add_stream(run_id)
    other_run = live_server.runs.add("alice")
    other_secret = live_server.runs.add_stream(other_run)

    async def scenario() -> None:
        async with (
            stream(live_server, secret) as first,
            stream(live_server, secret) as second,
            stream(live_server, other_secret) as unrelated,
        ):
            await asyncio.sleep(0.2)
            assert await live_server.acall(live_server.hub.close_stream, run_id) == 2
            assert (await closed(first))[0] == 1008
            assert (await closed(second))[0] == 1008
            signal = await live_server.apublish(other_run, 1)
            assert await frame(unrelated) == signal

    run(scenario())


def test_a_third_connection_to_one_url_is_closed_1013(live_server: LiveChannelServer) -> None:
    run_id = live_server.runs.add("alice")
    secret = live_server.runs.add_stream(run_id)

    async def scenario() -> None:
        async with stream(live_server, secret) as first, stream(live_server, secret) as second:
            await asyncio.sleep(0.2)
            async with stream(live_server, secret) as third:
                assert await closed(third) == (1013, [])
            signal = await live_server.apublish(run_id, 1)
            assert [await frame(first), await frame(second)] == [signal, signal]
        await asyncio.sleep(0.2)
        async with stream(live_server, secret) as again:  # room again once they left
            signal = await live_server.apublish(run_id, 2)
            assert await frame(again) == signal

    run(scenario())


def test_an_unknown_url_is_refused_404_at_the_handshake(live_server: LiveChannelServer) -> None:
    async def scenario() -> None:
        with pytest.raises(InvalidStatus) as refused:
            async with stream(live_server, "x" * 43):
                pass
        assert refused.value.response.status_code == 404

    run(scenario())


def test_a_url_that_cannot_be_checked_now_is_refused_503(live_server: LiveChannelServer) -> None:
    async def scenario() -> None:
        with pytest.raises(InvalidStatus) as refused:
            async with stream(live_server, UNREACHABLE_SECRET):
                pass
        assert refused.value.response.status_code == 503

    run(scenario())
