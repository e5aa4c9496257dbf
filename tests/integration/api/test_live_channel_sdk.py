"""The official Python Centrifugo client (``centrifuge-python``), unmodified, against the live
signal socket: what a user of the SDK sees."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import Any

import pytest
from centrifuge import (
    Client,
    ClientEventHandler,
    ClientState,
    DisconnectedContext,
    PublicationContext,
    ReplyError,
    SubscribedContext,
    SubscriptionEventHandler,
    SubscriptionState,
    SubscriptionUnsubscribedError,
    UnsubscribedContext,
)

from backtestd.services.live_tokens import mint_live_token
from tests.support.live_channel import (
    LEGACY_WEBSOCKETS_WARNINGS,
    SECRET,
    LiveChannelServer,
    token,
)

pytestmark = pytest.mark.filterwarnings(LEGACY_WEBSOCKETS_WARNINGS)


def run(scenario: Coroutine[Any, Any, None]) -> None:
    async def main() -> None:
        await asyncio.wait_for(scenario, 60)
        # The SDK closes its sockets in background tasks (disconnect() does not wait for
        # them); let them finish before the loop goes, or their transports leak.
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        if others:
            await asyncio.wait(others, timeout=5)

    asyncio.run(main())


class Recorder(SubscriptionEventHandler):
    """What a subscription's event handlers saw."""

    def __init__(self) -> None:
        self.publications: asyncio.Queue[PublicationContext] = asyncio.Queue()
        self.subscribed: list[SubscribedContext] = []
        self.unsubscribed: asyncio.Queue[UnsubscribedContext] = asyncio.Queue()

    async def on_publication(self, ctx: PublicationContext) -> None:
        await self.publications.put(ctx)

    async def on_subscribed(self, ctx: SubscribedContext) -> None:
        self.subscribed.append(ctx)

    async def on_unsubscribed(self, ctx: UnsubscribedContext) -> None:
        await self.unsubscribed.put(ctx)


class ClientRecorder(ClientEventHandler):
    def __init__(self) -> None:
        self.disconnected: asyncio.Queue[DisconnectedContext] = asyncio.Queue()

    async def on_disconnected(self, ctx: DisconnectedContext) -> None:
        await self.disconnected.put(ctx)


def sdk_client(server: LiveChannelServer, user_id: str = "alice", **kwargs: Any) -> Client:
    if "token" not in kwargs and "get_token" not in kwargs:
        kwargs["token"] = token(user_id)
    return Client(server.url(), proxy=None, **kwargs)


def test_sdk_connects_subscribes_and_receives_each_pushed_signal(
    live_server: LiveChannelServer,
) -> None:
    run_id = live_server.runs.add("alice")

    async def scenario() -> None:
        client = sdk_client(live_server)
        events = Recorder()
        sub = client.new_subscription(f"sig:{run_id}", events)
        await client.connect()
        await client.ready(timeout=5)
        await sub.subscribe()
        await sub.ready(timeout=5)
        sent = [await live_server.apublish(run_id, seq) for seq in (1, 2, 3)]
        got = [await asyncio.wait_for(events.publications.get(), 5) for _ in sent]
        await client.disconnect()
        assert [ctx.pub.data for ctx in got] == sent
        assert [ctx.pub.offset for ctx in got] == [1, 2, 3]

    run(scenario())


def test_sdk_rpc_live_params_answers_like_rest_and_mirrors_its_errors(
    live_server: LiveChannelServer,
) -> None:
    own = live_server.runs.add("alice")
    stopped = live_server.runs.add("alice", running=False)
    others = live_server.runs.add("bob")

    async def scenario() -> None:
        client = sdk_client(live_server)
        await client.connect()
        await client.ready(timeout=5)
        first = await client.rpc("live.params", {"runId": own, "params": {"emaFast": "12"}})
        second = await client.rpc("live.params", {"runId": own, "params": {"emaFast": 12}})
        errors = {}
        for name, method, data in (
            ("other's run", "live.params", {"runId": others, "params": {"a": 1}}),
            ("empty params", "live.params", {"runId": own, "params": {}}),
            ("stopped run", "live.params", {"runId": stopped, "params": {"a": 1}}),
            ("not an object", "live.params", ["a"]),
            ("unknown method", "live.stop", {"runId": own}),
        ):
            with pytest.raises(ReplyError) as refused:
                await client.rpc(method, data)
            errors[name] = (refused.value.code, refused.value.message)
        await client.disconnect()
        assert first.data["runId"] == own
        assert (first.data["paramsVersion"], second.data["paramsVersion"]) == (1, 2)
        assert first.data["effectiveAtMs"] > time.time() * 1000
        assert errors == {
            "other's run": (404, "no such run"),
            "empty params": (400, "params must be a non-empty object"),
            "stopped run": (409, "the run is not running"),
            "not an object": (400, "the live.params data must be an object with runId and params"),
            "unknown method": (104, "method not found"),
        }
        assert live_server.runs.runs[own].params == {"emaFast": 12}

    run(scenario())


def test_sdk_refreshes_its_token_and_stays_connected_past_the_first_expiry(
    live_server: LiveChannelServer,
) -> None:
    """Tokens of 3 s on the endpoint that closes 1 s after expiry: only refreshes keep it."""
    run_id = live_server.runs.add("alice")
    minted: list[int] = []

    async def get_token() -> str:
        issued = mint_live_token(SECRET, "alice", ttl_seconds=3)
        minted.append(issued.expires_at_ms)
        return issued.token

    async def scenario() -> None:
        states = ClientRecorder()
        client = Client(
            live_server.url("/fast/connection/websocket"),
            get_token=get_token,
            events=states,
            proxy=None,
        )
        events = Recorder()
        sub = client.new_subscription(f"sig:{run_id}", events)
        await client.connect()
        await client.ready(timeout=5)
        await sub.subscribe()
        await sub.ready(timeout=5)
        first_expiry = minted[0] / 1000
        await asyncio.sleep(max(0.0, first_expiry + 2.5 - time.time()))
        sent = await live_server.apublish(run_id, 1)
        got = await asyncio.wait_for(events.publications.get(), 5)
        assert client.state == ClientState.CONNECTED
        assert states.disconnected.empty()
        await client.disconnect()
        assert got.pub.data == sent
        assert len(minted) >= 2
        assert len(events.subscribed) == 1, "the connection was never re-established"

    run(scenario())


def test_sdk_gets_a_new_token_after_109_and_connects(live_server: LiveChannelServer) -> None:
    tokens = [
        mint_live_token(SECRET, "alice", now=time.time() - 601).token,
        token("alice"),
    ]
    asked: list[str] = []

    async def get_token() -> str:
        asked.append(tokens[len(asked)])
        return asked[-1]

    async def scenario() -> None:
        client = Client(live_server.url(), get_token=get_token, proxy=None)
        await client.connect()
        await client.ready(timeout=10)
        assert client.state == ClientState.CONNECTED
        await client.disconnect()
        assert asked == tokens

    run(scenario())


def test_sdk_subscription_to_a_run_it_may_not_read_is_refused_103(
    live_server: LiveChannelServer,
) -> None:
    private = live_server.runs.add("bob")
    public_in_sandbox = live_server.runs.add("bob", public=True, live=False)
    public_and_live = live_server.runs.add("bob", public=True, live=True)
    channels = {
        "private": f"sig:{private}",
        "public, sandbox": f"sig:{public_in_sandbox}",
        "unknown": "sig:noSuchRun0000000000000",
        "public, live": f"sig:{public_and_live}",
    }

    async def scenario() -> None:
        client = sdk_client(live_server, "alice")
        await client.connect()
        await client.ready(timeout=5)
        outcomes: dict[str, object] = {}
        for name, channel in channels.items():
            events = Recorder()
            sub = client.new_subscription(channel, events)
            await sub.subscribe()
            try:
                await sub.ready(timeout=5)
                outcomes[name] = "subscribed"
            except SubscriptionUnsubscribedError:
                ctx = await asyncio.wait_for(events.unsubscribed.get(), 5)
                outcomes[name] = (ctx.code, ctx.reason, sub.state)
        await client.disconnect()
        refused = (103, "permission denied", SubscriptionState.UNSUBSCRIBED)
        assert outcomes == {
            "private": refused,
            "public, sandbox": refused,
            "unknown": refused,
            "public, live": "subscribed",
        }

    run(scenario())


def test_sdk_subscriber_is_unsubscribed_2000_when_the_run_turns_private(
    live_server: LiveChannelServer,
) -> None:
    run_id = live_server.runs.add("alice", public=True, live=True)

    async def scenario() -> None:
        owner, reader = sdk_client(live_server, "alice"), sdk_client(live_server, "bob")
        owner_events, reader_events = Recorder(), Recorder()
        subs = [
            owner.new_subscription(f"sig:{run_id}", owner_events),
            reader.new_subscription(f"sig:{run_id}", reader_events),
        ]
        for client, sub in zip((owner, reader), subs, strict=True):
            await client.connect()
            await client.ready(timeout=5)
            await sub.subscribe()
            await sub.ready(timeout=5)
        live_server.runs.runs[run_id].public = False
        assert await live_server.acall(live_server.hub.evict_non_owners, run_id, "alice") == 1
        ctx = await asyncio.wait_for(reader_events.unsubscribed.get(), 5)
        sent = await live_server.apublish(run_id, 1, sandbox=False)
        got = await asyncio.wait_for(owner_events.publications.get(), 5)
        await asyncio.sleep(0.3)
        reader_state = subs[1].state
        for client in (owner, reader):
            await client.disconnect()
        assert (ctx.code, ctx.reason) == (2000, "server unsubscribe")
        assert reader_state == SubscriptionState.UNSUBSCRIBED
        assert reader_events.publications.empty()
        assert got.pub.data == sent

    run(scenario())


def test_sdk_with_a_bad_token_is_disconnected_3500_and_stops(
    live_server: LiveChannelServer,
) -> None:
    async def scenario() -> None:
        states = ClientRecorder()
        client = sdk_client(
            live_server, token=mint_live_token("not-the-secret", "alice").token, events=states
        )
        await client.connect()
        ctx = await asyncio.wait_for(states.disconnected.get(), 5)
        await asyncio.sleep(0.5)
        assert (ctx.code, ctx.reason) == (3500, "invalid token")
        assert client.state == ClientState.DISCONNECTED
        assert states.disconnected.empty(), "the SDK kept reconnecting"

    run(scenario())


def test_sdk_history_returns_the_sandbox_signals_with_their_offsets(
    live_server: LiveChannelServer,
) -> None:
    run_id = live_server.runs.add("alice")

    async def scenario() -> None:
        client = sdk_client(live_server)
        events = Recorder()
        sub = client.new_subscription(f"sig:{run_id}", events)
        await client.connect()
        await sub.subscribe()
        await sub.ready(timeout=5)
        sent = [await live_server.apublish(run_id, seq) for seq in (1, 2)]
        await live_server.apublish(run_id, 3, sandbox=False)
        page = await sub.history(limit=300)
        await client.disconnect()
        assert [p.data for p in page.publications] == sent
        assert [p.offset for p in page.publications] == [1, 2]
        assert page.offset == 3
        assert len(page.epoch) == 8

    run(scenario())
