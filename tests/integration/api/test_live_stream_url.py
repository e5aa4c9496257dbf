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
    server: LiveChannelServer,
    secret: str,
    query: str = "",
    *,
    source: str | None = None,
    prefix: str = "",
) -> AsyncIterator[ClientConnection]:
    """A stream URL socket; ``source`` is the loopback address to connect from (the server
    sees it as the client address), ``prefix`` ``/fast`` for the short cool-down."""
    url = server.url(f"{prefix}/stream/{secret}{query}")
    extra: dict[str, Any] = {"local_addr": (source, 0)} if source else {}
    async with connect(url, proxy=None, open_timeout=5, close_timeout=1, **extra) as ws:
        yield ws


async def refused(server: LiveChannelServer, secret: str, **kwargs: Any) -> InvalidStatus:
    """The handshake's HTTP refusal (the test fails if the socket opens)."""
    with pytest.raises(InvalidStatus) as refusal:
        async with stream(server, secret, **kwargs):
            pass
    return refusal.value


@contextlib.asynccontextmanager
async def opened_once_a_slot_frees(
    server: LiveChannelServer, secret: str, source: str
) -> AsyncIterator[ClientConnection]:
    """A socket from ``source``, retried while refused 429 (the server frees a slot when it
    sees the close, a moment after the client's close handshake), for at most 2 s."""
    url = server.url(f"/stream/{secret}")
    deadline = asyncio.get_running_loop().time() + 2
    while True:
        try:
            ws = await connect(
                url, proxy=None, open_timeout=5, close_timeout=1, local_addr=(source, 0)
            )
            break
        except InvalidStatus as refusal:
            if refusal.response.status_code != 429 or asyncio.get_running_loop().time() > deadline:
                raise
        await asyncio.sleep(0.05)
    async with ws:
        yield ws


def error_of(refusal: InvalidStatus) -> dict[str, Any]:
    body = json.loads(refusal.response.body or b"")
    assert isinstance(body, dict)
    return body


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


def test_the_11th_socket_from_one_address_is_refused_429_and_a_closed_one_frees_its_slot(
    live_server: LiveChannelServer,
) -> None:
    source = "127.0.0.11"
    run_id = live_server.runs.add("alice")
    secrets = [live_server.runs.add_stream(run_id) for _ in range(6)]  # 2 sockets per URL

    async def scenario() -> None:
        async with contextlib.AsyncExitStack() as stack:
            sockets = [
                await stack.enter_async_context(stream(live_server, secret, source=source))
                for secret in secrets[:5]
                for _ in range(2)
            ]
            refusal = await refused(live_server, secrets[5], source=source)
            assert refusal.response.status_code == 429
            error = error_of(refusal)
            assert error["code"] == 429
            assert "at most 10 at once per address" in error["message"]
            assert "close one" in error["message"]
            assert error["reason"] == "STREAM_CONNECTIONS_PER_ADDRESS"
            async with stream(live_server, secrets[5]) as other_address:  # from 127.0.0.1
                signal = await live_server.apublish(run_id, 1)
                assert [await frame(ws) for ws in sockets] == [signal] * 10
                assert await frame(other_address) == signal

            await sockets.pop().close()
            async with opened_once_a_slot_frees(live_server, secrets[5], source) as eleventh:
                signal = await live_server.apublish(run_id, 2)
                assert await frame(eleventh) == signal
                assert [await frame(ws) for ws in sockets] == [signal] * 9

    run(scenario())


def test_bad_urls_below_the_threshold_answer_404_and_the_21st_starts_a_429_cool_down(
    live_server: LiveChannelServer,
) -> None:
    source = "127.0.0.12"
    run_id = live_server.runs.add("alice")
    secret = live_server.runs.add_stream(run_id)
    retired = live_server.runs.add_stream(run_id)
    del live_server.runs.stream_secrets[retired]
    fast = {"source": source, "prefix": "/fast"}

    async def scenario() -> None:
        async with stream(live_server, secret, **fast) as ws:  # a valid URL works at first
            signal = await live_server.apublish(run_id, 1)
            assert await frame(ws) == signal
        for attempt in range(20):
            bad = retired if attempt % 2 else "x" * 42 + f"{attempt:02d}"
            refusal = await refused(live_server, bad, **fast)
            assert refusal.response.status_code == 404
            assert refusal.response.body == b"not found"  # not saying unknown or retired
        twenty_first = await refused(live_server, "y" * 43, **fast)
        assert twenty_first.response.status_code == 429
        started = asyncio.get_running_loop().time()

        refusal = await refused(live_server, secret, **fast)  # now even the valid URL
        assert refusal.response.status_code == 429
        assert refusal.response.headers["Retry-After"] == "1"
        error = error_of(refusal)
        assert error["code"] == 429
        assert error["reason"] == "STREAM_BAD_URLS"
        assert "too many unknown stream URLs from client address 127.0.0.12" in error["message"]
        assert "more than 20 within 60 s" in error["message"]
        assert "retry in 1 s" in error["message"]
        async with stream(live_server, secret, prefix="/fast") as other_address:
            signal = await live_server.apublish(run_id, 2)
            assert await frame(other_address) == signal

        await asyncio.sleep(max(0.0, started + 1.1 - asyncio.get_running_loop().time()))
        async with stream(live_server, secret, **fast) as ws:  # the cool-down has passed
            signal = await live_server.apublish(run_id, 3)
            assert await frame(ws) == signal
        refusal = await refused(live_server, "z" * 43, **fast)  # and the count starts afresh
        assert refusal.response.status_code == 404

    run(scenario())
