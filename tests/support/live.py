"""Helpers of the live-run black-box tests: a user with a token, run polling, signal reads."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from tests.support.server import LiveServer
from tests.support.strategies import source

SIM_KLINE = {
    "venueType": "cex",
    "exchange": "sim",
    "segment": "spot",
    "type": "kline",
    "instruments": ["BTC/USDT"],
}


@dataclass
class LiveUser:
    server: LiveServer
    name: str
    tier: str = "elite"

    def __post_init__(self) -> None:
        self.key = self.server.create_key(self.name, tier=self.tier)
        self.token = self.server.token(self.key)
        self.client = httpx.Client(
            base_url=self.server.base_url,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=60,
        )

    def register(self, name: str) -> str:
        response = self.client.post(
            "/strategy", content=source(name), headers={"Content-Type": "text/plain"}
        )
        assert response.status_code == 200, response.text
        return str(response.json()["strategyId"])

    def start(self, strategy_id: str, **body: Any) -> httpx.Response:
        payload = {"sources": [SIM_KLINE], **body}
        return self.client.post(f"/strategy/{strategy_id}/live", json=payload)

    def run(self, run_id: str) -> dict[str, Any]:
        response = self.client.get(f"/live/{run_id}")
        assert response.status_code == 200, response.text
        return dict(response.json())

    def wait_run(
        self, run_id: str, done: Callable[[dict[str, Any]], bool], timeout: float = 90
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        run = self.run(run_id)
        while not done(run):
            assert time.monotonic() < deadline, f"run never reached the condition: {run}"
            time.sleep(0.3)
            run = self.run(run_id)
        return run

    def signals(self, run_id: str, **query: Any) -> list[dict[str, Any]]:
        """Every recorded signal, following the cursors."""
        out: list[dict[str, Any]] = []
        params: dict[str, Any] = {"limit": 100, **query}
        while True:
            response = self.client.get(f"/live/{run_id}/signals", params=params)
            assert response.status_code == 200, response.text
            page = response.json()
            out += page["signals"]
            link = page.get("_links", {}).get("next")
            if not link:
                return out
            cursor = httpx.URL(link["href"]).params["cursor"]
            params = {**params, "cursor": cursor}

    def wait_signals(
        self, run_id: str, done: Callable[[list[dict[str, Any]]], bool], timeout: float = 60
    ) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        found = self.signals(run_id)
        while not done(found):
            assert time.monotonic() < deadline, f"signals never matched: {found[-5:]}"
            time.sleep(0.5)
            found = self.signals(run_id)
        return found

    def stop(self, strategy_id: str) -> dict[str, Any]:
        response = self.client.delete(f"/strategy/{strategy_id}/live")
        assert response.status_code == 200, response.text
        return dict(response.json())
