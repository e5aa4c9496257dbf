"""Black-box: the same user journey with both official client generations.

``qtsurfer-sdk`` 0.4.2 / ``qtsurfer-api-client`` 0.128.25 are the dev-group packages;
0.8.0 / 0.128.49 (what ``pip install qtsurfer-sdk`` gives today) are installed by ``make test``
into ``.venv/next-clients`` and put first on the journey's ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.server import LiveServer, harness_environment

ROOT = Path(__file__).resolve().parents[2]
NEXT_CLIENTS = Path(sys.executable).parent.parent / "next-clients"
GENERATIONS = {"0.4.2": None, "0.8.0": NEXT_CLIENTS}


def _run(server: LiveServer, generation: str, key: str) -> dict[str, object]:
    extra = GENERATIONS[generation]
    if extra is not None and not extra.exists():
        if os.environ.get("BACKTESTD_REQUIRE_SERVICES") == "1":
            raise RuntimeError(f"{extra} is missing: run 'make test' (it installs it)")
        pytest.skip(f"{extra} is missing: run 'make test' to install qtsurfer-sdk 0.8.0")
    env = harness_environment()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(extra or ""), str(ROOT)) if p)
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.journey", server.base_url, key],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    seen: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return seen


@pytest.mark.parametrize("generation", list(GENERATIONS))
def test_every_journey_step_works_with_this_client_generation(
    live_server: LiveServer, generation: str
) -> None:
    key = live_server.create_key(f"journey-{generation.replace('.', '-')}", tier="elite")
    seen = _run(live_server, generation, key)
    assert seen["sdk"] == generation
    assert seen["tier"] == "elite"
    assert seen["maxExecute"] == 8
    assert "sim" in seen["exchanges"]  # type: ignore[operator]
    assert "BTC/USDT" in seen["instruments"]  # type: ignore[operator]
    assert seen["validation"] == "passed"
    assert seen["listed"] is True
    assert seen["codeMatches"] is True
    assert seen["prepare"] == {"status": "Completed", "coverageRatio": 1.0}
    execute = seen["execute"]
    assert isinstance(execute, dict)
    assert execute["status"] == "Completed"
    assert execute["curvePoints"] == execute["trades"] + 1
    assert seen["cancelFinished"] == {
        "keys": ["jobId", "jobStatus", "message"],
        "jobStatus": "Completed",
        "after": "Completed",
    }
    assert seen["cancel"] == {"answer": "cancelling", "final": "Aborted"}
    assert seen["cancelFinishedSweep"] == {
        "status": "cancelling",
        "sweepStatus": "COMPLETED",
        "after": "COMPLETED",
    }
    assert seen["sweep"] == {"status": "COMPLETED", "rows": 2, "marginals": 2}
    assert seen["deleted"] is True
    assert seen["dataset"] == {
        "upload": "ready",
        "rows": 3 * 3600,
        "cadence": "1s",
        "status": "ready",
        "listed": True,
        "prepare": "Completed",
        "execute": "Completed",
        "deleted": True,
    }
