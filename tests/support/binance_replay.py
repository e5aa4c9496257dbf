"""A local WebSocket server that replays recorded Binance combined-stream frames.

A recording is JSON lines: ``{"at_ms": <ms after the recording started>, "frame": <combined
stream payload>}``, or ``{"at_ms": ..., "disconnect": true, "down_ms": <ms>}`` — the server
closes the connection there and refuses new ones (HTTP 503) for ``down_ms``, then the next
connection continues the recording. Replay starts at ``start_ms`` (a wall time); each frame is
sent at ``start_ms + at_ms`` with its exchange timestamps (``E``, ``T``, ``k.t``, ``k.T``) moved
by ``start_ms - recording_start_ms``, so it looks like data of now.
"""

from __future__ import annotations

import json
import threading
import time
from http import HTTPStatus
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.sync.server import Server, ServerConnection, serve


def load_recording(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _shifted(frame: dict[str, Any], delta: int) -> dict[str, Any]:
    data = frame.get("data")
    if not isinstance(data, dict):
        return frame
    data = dict(data)
    for key in ("E", "T"):
        if isinstance(data.get(key), int):
            data[key] += delta
    if isinstance(data.get("k"), dict):
        data["k"] = {**data["k"], "t": data["k"]["t"] + delta, "T": data["k"]["T"] + delta}
    return {**frame, "data": data}


class BinanceReplayServer:
    def __init__(
        self, recording: list[dict[str, Any]], recording_start_ms: int, start_ms: int
    ) -> None:
        self._lines = recording
        self._delta = start_ms - recording_start_ms
        self.start_ms = start_ms
        self.paths: list[str] = []
        self.refused = 0
        self._cursor = 0
        self._down_until_ms = 0
        self._server: Server = serve(
            self._handle, "127.0.0.1", 0, process_request=self._admit, compression=None
        )
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.socket.getsockname()[:2]
        return f"ws://{host}:{port}"

    def __enter__(self) -> BinanceReplayServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._thread.join(5)

    def _admit(self, connection: ServerConnection, request: Request) -> Response | None:
        if time.time() * 1000 < self._down_until_ms:
            self.refused += 1
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "down for a moment\n")
        return None

    def _handle(self, connection: ServerConnection) -> None:
        assert connection.request is not None
        self.paths.append(connection.request.path)
        while self._cursor < len(self._lines):
            line = self._lines[self._cursor]
            due = self.start_ms + line["at_ms"]
            delay = due / 1000 - time.time()
            if delay > 0:
                time.sleep(delay)
            self._cursor += 1
            if line.get("disconnect"):
                self._down_until_ms = due + line["down_ms"]
                connection.close()
                return
            connection.send(json.dumps(_shifted(line["frame"], self._delta)))
        try:  # the recording is over: hold the connection open until the client leaves
            while True:
                connection.recv()
        except ConnectionClosed:
            return
