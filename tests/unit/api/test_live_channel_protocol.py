"""Client frames of the Centrifugo JSON protocol: several commands per frame, the pong, and
what counts as a bad request (the connection is then closed 3501)."""

from __future__ import annotations

import pytest

from backtestd.api.live_channel.protocol import Command, Disconnect, parse_frame


def test_a_frame_holds_one_command_per_line_and_the_empty_command_is_a_pong() -> None:
    frame = '{"id":1,"connect":{"token":"t"}}\n{}\n\n{"id":2,"subscribe":{"channel":"sig:a"}}\n'
    assert parse_frame(frame) == [
        Command(id=1, method="connect", params={"token": "t"}),
        Command(id=0, method=None, params={}),
        Command(id=2, method="subscribe", params={"channel": "sig:a"}),
    ]
    assert parse_frame(b'{"id":3,"rpc":{"method":"live.params"}}') == [
        Command(id=3, method="rpc", params={"method": "live.params"})
    ]


@pytest.mark.parametrize(
    "frame",
    [
        "",
        "[1]",
        '{"id":1,"connect":{}',
        '{"subscribe":{"channel":"sig:a"}}',
        '{"id":"1","subscribe":{"channel":"sig:a"}}',
        '{"id":1}',
        '{"id":1,"teleport":{}}',
        '{"id":1,"subscribe":{},"unsubscribe":{}}',
        '{"id":1,"subscribe":"sig:a"}',
        '{"id":1,"connect":{}}\nnot json',
    ],
    ids=[
        "empty",
        "not-an-object",
        "truncated",
        "method-without-id",
        "string-id",
        "id-without-method",
        "unknown-method",
        "two-methods",
        "body-not-an-object",
        "bad-second-line",
    ],
)
def test_malformed_frames_are_bad_requests(frame: str) -> None:
    with pytest.raises(Disconnect) as closing:
        parse_frame(frame)
    assert (closing.value.close.code, closing.value.close.reason) == (3501, "bad request")
