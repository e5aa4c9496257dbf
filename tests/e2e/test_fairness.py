"""Fair sharing between users (issue 9.9): one busy user cannot make another wait behind all of it.

Each test lets a burner queue several CPU-bound requests, then an ordinary user submits one. The
assertion is about order, not absolute time, so a slow or noisy machine does not change it: the
ordinary user's request finishes right after the burner's first one, before its second (first
come, first served would finish it after the burner's last).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from qtsurfer_sdk import AuthenticatedSession, auth

from tests.e2e.backtest_helpers import TERMINAL, call, recent_range, wait_prepare
from tests.support.attacks import compile_bomb
from tests.support.server import LiveServer
from tests.support.strategies import source

VALIDATION_CPU_S = 2
RUN_CPU_S = 3
# A compile bomb holds its host for this long; another user's ordinary compile must be done well
# before it (4 s was too close: a cold compile took 4.4 s in a slow phase of a 2-core machine).
COMPILE_CPU_S = 8
BURNERS = 3


def _burner(n: int) -> str:
    """A distinct (so separately identified) strategy that spins until its CPU limit."""
    return source("loops_forever.java").replace("LoopsForever", f"LoopsForever{n}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(
        tmp_path_factory.mktemp("fairness"),
        extra_env={
            "BACKTESTD_VALIDATION_WORKERS": "1",
            "BACKTESTD_VALIDATION_CPU_LIMIT_SECONDS": str(VALIDATION_CPU_S),
            "BACKTESTD_RUN_CPU_LIMIT_SECONDS": str(RUN_CPU_S),
            "BACKTESTD_COMPILE_CPU_LIMIT_SECONDS": str(COMPILE_CPU_S),
            "BACKTESTD_DASK_WORKERS": "1",  # one worker with one thread: jobs run one at a time
        },
    )
    live.start()
    yield live
    live.stop()


def _session(server: LiveServer, user: str) -> AuthenticatedSession:
    return auth(server.create_key(user, tier="pro"), base_url=server.base_url)


def _register(session: AuthenticatedSession, text: str) -> str:
    return str(session.compile_strategy(text).strategy_id)


def _finish_times(waits: dict[str, Callable[[], bool]], timeout: float = 240) -> dict[str, float]:
    """Polls every ``done`` check until all are true; returns when each first was."""
    finished: dict[str, float] = {}
    deadline = time.monotonic() + timeout
    while len(finished) < len(waits):
        assert time.monotonic() < deadline, f"still waiting for {set(waits) - set(finished)}"
        for name, done in waits.items():
            if name not in finished and done():
                finished[name] = time.monotonic()
        time.sleep(0.1)
    return finished


def _verdict_done(session: AuthenticatedSession, strategy_id: str) -> Callable[[], bool]:
    def done() -> bool:
        value = session.get_strategy(strategy_id).validation.value
        return value in ("passed", "failed")

    return done


def _job_done(server: LiveServer, session: AuthenticatedSession, job_id: str) -> Callable[[], bool]:
    def done() -> bool:
        response = call(server, session, "GET", f"/backtest/sim/ticker/execute/{job_id}")
        if response.status_code != 200:
            return False
        body: dict[str, Any] = response.json()
        return body["state"]["status"] in TERMINAL

    return done


def _prepared(burner: AuthenticatedSession, victim: AuthenticatedSession) -> dict[str, str]:
    """One completed hour of ``sim`` ticks for each of the two users."""
    start, end = recent_range(1)
    prepared = {}
    for name, session in (("burner", burner), ("victim", victim)):
        job = session.prepare(
            exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
        )
        assert wait_prepare(session, "sim", "ticker", job.job_id).status.value == "Completed"
        prepared[name] = str(job.job_id)
    return prepared


def test_validations_are_served_round_robin_across_users(server: LiveServer) -> None:
    burner = _session(server, "validation-burner")
    victim = _session(server, "validation-victim")
    burning = [_register(burner, _burner(n)) for n in range(BURNERS)]
    ordinary = _register(victim, source("ema_cross.java"))

    for strategy_id in burning:
        burner.validate_strategy(strategy_id)
    victim.validate_strategy(ordinary)
    finished = _finish_times(
        {
            **{f"burner-{i}": _verdict_done(burner, s) for i, s in enumerate(burning)},
            "victim": _verdict_done(victim, ordinary),
        }
    )

    assert victim.get_strategy(ordinary).validation.value == "passed"
    assert burner.get_strategy(burning[-1]).validation.value == "failed"
    order = sorted(finished, key=finished.__getitem__)
    assert finished["victim"] < finished["burner-1"], order


def test_jobs_of_a_busy_user_interleave_with_another_users(server: LiveServer) -> None:
    burner = _session(server, "job-burner")
    victim = _session(server, "job-victim")
    prepared = _prepared(burner, victim)
    burning = [_register(burner, _burner(10 + n)) for n in range(BURNERS)]
    ordinary = _register(victim, source("ema_cross.java"))

    burner_jobs = [
        burner.execute(
            exchange_id="sim", type_="ticker", prepare_job_id=prepared["burner"], strategy_id=s
        ).job_id
        for s in burning
    ]
    victim_job = victim.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=prepared["victim"], strategy_id=ordinary
    ).job_id
    finished = _finish_times(
        {
            **{f"burner-{i}": _job_done(server, burner, j) for i, j in enumerate(burner_jobs)},
            "victim": _job_done(server, victim, victim_job),
        }
    )

    result = call(server, victim, "GET", f"/backtest/sim/ticker/execute/{victim_job}").json()
    assert result["state"]["status"] == "Completed", result
    order = sorted(finished, key=finished.__getitem__)
    assert finished["victim"] < finished["burner-1"], order


SPIN_VECTORS = 24
SPIN_WORK = 250  # millions of steps per vector: about 0.3-0.6 s each on our machines


def _sweep_path(prepare_job_id: str, sweep_id: str = "") -> str:
    tail = f"/{sweep_id}" if sweep_id else ""
    return f"/backtest/sim/ticker/executeSweep/{prepare_job_id}{tail}"


def test_a_running_sweep_gives_its_worker_to_another_users_job(server: LiveServer) -> None:
    """Attacker first: one user's sweep holds the only worker slot (one shard of many CPU-bound
    vectors). Victim right after: another user's execute must not wait for the whole shard.
    The shard gives its worker back between batches once it has run its turn, runs again after
    the victim, and still runs every vector exactly once."""
    burner = _session(server, "sweep-burner")
    victim = _session(server, "sweep-victim")
    prepared = _prepared(burner, victim)
    spinner = _register(burner, source("spins_per_run.java"))
    ordinary = _register(victim, source("ema_cross.java"))
    works = [SPIN_WORK + n for n in range(SPIN_VECTORS)]  # distinct vectors, equal cost
    accepted = call(
        server,
        burner,
        "POST",
        _sweep_path(prepared["burner"]),
        json={"strategyId": spinner, "sweep": {"params": {"work": {"values": works}}}},
    )
    assert accepted.status_code == 202, accepted.text
    sweep_id = accepted.json()["sweepId"]

    def sweep_body() -> dict[str, Any]:
        response = call(server, burner, "GET", _sweep_path(prepared["burner"], sweep_id))
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    deadline = time.monotonic() + 120
    while sweep_body()["progress"]["done"] == 0:  # the shard holds the worker now
        assert time.monotonic() < deadline, "the sweep never started"
        time.sleep(0.1)
    victim_job = victim.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=prepared["victim"], strategy_id=ordinary
    ).job_id
    victim_done = _job_done(server, victim, victim_job)
    while not victim_done():
        assert time.monotonic() < deadline + 120, "the victim's execute never finished"
        time.sleep(0.1)
    # Read after the victim's answer: the sweep was still running when the victim finished.
    assert sweep_body()["progress"]["done"] < SPIN_VECTORS

    result = call(server, victim, "GET", f"/backtest/sim/ticker/execute/{victim_job}").json()
    assert result["state"]["status"] == "Completed", result
    while sweep_body()["status"] == "RUNNING":
        assert time.monotonic() < deadline + 240, "the sweep never finished"
        time.sleep(0.2)
    body = sweep_body()
    assert body["status"] == "COMPLETED", body
    assert body["progress"]["done"] == SPIN_VECTORS
    rows = body["leaderboard"]
    assert sorted(row["runIx"] for row in rows) == list(range(SPIN_VECTORS))
    assert not [row for row in rows if row.get("aborted")]


def test_one_user_cannot_hold_every_engine_host_with_compiles(server: LiveServer) -> None:
    """Two engine hosts, one compile per user: the bomber's second compile is refused at once
    and another user's registration does not wait behind the bomb."""
    bomber = _session(server, "bomber")
    victim = _session(server, "compile-victim")
    headers = {"Authorization": f"Bearer {bomber.token.access_token}"}  # type: ignore[union-attr]
    started = threading.Event()

    def bomb(n: int) -> httpx.Response:
        started.set()
        return httpx.post(
            f"{server.base_url}/strategy",
            content=compile_bomb(f"Bomb{n}").encode(),
            headers=headers,
            timeout=120,
        )

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(bomb, 1)
        started.wait()
        time.sleep(0.5)  # the first bomb is in javac now
        second = bomb(2)
        victim_started = time.monotonic()
        registered = _register(victim, source("ema_cross.java"))
        victim_took = time.monotonic() - victim_started
        first_answer = first.result()

    assert second.status_code == 429, second.text
    assert "compilations in flight" in second.json()["message"]
    assert first_answer.status_code == 400, first_answer.text
    assert "javac" in first_answer.json()["message"]
    assert registered
    assert victim_took < COMPILE_CPU_S, f"the victim waited {victim_took:.1f} s behind the bomb"
