"""Tenant isolation through the API (issue 9): a hostile user first, an ordinary user right after.

The server runs one engine host for compiles and validations and one Dask worker for backtests,
so attacker and victim share every JVM. Each attack must fail the attacker's own request with a
clear message within seconds; the victim's next registration, validation and backtest must
succeed promptly with the same results as before any attack.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from qtsurfer_sdk import AuthenticatedSession, auth

from tests.e2e.backtest_helpers import call, recent_range, wait_prepare, wait_result
from tests.support.attacks import compile_bomb
from tests.support.polling import Pauses
from tests.support.server import LiveServer
from tests.support.strategies import source

COMPILE_CPU_S = 3
VICTIM_SECONDS = 15.0
"""How long the victim's registration may take right after an attack (a JVM restart included)."""
METRICS = ("totalTrades", "pnlTotal", "pnlTotalPercent", "winRate", "maxDrawdown")

HEADER = """\
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import java.util.function.*;

"""

LIAR = (
    HEADER
    + """\
public class Liar extends AbstractTickerStrategy {
    static final class Endless extends RuntimeException {
        @Override
        public String getMessage() {
            while (true) {
            }
        }
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        throw new Endless();
    }
}
"""
)

FLOOD = (
    HEADER
    + """\
public class Flood extends AbstractTickerStrategy {
    private static final String PAGE = "x".repeat(8_000);
    private long n;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        for (int i = 0; i < 4; i++) { // 32 KB a tick: over 8 MiB even in a quiet hour
            emitInfo("page", PAGE + n++);
        }
    }
}
"""
)


SETTER = (
    HEADER
    + """\
import java.util.Locale;

public class Setter extends AbstractTickerStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        Locale.setDefault(Locale.GERMANY);
    }
}
"""
)

CHATTY = (
    HEADER
    + """\
public class Chatty extends AbstractTickerStrategy {
    private long n;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        log.info("line " + (n++ % 300));
    }
}
"""
)

SLOW = (
    HEADER
    + """\
public class Slow extends AbstractTickerStrategy {
    private double prev = Double.NaN;

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice();
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        double x = 1;
        for (int i = 0; i < 200_000; i++) {
            x = Math.sqrt(x + i);
        }
        double p = ticker.last() + (x > 1e300 ? 1 : 0);
        boolean seen = !Double.isNaN(prev);
        if (seen && p > prev * 1.00002) {
            emitBuy(ticker.instrument(), p);
        }
        if (seen && p < prev * 0.99998) {
            emitSell(ticker.instrument(), p);
        }
        prev = p;
    }
}
"""
)
"""An ordinary strategy that takes a few seconds over an hour of tickers."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(
        tmp_path_factory.mktemp("isolation"),
        extra_env={
            "BACKTESTD_ENGINE_HOSTS": "1",
            "BACKTESTD_DASK_WORKERS": "1",
            "BACKTESTD_COMPILE_CPU_LIMIT_SECONDS": str(COMPILE_CPU_S),
        },
    )
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def window() -> tuple[str, str]:
    """One range for every backtest of the module, so results are comparable."""
    return recent_range(1)


@pytest.fixture(scope="module")
def baseline(server: LiveServer, window: tuple[str, str]) -> dict[str, Any]:
    """The victim's backtest before any attack."""
    return _victim_backtest(server, "baseline-victim", window)


def _session(server: LiveServer, user: str) -> AuthenticatedSession:
    return auth(server.create_key(user, tier="pro"), base_url=server.base_url)


def _register(server: LiveServer, session: AuthenticatedSession, text: str) -> httpx.Response:
    return call(server, session, "POST", "/strategy", content=text.encode())


def _wait_verdict(session: AuthenticatedSession, strategy_id: str, timeout: float = 120) -> Any:
    session.validate_strategy(strategy_id)
    deadline = time.monotonic() + timeout
    pauses = Pauses()
    while time.monotonic() < deadline:
        state = session.get_strategy(strategy_id)
        if state.validation.value not in ("pending", "not_validated"):
            return state
        pauses.sleep()
    raise AssertionError(f"no verdict for {strategy_id} after {timeout} s")


def _execute(
    session: AuthenticatedSession, strategy_id: str, window: tuple[str, str]
) -> dict[str, Any]:
    start, end = window
    prepared = session.prepare(
        exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
    )
    assert wait_prepare(session, "sim", "ticker", prepared.job_id).status.value == "Completed"
    job = session.execute(
        exchange_id="sim", type_="ticker", prepare_job_id=prepared.job_id, strategy_id=strategy_id
    )
    return wait_result(session, "sim", "ticker", job.job_id)


def _victim_registers(server: LiveServer, user: str) -> tuple[AuthenticatedSession, str]:
    victim = _session(server, user)
    started = time.monotonic()
    response = _register(server, victim, source("ema_cross.java"))
    took = time.monotonic() - started
    assert response.status_code == 200, response.text
    assert took < VICTIM_SECONDS, f"the victim's registration took {took:.1f} s"
    return victim, str(response.json()["strategyId"])


def _victim_backtest(server: LiveServer, user: str, window: tuple[str, str]) -> dict[str, Any]:
    victim, strategy_id = _victim_registers(server, user)
    verdict = _wait_verdict(victim, strategy_id)
    assert verdict.validation.value == "passed", verdict.to_dict()
    body = _execute(victim, strategy_id, window)
    assert body["state"]["status"] == "Completed", body
    return {k: body["results"][k] for k in METRICS}


def _rss_bytes(server: LiveServer) -> int:
    assert server.process is not None
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


def test_a_blocked_class_registers_with_a_warning_and_fails_validation_and_runs(
    server: LiveServer, baseline: dict[str, Any], window: tuple[str, str]
) -> None:
    """Point 13: as strategy-api §2.2 says, a blocked class is not a compile error."""
    attacker = _session(server, "blocked-import")

    response = _register(server, attacker, source("reads_file.java"))

    assert response.status_code == 200, response.text
    body = response.json()
    warnings = " ".join(body["warnings"])
    assert "ReadsFile uses java.nio.file" in warnings, warnings
    assert "not on the strategy allowlist" in warnings
    verdict = _wait_verdict(attacker, body["strategyId"])
    assert verdict.validation.value == "failed"
    notices = " ".join(n.message for n in verdict.notices)
    assert "ReadsFile uses java.nio.file" in notices, notices
    assert "not on the strategy allowlist" in notices
    run = _execute(attacker, body["strategyId"], window)
    assert run["state"]["status"] == "Failed"
    assert "not on the strategy allowlist" in str(run), run
    assert _victim_backtest(server, "after-blocked", window) == baseline


def test_compile_bomb_fails_its_own_registration_in_seconds(
    server: LiveServer, baseline: dict[str, Any], window: tuple[str, str]
) -> None:
    """Point 4: javac gets a CPU budget; the victim right after registers normally."""
    attacker = _session(server, "compile-bomber")
    bomb = compile_bomb()
    assert len(bomb) < 32_768  # what POST /strategy accepts

    started = time.monotonic()
    response = _register(server, attacker, bomb)
    took = time.monotonic() - started

    assert response.status_code == 400, response.text
    error = response.json()
    assert error["code"] == 400
    # On a starved machine javac can reach its wall-clock budget before its CPU budget.
    assert (
        f"CPU-time limit of {COMPILE_CPU_S:.1f} s" in error["message"]
        or "wall-clock limit of" in error["message"]
    )
    assert "javac" in error["message"]
    assert took < 20, f"the bomb held the engine host for {took:.1f} s"
    assert _victim_backtest(server, "after-bomb", window) == baseline


def test_exception_that_never_describes_itself_fails_its_own_validation(
    server: LiveServer, baseline: dict[str, Any], window: tuple[str, str]
) -> None:
    """Point 3: the host builds error reports on the guarded thread under a 2 s budget."""
    attacker = _session(server, "liar")
    registered = _register(server, attacker, LIAR)
    assert registered.status_code == 200, registered.text

    started = time.monotonic()
    verdict = _wait_verdict(attacker, registered.json()["strategyId"])
    took = time.monotonic() - started

    assert verdict.validation.value == "failed"
    assert any("getMessage" in n.message for n in verdict.notices), verdict.to_dict()
    assert took < 30, f"the attack held the engine host for {took:.1f} s"
    assert _victim_backtest(server, "after-liar", window) == baseline


def test_info_flood_fails_its_own_run_and_does_not_grow_the_api(
    server: LiveServer, baseline: dict[str, Any], window: tuple[str, str]
) -> None:
    """Point 7: a run carries at most 8 MiB of info-signal data; more fails that run."""
    attacker = _session(server, "flooder")
    registered = _register(server, attacker, FLOOD)
    assert registered.status_code == 200, registered.text
    strategy_id = registered.json()["strategyId"]
    rss_before = _rss_bytes(server)

    verdict = _wait_verdict(attacker, strategy_id)  # the dry run happens in the API process
    run = _execute(attacker, strategy_id, window)

    assert verdict.validation.value == "failed"
    assert any("8 MiB" in n.message for n in verdict.notices), verdict.to_dict()
    assert run["state"]["status"] == "Failed"
    assert "info signals" in str(run), run
    grown = _rss_bytes(server) - rss_before
    assert grown < 100 * 2**20, f"the API process grew by {grown >> 20} MiB"
    assert _victim_backtest(server, "after-flood", window) == baseline


def test_a_global_default_setter_registers_with_a_warning_and_the_victim_is_unchanged(
    server: LiveServer, baseline: dict[str, Any], window: tuple[str, str]
) -> None:
    """Point 5: Locale.setDefault would change how every later strategy formats and parses
    numbers; it is a sandbox finding, so it never runs, and the victim's backtest is as before."""
    attacker = _session(server, "locale-setter")
    response = _register(server, attacker, SETTER)
    assert response.status_code == 200, response.text
    body = response.json()
    assert any("setDefault" in w for w in body["warnings"]), body

    verdict = _wait_verdict(attacker, body["strategyId"])
    run = _execute(attacker, body["strategyId"], window)

    assert verdict.validation.value == "failed"
    assert any("setDefault" in n.message for n in verdict.notices), verdict.to_dict()
    assert run["state"]["status"] == "Failed"
    assert _victim_backtest(server, "after-setter", window) == baseline


def test_an_execute_returns_50_notices_and_counts_the_rest(
    server: LiveServer, window: tuple[str, str]
) -> None:
    """docs/limits.md: a run keeps 200 distinct notices (the rest in one closing line); an
    execute's result carries the first 50 and ``noticesTruncated`` for the others."""
    user = _session(server, "chatty")
    registered = _register(server, user, CHATTY)
    assert registered.status_code == 200, registered.text

    run = _execute(user, registered.json()["strategyId"], window)

    assert run["state"]["status"] == "Completed", run
    notices = run["results"]["notices"]
    assert len(notices) == 50
    assert [n["message"].split(" (repeated")[0] for n in notices] == [
        f"[INFO] line {i}" for i in range(50)
    ]
    assert {n["code"] for n in notices} == {"engine.notice"}
    assert run["results"]["noticesTruncated"] == 201 - 50  # 200 distinct + the closing line


def _engine_hosts_of_workers(server: LiveServer) -> list[int]:
    """Engine host JVMs below the server that are not its own (those belong to Dask workers)."""
    assert server.process is not None
    root = server.process.pid
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if b"com.wualabs.backtestd.host.HostMain" not in cmdline:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent != root and _descends_from(parent, root):
            pids.append(int(entry.name))
    return pids


def _descends_from(pid: int, root: int) -> bool:
    while pid > 1:
        if pid == root:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return False


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_backtest_whose_engine_host_dies_under_it_completes_with_the_same_result(
    server: LiveServer, window: tuple[str, str]
) -> None:
    """Point 1: a run that failed because the host died (here: killed from outside, as a host
    damaged by someone else may die) is not stored as the job's answer. The worker runs it again
    on a fresh engine host and the job completes with the same metrics as an undisturbed run."""
    reference = _session(server, "slow-reference")
    registered = _register(server, reference, SLOW)
    assert registered.status_code == 200, registered.text
    undisturbed = _execute(reference, registered.json()["strategyId"], window)
    assert undisturbed["state"]["status"] == "Completed", undisturbed
    (jvm,) = _engine_hosts_of_workers(server)

    victim = _session(server, "slow-victim")
    registered = _register(server, victim, SLOW)
    assert registered.status_code == 200, registered.text
    start, end = window
    prepared = victim.prepare(
        exchange_id="sim", type_="ticker", instrument="BTC/USDT", from_=start, to=end
    )
    assert wait_prepare(victim, "sim", "ticker", prepared.job_id).status.value == "Completed"
    cpu_before = _cpu_seconds(jvm)
    job = victim.execute(
        exchange_id="sim",
        type_="ticker",
        prepare_job_id=prepared.job_id,
        strategy_id=registered.json()["strategyId"],
    )
    deadline = time.monotonic() + 60
    while _cpu_seconds(jvm) - cpu_before < 0.5:  # the run is under way
        assert time.monotonic() < deadline, "the run never started"
        time.sleep(0.05)
    os.kill(jvm, signal.SIGKILL)
    body = wait_result(victim, "sim", "ticker", job.job_id)

    assert body["state"]["status"] == "Completed", body
    assert _stable(body["results"]) == _stable(undisturbed["results"])
    assert "running it again on a fresh JVM" in server.log_path.read_text(errors="replace")


def _stable(results: dict[str, Any]) -> dict[str, Any]:
    """An execute's results without what differs between two users' identical runs."""
    return {k: v for k, v in results.items() if k not in ("hostName", "iops", "strategyId")}
