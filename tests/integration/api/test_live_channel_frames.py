"""The live signal socket spoken by hand: the codes and frames Centrifugo SDKs do not show.

Each test drives a real uvicorn server (tests/support/live_channel.py) with raw WebSocket
frames and checks what a client receives: replies, error codes, pushes and close codes.
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import time
import uuid
from collections.abc import Coroutine
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus

from backtestd.services.live_tokens import mint_live_token
from tests.support.live_channel import (
    ALLOWED_ORIGIN,
    LEGACY_WEBSOCKETS_WARNINGS,
    LiveChannelServer,
    RawClient,
    signal_of,
    token,
)

pytestmark = pytest.mark.filterwarnings(LEGACY_WEBSOCKETS_WARNINGS)


def run(scenario: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(scenario, 60))


def test_connect_reply_announces_client_ttl_ping_and_pong(live_server: LiveChannelServer) -> None:
    async def scenario() -> None:
        async with RawClient.open(live_server.url()) as client:
            reply = await client.connect()
        assert set(reply) == {"client", "expires", "ttl", "ping", "pong"}
        assert uuid.UUID(reply["client"])
        assert reply["expires"] is True
        assert 595 <= reply["ttl"] <= 600
        assert reply["ping"] == 25
        assert reply["pong"] is True

    run(scenario())


def test_first_frame_that_is_not_connect_closes_3501(live_server: LiveChannelServer) -> None:
    async def scenario() -> None:
        async with RawClient.open(live_server.url()) as client:
            await client.send({"id": 1, "subscribe": {"channel": "sig:whatever"}})
            assert await client.closed() == (3501, "bad request")

    run(scenario())


def test_a_frame_that_is_not_json_closes_3501(live_server: LiveChannelServer) -> None:
    async def scenario() -> None:
        async with RawClient.open(live_server.url()) as client:
            await client.connect()
            await client.ws.send('{"id": 2, "subscribe": ')
            assert await client.closed() == (3501, "bad request")

    run(scenario())


def test_no_connect_in_time_closes_3502(live_server: LiveChannelServer) -> None:
    async def scenario() -> None:
        async with RawClient.open(live_server.url("/fast/connection/websocket")) as client:
            started = time.monotonic()
            assert await client.closed() == (3502, "stale")
            assert 0.8 <= time.monotonic() - started < 4

    run(scenario())


@pytest.mark.parametrize(
    "bad_token",
    [
        mint_live_token("another-secret", "alice").token,
        "not-a-jwt",
        "",
    ],
    ids=["foreign-signature", "garbage", "empty"],
)
def test_a_token_not_accepted_closes_3500(live_server: LiveChannelServer, bad_token: str) -> None:
    async def scenario() -> None:
        async with RawClient.open(live_server.url()) as client:
            await client.send({"id": 1, "connect": {"token": bad_token}})
            assert await client.closed() == (3500, "invalid token")

    run(scenario())


def test_an_expired_token_is_answered_109_and_a_fresh_connect_then_succeeds(
    live_server: LiveChannelServer,
) -> None:
    expired = mint_live_token(
        "live-channel-test-secret", "alice", ttl_seconds=600, now=time.time() - 601
    )

    async def scenario() -> None:
        async with RawClient.open(live_server.url()) as client:
            await client.send({"id": 1, "connect": {"token": expired.token}})
            assert await client.reply(1) == {
                "id": 1,
                "error": {"code": 109, "message": "token expired"},
            }
            await client.send({"id": 2, "connect": {"token": token()}})
            assert "connect" in await client.reply(2)

    run(scenario())


def test_refresh_moves_the_expiry_and_rejects_expired_or_foreign_tokens(
    live_server: LiveChannelServer,
) -> None:
    expired = mint_live_token("live-channel-test-secret", "alice", now=time.time() - 601)

    async def scenario() -> None:
        async with RawClient.open(live_server.url()) as client:
            await client.connect("alice")
            await client.send({"id": 2, "refresh": {"token": token("alice")}})
            refreshed = await client.reply(2)
            assert refreshed["refresh"]["expires"] is True
            assert 595 <= refreshed["refresh"]["ttl"] <= 600
            await client.send({"id": 3, "refresh": {"token": expired.token}})
            assert (await client.reply(3))["error"]["code"] == 109
            await client.send({"id": 4, "refresh": {"token": token("bob")}})
            assert await client.closed() == (3500, "invalid token")

    run(scenario())


def test_one_frame_of_many_commands_gets_every_reply_in_order(
    live_server: LiveChannelServer,
) -> None:
    own = live_server.runs.add("alice")
    others = live_server.runs.add("bob")

    async def scenario() -> None:
        async with RawClient.open(live_server.url()) as client:
            await client.send(
                {"id": 1, "connect": {"token": token("alice"), "name": "raw"}},
                {"id": 2, "subscribe": {"channel": f"sig:{own}"}},
                {"id": 3, "subscribe": {"channel": f"sig:{own}"}},
                {"id": 4, "subscribe": {"channel": own}},
                {"id": 5, "subscribe": {"channel": f"sig:{others}"}},
                {"id": 6, "rpc": {"method": "live.stop", "data": {}}},
                {"id": 7, "presence": {"channel": f"sig:{own}"}},
                {"id": 8, "presence_stats": {"channel": f"sig:{own}"}},
                {"id": 9, "publish": {"channel": f"sig:{own}", "data": {"x": 1}}},
                {},
                {"id": 10, "unsubscribe": {"channel": f"sig:{own}"}},
            )
            replies = [await client.next() for _ in range(10)]
        assert [r["id"] for r in replies] == list(range(1, 11))
        assert "connect" in replies[0]
        assert replies[1] == {"id": 2, "subscribe": {}}
        codes = [r.get("error", {}).get("code") for r in replies[2:9]]
        assert codes == [105, 102, 103, 104, 108, 108, 103]
        assert replies[9] == {"id": 10, "unsubscribe": {}}

    run(scenario())


def test_replies_to_a_batch_may_share_one_frame(live_server: LiveChannelServer) -> None:
    async def scenario() -> None:
        async with RawClient.open(live_server.url()) as client:
            await client.connect()
            client.frames = 0
            await client.send(*({"id": i, "presence": {"channel": "sig:x"}} for i in range(2, 42)))
            replies = [await client.next() for _ in range(40)]
        assert [r["error"]["code"] for r in replies] == [108] * 40
        assert client.frames < 40

    run(scenario())


def test_publications_are_pushed_with_growing_offsets_and_big_or_paper_ones_are_not(
    live_server: LiveChannelServer,
) -> None:
    run_id = live_server.runs.add("alice")

    async def scenario() -> None:
        async with RawClient.open(live_server.url()) as client:
            await client.connect()
            await client.send({"id": 2, "subscribe": {"channel": f"sig:{run_id}"}})
            await client.reply(2)
            first = await live_server.apublish(run_id, 1)
            skipped = signal_of(run_id, 2, data={"blob": "x" * 9000})
            paper = signal_of(run_id, 3, type="paper")
            assert (
                await live_server.acall(live_server.hub.publish, run_id, skipped, sandbox=True)
                is None
            )
            assert (
                await live_server.acall(live_server.hub.publish, run_id, paper, sandbox=True)
                is None
            )
            second = await live_server.apublish(run_id, 4, sandbox=False)
            pushes = [await client.push(), await client.push()]
        assert pushes == [
            {"push": {"channel": f"sig:{run_id}", "pub": {"data": first, "offset": 1}}},
            {"push": {"channel": f"sig:{run_id}", "pub": {"data": second, "offset": 2}}},
        ]

    run(scenario())


def test_history_holds_sandbox_signals_of_a_subscribed_channel_only(
    live_server: LiveChannelServer,
) -> None:
    run_id = live_server.runs.add("alice")
    channel = f"sig:{run_id}"

    async def scenario() -> None:
        async with RawClient.open(live_server.url()) as client:
            await client.connect()
            await client.send({"id": 2, "history": {"channel": channel, "limit": 300}})
            assert (await client.reply(2))["error"] == {"code": 103, "message": "permission denied"}
            await client.send({"id": 3, "subscribe": {"channel": channel}})
            await client.reply(3)
            signals = [await live_server.apublish(run_id, i) for i in (1, 2, 3)]
            await live_server.apublish(run_id, 4, sandbox=False)

            await client.send({"id": 4, "history": {"channel": channel, "limit": 300}})
            page = (await client.reply(4))["history"]
            assert [p["offset"] for p in page["publications"]] == [1, 2, 3]
            assert [p["data"] for p in page["publications"]] == signals
            assert page["offset"] == 4
            assert re.fullmatch(r"[A-Za-z0-9]{8}", page["epoch"])
            epoch = page["epoch"]

            since = {"offset": 1, "epoch": epoch}
            await client.send(
                {"id": 5, "history": {"channel": channel, "limit": 300, "since": since}}
            )
            assert [p["offset"] for p in (await client.reply(5))["history"]["publications"]] == [
                2,
                3,
            ]

            await client.send({"id": 6, "history": {"channel": channel, "limit": 0}})
            assert (await client.reply(6))["history"] == {
                "publications": [],
                "epoch": epoch,
                "offset": 4,
            }

            await client.send(
                {"id": 7, "history": {"channel": channel, "limit": 2, "reverse": True}}
            )
            assert [p["offset"] for p in (await client.reply(7))["history"]["publications"]] == [
                3,
                2,
            ]

            stale = {"offset": 1, "epoch": "AAAAAAAA"}
            await client.send(
                {"id": 8, "history": {"channel": channel, "limit": 10, "since": stale}}
            )
            assert (await client.reply(8))["error"] == {
                "code": 112,
                "message": "unrecoverable position",
            }

            await client.send({"id": 9, "history": {"channel": channel, "limit": -1}})
            assert (await client.reply(9))["error"]["code"] == 107

    run(scenario())


def test_history_of_a_promoted_public_run_shows_sandbox_signals_to_the_owner_only(
    live_server: LiveChannelServer,
) -> None:
    run_id = live_server.runs.add("alice", public=True, live=False)
    channel = f"sig:{run_id}"

    async def scenario() -> None:
        sandbox = [await live_server.apublish(run_id, seq) for seq in (1, 2)]
        live_server.runs.runs[run_id].live = True  # promoted
        await live_server.apublish(run_id, 3, sandbox=False)
        pages = {}
        for user in ("alice", "bob"):
            async with RawClient.open(live_server.url()) as client:
                await client.connect(user)
                await client.send(
                    {"id": 2, "subscribe": {"channel": channel}},
                    {"id": 3, "history": {"channel": channel, "limit": 300}},
                )
                assert await client.reply(2) == {"id": 2, "subscribe": {}}
                pages[user] = (await client.reply(3))["history"]
        assert [p["data"] for p in pages["alice"]["publications"]] == sandbox
        assert pages["bob"]["publications"] == []
        assert pages["bob"]["offset"] == pages["alice"]["offset"] == 3
        assert pages["bob"]["epoch"] == pages["alice"]["epoch"]

    run(scenario())


def test_unsubscribe_stops_pushes_and_history(live_server: LiveChannelServer) -> None:
    run_id = live_server.runs.add("alice")
    channel = f"sig:{run_id}"

    async def scenario() -> None:
        async with RawClient.open(live_server.url()) as client:
            await client.connect()
            await client.send({"id": 2, "subscribe": {"channel": channel}})
            await client.reply(2)
            await client.send({"id": 3, "unsubscribe": {"channel": channel}})
            assert await client.reply(3) == {"id": 3, "unsubscribe": {}}
            assert await live_server.acall(live_server.hub.subscribed_runs) == set()
            await live_server.apublish(run_id, 1)
            await client.send({"id": 4, "history": {"channel": channel, "limit": 10}})
            assert (await client.reply(4))["error"]["code"] == 103
            assert client.pushes == []

    run(scenario())


def test_eviction_pushes_unsubscribe_2000_to_non_owners_only(
    live_server: LiveChannelServer,
) -> None:
    run_id = live_server.runs.add("alice", public=True, live=True)
    channel = f"sig:{run_id}"

    async def scenario() -> None:
        async with (
            RawClient.open(live_server.url()) as owner,
            RawClient.open(live_server.url()) as reader,
        ):
            for client, user in ((owner, "alice"), (reader, "bob")):
                await client.connect(user)
                await client.send({"id": 2, "subscribe": {"channel": channel}})
                assert await client.reply(2) == {"id": 2, "subscribe": {}}
            live_server.runs.runs[run_id].public = False
            evicted = await live_server.acall(live_server.hub.evict_non_owners, run_id, "alice")
            assert evicted == 1
            assert await reader.push() == {
                "push": {
                    "channel": channel,
                    "unsubscribe": {"code": 2000, "reason": "server unsubscribe"},
                }
            }
            signal = await live_server.apublish(run_id, 1, sandbox=False)
            assert (await owner.push())["push"]["pub"]["data"] == signal
            await reader.send({"id": 3, "subscribe": {"channel": channel}})
            assert (await reader.reply(3))["error"]["code"] == 103
            assert reader.pushes == []

    run(scenario())


def test_server_pings_and_closes_3012_when_no_pong_comes(live_server: LiveChannelServer) -> None:
    async def scenario() -> None:
        async with RawClient.open(live_server.url("/fast/connection/websocket")) as client:
            reply = await client.connect()
            assert reply["ping"] == 1
            client.answer_pings = True
            await client.send({"id": 2, "presence": {"channel": "sig:x"}})
            await client.reply(2)
            deadline = time.monotonic() + 3.5
            while time.monotonic() < deadline:
                await client.send({"id": 3, "presence": {"channel": "sig:x"}})
                await client.reply(3)
                await asyncio.sleep(0.2)
            assert client.pings >= 2
            client.answer_pings = False
            started = time.monotonic()
            assert await client.closed(timeout=10) == (3012, "no pong")
            assert time.monotonic() - started < 4

    run(scenario())


def test_a_token_not_refreshed_closes_3005_after_the_grace(live_server: LiveChannelServer) -> None:
    short = mint_live_token("live-channel-test-secret", "alice", ttl_seconds=3)

    async def scenario() -> None:
        async with RawClient.open(live_server.url("/fast/connection/websocket")) as client:
            client.answer_pings = True
            await client.send({"id": 1, "connect": {"token": short.token}})
            reply = (await client.reply(1))["connect"]
            assert 1 <= reply["ttl"] <= 3
            assert await client.closed(timeout=10) == (3005, "connection expired")
            closed_at = time.time()
        assert short.expires_at_ms / 1000 + 0.9 <= closed_at <= short.expires_at_ms / 1000 + 3

    run(scenario())


def test_origin_rule_at_the_upgrade(live_server: LiveChannelServer) -> None:
    async def scenario() -> None:
        with pytest.raises(InvalidStatus) as refused:
            async with RawClient.open(live_server.url(), origin="https://evil.example"):
                pass
        assert refused.value.response.status_code == 403
        for origin in (ALLOWED_ORIGIN, "https://eu.trusted.example", None):
            async with RawClient.open(live_server.url(), origin=origin) as client:
                assert "client" in await client.connect()

    run(scenario())


def test_protobuf_subprotocol_is_never_selected(live_server: LiveChannelServer) -> None:
    async def scenario() -> None:
        async with RawClient.open(
            live_server.url(), subprotocols=["centrifuge-protobuf"]
        ) as client:
            assert client.ws.subprotocol is None
            assert "client" in await client.connect()

    run(scenario())


def test_a_reader_too_far_behind_is_closed_while_others_get_everything(
    live_server: LiveChannelServer,
) -> None:
    """About 20 MB of incompressible signals at ~8 MB/s: more than the socket buffers and the
    1 MiB outbox of a client that stopped reading, well within what a reading one takes."""
    run_id = live_server.runs.add("alice")
    channel = f"sig:{run_id}"
    count = 2500

    async def flood() -> None:
        """On the server's loop: bursts of 20 signals of 8000 bytes of data, 20 ms apart."""
        for seq in range(1, count + 1):
            payload = base64.b64encode(os.urandom(6000)).decode()
            live_server.hub.publish(
                run_id, signal_of(run_id, seq, data={"p": payload}), sandbox=False
            )
            if seq % 20 == 0:
                await asyncio.sleep(0.02)

    async def scenario() -> None:
        async with (
            RawClient.open(live_server.url(), compression=None) as slow,
            RawClient.open(live_server.url(), compression=None, max_size=None) as fast,
        ):
            for client in (slow, fast):
                await client.connect()
                await client.send({"id": 2, "subscribe": {"channel": channel}})
                await client.reply(2)
            slow.ws.transport.pause_reading()
            received = 0

            async def read_all() -> None:
                nonlocal received
                while received < count:
                    push = await fast.push(timeout=10)
                    received += 1
                    assert push["push"]["pub"]["offset"] == received

            reading = asyncio.create_task(read_all())
            await live_server.acall(flood)
            await reading
            slow.ws.transport.resume_reading()
            code, reason = await slow.closed(timeout=10)
        assert received == count
        assert (code, reason) == (3008, "slow")

    run(scenario())
