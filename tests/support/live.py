"""Helpers of the live-run black-box tests: a user with a token, run polling, signal reads."""

from __future__ import annotations

import subprocess
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


def live_hosts(server: LiveServer) -> dict[int, int]:
    """This server's live engine host JVMs (``-Xmx128m``): pid -> its worker process's pid."""
    found = subprocess.run(
        ["ps", "-ww", "-eo", "pid,ppid,args"], capture_output=True, text=True, check=True
    ).stdout.splitlines()[1:]
    parent_of = {int(line.split()[0]): int(line.split()[1]) for line in found}
    assert server.process is not None
    root = server.process.pid

    def ours(pid: int) -> bool:
        while pid > 1:
            if pid == root:
                return True
            pid = parent_of.get(pid, 1)
        return False

    return {
        int(line.split()[0]): int(line.split()[1])
        for line in found
        if "HostMain" in line and "-Xmx128m" in line and ours(int(line.split()[0]))
    }


def worker_of_new_live_hosts(server: LiveServer, before: dict[int, int]) -> int:
    """The worker process executing a run started after ``before = live_hosts(server)``: the
    one whose live hosts are new. Earlier tests' runs may still run on either worker, so "a
    worker with live hosts" can be the wrong one (a kill there leaves this run untouched)."""
    workers = {ppid for pid, ppid in live_hosts(server).items() if pid not in before}
    assert len(workers) == 1, f"the new run's live engine hosts are not in one worker: {workers}"
    return workers.pop()
