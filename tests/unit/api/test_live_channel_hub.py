"""The hub's memory of a run, on an injected clock: the sandbox history of §5.3 (newest 300,
emptied 5 minutes after the last sandbox signal), the stream URL's ``after`` buffer (§7.23),
and the set of runs with local subscribers."""

from __future__ import annotations

import json

import pytest

from backtestd.api.live_channel import ChannelHub, HubConfig
from backtestd.api.live_channel.buffers import StalePosition
from backtestd.api.live_channel.hub import StreamAttach
from tests.support.live_channel import signal_of


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class StreamReader:
    """A stream URL connection as the hub sees it: frames in, close codes noted."""

    def __init__(self, secret: str = "s") -> None:
        self.secret = secret
        self.frames: list[str] = []
        self.closed: tuple[int, str] | None = None

    def deliver(self, frame: str) -> None:
        self.frames.append(frame)

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


def offsets(hub: ChannelHub, run_id: str) -> list[int]:
    page = hub.history(run_id, limit=300, since=None, reverse=False)
    return [p.offset for p in page.publications]


def test_history_keeps_the_newest_300_sandbox_signals_and_no_live_one() -> None:
    hub = ChannelHub(clock=Clock())
    for seq in range(1, 351):
        hub.publish("r", signal_of("r", seq), sandbox=True)
    hub.publish("r", signal_of("r", 351, sandbox=False), sandbox=False)
    page = hub.history("r", limit=300, since=None, reverse=False)
    assert [p.offset for p in page.publications] == list(range(51, 351))
    assert page.offset == 351


def test_history_is_emptied_5_minutes_after_the_last_sandbox_signal_but_keeps_its_epoch() -> None:
    clock = Clock()
    hub = ChannelHub(clock=clock)
    hub.publish("r", signal_of("r", 1), sandbox=True)
    clock.now += 200
    hub.publish("r", signal_of("r", 2), sandbox=True)
    clock.now += 250
    hub.publish("r", signal_of("r", 3, sandbox=False), sandbox=False)
    epoch = hub.history("r", limit=0, since=None, reverse=False).epoch
    clock.now += 49
    assert offsets(hub, "r") == [1, 2]
    clock.now += 1
    page = hub.history("r", limit=300, since=(1, epoch), reverse=False)
    assert page.publications == []
    assert (page.epoch, page.offset) == (epoch, 3)


def test_a_since_of_another_epoch_is_a_stale_position() -> None:
    hub = ChannelHub(clock=Clock())
    hub.publish("r", signal_of("r", 1), sandbox=True)
    with pytest.raises(StalePosition):
        hub.history("r", limit=10, since=(0, "XXXXXXXX"), reverse=False)


def test_a_run_nobody_needs_is_forgotten_and_comes_back_with_a_new_epoch() -> None:
    clock = Clock()
    hub = ChannelHub(HubConfig(sweep_interval=30), clock=clock)
    hub.publish("r", signal_of("r", 1), sandbox=True)
    first = hub.history("r", limit=0, since=None, reverse=False)
    clock.now += 301
    hub.publish("other", signal_of("other", 1), sandbox=False)  # a publication sweeps
    again = hub.history("r", limit=0, since=None, reverse=False)
    assert (first.offset, again.offset) == (1, 0)
    assert again.epoch != first.epoch


def test_after_replays_only_what_the_last_5_minutes_or_2000_signals_hold() -> None:
    clock = Clock()
    hub = ChannelHub(clock=clock)
    for seq in range(1, 2101):
        hub.publish("r", signal_of("r", seq), sandbox=False)
    evicted, held = StreamReader(), StreamReader()
    assert hub.attach_stream("r", evicted, after="r-000100", max_per_url=2) is (
        StreamAttach.AFTER_NOT_HELD
    )
    assert hub.attach_stream("r", held, after="r-002098", max_per_url=2) is StreamAttach.ATTACHED
    assert [json.loads(f)["signalId"] for f in held.frames] == ["r-002099", "r-002100"]
    clock.now += 300
    late = StreamReader("t")
    assert hub.attach_stream("r", late, after="r-002099", max_per_url=2) is (
        StreamAttach.AFTER_NOT_HELD
    )


def test_listeners_hear_when_a_run_gains_its_first_and_loses_its_last_subscriber() -> None:
    hub = ChannelHub(clock=Clock())
    heard: list[frozenset[str]] = []
    remove = hub.add_subscriptions_listener(heard.append)
    first, second = StreamReader("a"), StreamReader("a")
    hub.attach_stream("r", first, after=None, max_per_url=2)
    hub.attach_stream("r", second, after=None, max_per_url=2)
    assert hub.subscribed_runs() == {"r"}
    assert hub.attach_stream("r", StreamReader("a"), after=None, max_per_url=2) is (
        StreamAttach.TOO_MANY
    )
    hub.detach_stream("r", first)
    assert hub.close_stream("r") == 1
    assert second.closed == (1008, "stream URL no longer valid")
    remove()
    hub.attach_stream("q", StreamReader(), after=None, max_per_url=2)
    assert heard == [frozenset({"r"}), frozenset()]
    assert hub.subscribed_runs() == {"q"}
