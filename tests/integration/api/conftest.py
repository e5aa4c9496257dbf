"""One live-channel server for the socket tests of this directory (they use distinct runs)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.live_channel import LiveChannelServer


@pytest.fixture(scope="package")
def live_server() -> Iterator[LiveChannelServer]:
    server = LiveChannelServer()
    server.start()
    yield server
    server.stop()
