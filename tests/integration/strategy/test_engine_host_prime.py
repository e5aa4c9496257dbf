"""A fresh engine host primes its request path before it serves (``Prime.java``): it says so, it
leaves nothing a user run can see (the same signals as a host started without priming, no files),
and a user's class named like a priming strategy runs its own code."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.integration.strategy.test_engine_host_warm_up import (
    _klines,
    _request,
    _runs,
    _same,
    compiled,
    kline_files,
    tick_files,
)
from tests.support.services import requires_java

from backtestd.domain.marketdata import DataType
from backtestd.strategy.jvm import (
    CompileResult,
    EngineHost,
    HostConfig,
    RunResult,
    locate_engine_jar,
    write_columns,
)

pytestmark = requires_java

__all__ = ["compiled", "kline_files", "tick_files"]  # the fixtures this module shares

# A user strategy with a priming strategy's class name and other code: a buy at 42 on every close.
IMPOSTOR = """
import com.wualabs.qtsurfer.engine.core.state.StateStore;
import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;

public class PrimeKlines extends AbstractKlineStrategy {
    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
        indicators.addPrice().window("price", WindowTime.s1, new Cross(this, indicators));
    }

    class Cross extends AbstractWindowListener {
        Cross(AbstractKlineStrategy strategy, InstrumentGroupRTIndicator indicators) {
            super(strategy, indicators);
        }

        @Override
        public void onChange(StateStore store, double prev, double actual) {
            emitBuy(42.0);
        }
    }
}
"""


def _config(prime: bool, tmp: Path | None = None) -> HostConfig:
    extra = (f"-Djava.io.tmpdir={tmp}",) if tmp is not None else ()
    return HostConfig(jar=locate_engine_jar(), heap_mb=256, prime=prime, extra_jvm_args=extra)


def test_a_primed_host_says_so_and_its_runs_match_an_unprimed_host(
    compiled: dict[str, CompileResult],
    kline_files: dict[str, Path],
    tick_files: dict[str, Path],
    tmp_path: Path,
) -> None:
    with EngineHost(_config(prime=False)) as plain:
        plain.start()
        unprimed = plain.ping()["prime_ms"]
        expected = _runs(plain, compiled, kline_files, tick_files)
    with EngineHost(_config(prime=True, tmp=tmp_path)) as primed:
        primed.start()
        status = primed.ping()
        got = _runs(primed, compiled, kline_files, tick_files)

    assert unprimed == -1
    assert status["prime_ms"] >= 0
    assert status["runs"] == 0  # priming is not a run of anyone's
    assert sum(r.signal_count for r in expected[:4]) > 100  # the crossover really trades
    assert all(_same(g, e) for g, e in zip(got, expected, strict=True))
    assert list(tmp_path.iterdir()) == []  # its made-up columns are gone


def test_a_user_class_named_like_a_priming_strategy_runs_its_own_code(tmp_path: Path) -> None:
    files = write_columns(tmp_path, DataType.KLINE, _klines(500))
    with EngineHost(_config(prime=True)) as host:
        result = host.compile(IMPOSTOR)
        assert result.ok, [d.render() for d in result.diagnostics]
        assert result.main_class == "PrimeKlines"
        run = host.run(_request(result, files, DataType.KLINE))

    assert isinstance(run, RunResult)
    assert run.signal_count == 500  # one a bar: each closes its one-second window
    assert np.all(run.signal_price == 42.0)
    assert np.all(run.signal_side == 1)


@pytest.mark.parametrize("prime", [True, False])
def test_the_host_command_line_primes_unless_told_not_to(prime: bool) -> None:
    argv = HostConfig(prime=prime).argv(Path("engine.jar"))
    assert ("--no-prime" in argv) is not prime
