"""Engine host run path against a real JVM: signals over mapped columns, failures, supervision."""

from __future__ import annotations

import os
import signal
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from tests.support.services import requires_java

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.strategy.jvm import (
    CompileResult,
    EngineHost,
    EngineHostError,
    EnginePool,
    HostConfig,
    RunFailure,
    RunFailureKind,
    RunRequest,
    locate_engine_jar,
    write_columns,
)

pytestmark = requires_java

MOMENTUM = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.StrategyProperty;

public class Momentum extends AbstractTickerStrategy {
    @StrategyProperty(name = "threshold", description = "relative move", defaultValue = "0.001")
    private double threshold = 0.001;
    private double prev = Double.NaN;
    private boolean holding;

    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        double last = ticker.last();
        if (!Double.isNaN(prev)) {
            double change = (last - prev) / prev;
            if (!holding && change > threshold) {
                emitBuy(ticker.instrument(), ticker.ask());
                holding = true;
            } else if (holding && change < -threshold) {
                emitSell(ticker.instrument(), ticker.bid());
                holding = false;
            }
        }
        prev = last;
    }
}
"""

THROWER = MOMENTUM.replace(
    "        double last = ticker.last();\n",
    "        double last = ticker.last();\n"
    "        if (last < 99) {\n"
    '            throw new IllegalStateException("price too low: " + last);\n'
    "        }\n",
)

INFORMER = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;

public class Informer extends AbstractTickerStrategy {
    private int seen;

    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        seen++;
        if (seen % 1000 == 0) {
            emitSignal(createInfoStrategySignal(ticker.instrument())
                    .set("seen", seen).set("tag", "k" + seen).set("last", ticker.last()));
            log.info("checkpoint {}", seen);
        }
    }
}
"""

MIXED = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;

public class Mixed extends AbstractTickerStrategy {
    private int seen;

    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Ticker ticker) {
        super.update(ticker);
        seen++;
        if (seen % 1000 == 0) {
            emitSignal(createInfoStrategySignal(ticker.instrument()).set("seen", seen));
        } else if (seen % 250 == 0) {
            emitBuy(ticker.instrument(), ticker.last());
        }
    }
}
"""

BARS = """\
package demo;

import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;

public class Bars extends AbstractKlineStrategy {
    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(Kline bar) {
        super.update(bar);
        if (bar.getClose() > bar.getOpen() * 1.01) {
            emitBuy(bar.getInstrument(), bar.getHigh());
        } else if (bar.getClose() < bar.getOpen() * 0.99) {
            emitSell(bar.getInstrument(), bar.getLow());
        }
    }
}
"""

FUNDING = """\
package demo;

import com.wualabs.qtsurfer.engine.core.FundingRate;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractFundingRateStrategy;

public class Funding extends AbstractFundingRateStrategy {
    @Override
    public boolean acceptInstrument(Instrument instrument) {
        return true;
    }

    @Override
    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {
    }

    @Override
    public void update(FundingRate funding) {
        super.update(funding);
        if (funding.rate() > 0.0005) {
            emitSell(funding.instrument(), funding.markPrice());
        }
    }
}
"""

Columns = dict[str, npt.NDArray[np.float64] | npt.NDArray[np.int64]]


def _jar() -> Path:
    return locate_engine_jar()


def _line_of(source: str, needle: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if needle in line)


def _ticks(n: int, seed: int = 7) -> Columns:
    rng = np.random.default_rng(seed)
    last = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.002, n)))
    return {
        "ts": 1_700_000_000_000 + np.arange(n, dtype=np.int64) * 1000,
        "bid": last - 0.01,
        "bidSize": rng.uniform(0.1, 2.0, n),
        "ask": last + 0.01,
        "askSize": rng.uniform(0.1, 2.0, n),
        "last": last,
        "volume": rng.uniform(0.0, 5.0, n),
    }


def _expected(cols: Columns, threshold: float) -> tuple[list[int], list[int], list[float]]:
    """The Momentum rule recomputed in Python."""
    ts, sides, prices = [], [], []
    holding = False
    last = cols["last"]
    for i in range(1, last.shape[0]):
        change = (last[i] - last[i - 1]) / last[i - 1]
        if not holding and change > threshold:
            ts.append(int(cols["ts"][i]))
            sides.append(1)
            prices.append(float(cols["ask"][i]))
            holding = True
        elif holding and change < -threshold:
            ts.append(int(cols["ts"][i]))
            sides.append(-1)
            prices.append(float(cols["bid"][i]))
            holding = False
    return ts, sides, prices


@pytest.fixture(scope="module")
def host() -> Iterator[EngineHost]:
    with EngineHost(HostConfig(jar=_jar(), heap_mb=256)) as engine:
        yield engine


@pytest.fixture(scope="module")
def momentum(host: EngineHost) -> CompileResult:
    result = host.compile(MOMENTUM)
    assert result.ok, [d.render() for d in result.diagnostics]
    return result


@pytest.fixture(scope="module")
def ticks() -> Columns:
    return _ticks(5_000)


@pytest.fixture(scope="module")
def column_files(tmp_path_factory: pytest.TempPathFactory, ticks: Columns) -> dict[str, Path]:
    return write_columns(tmp_path_factory.mktemp("ticks"), DataType.TICKER, ticks)


def _request(
    compiled: CompileResult, files: dict[str, Path], kind: DataType = DataType.TICKER, **kw: object
) -> RunRequest:
    assert compiled.main_class is not None
    return RunRequest(
        class_files=compiled.class_files,
        main_class=compiled.main_class,
        kind=kind,
        columns=files,
        instrument=Instrument("BTC", "USDT"),
        **kw,
    )


def test_run_signals_match_python_recomputation(
    host: EngineHost, momentum: CompileResult, column_files: dict[str, Path], ticks: Columns
) -> None:
    result = host.run(_request(momentum, column_files, params={"threshold": 0.002}))

    ts, sides, prices = _expected(ticks, 0.002)
    assert len(ts) > 20
    assert result.events == 5_000
    assert result.signal_ts.tolist() == ts
    assert result.signal_side.tolist() == sides
    np.testing.assert_array_equal(result.signal_price, np.array(prices))
    assert result.signal_ts.dtype == np.int64
    assert result.signal_side.dtype == np.int8
    assert result.execution_mode == "LONG"
    assert result.elapsed_ns > 0


def test_run_default_property_applies_without_params(
    host: EngineHost, momentum: CompileResult, column_files: dict[str, Path], ticks: Columns
) -> None:
    result = host.run(_request(momentum, column_files))

    assert result.signal_ts.tolist() == _expected(ticks, 0.001)[0]


def test_run_info_signals_carry_their_data_and_log_lines_become_notices(
    host: EngineHost, column_files: dict[str, Path], ticks: Columns
) -> None:
    compiled = host.compile(INFORMER)
    assert compiled.ok, [d.render() for d in compiled.diagnostics]

    result = host.run(_request(compiled, column_files))

    assert result.signal_count == 5
    assert result.signal_side.tolist() == [0] * 5
    assert result.signal_ts.tolist() == [int(ticks["ts"][i]) for i in range(999, 5000, 1000)]
    assert [d["seen"] for d in result.info] == [1000, 2000, 3000, 4000, 5000]
    assert result.info[0]["tag"] == "k1000"
    assert result.info[0]["last"] == pytest.approx(float(ticks["last"][999]))
    assert any("checkpoint 1000" in n for n in result.notices)


def test_run_info_of_plain_signals_is_empty_between_info_signals(
    host: EngineHost, column_files: dict[str, Path]
) -> None:
    compiled = host.compile(MIXED)
    assert compiled.ok, [d.render() for d in compiled.diagnostics]

    result = host.run(_request(compiled, column_files))

    sides = result.signal_side.tolist()
    assert len(result.info) == result.signal_count == 20
    assert sides == [1, 1, 1, 0] * 5
    expected: list[dict[str, int]] = []
    for k in range(1, 6):
        expected += [{}, {}, {}, {"seen": 1000 * k}]
    assert list(result.info) == expected


def test_run_kline_bars_use_close_time_as_event_time(host: EngineHost, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 2_000
    opens = rng.uniform(90.0, 110.0, n)
    closes = opens * rng.uniform(0.97, 1.03, n)
    bars = {
        "ts": np.arange(n, dtype=np.int64) * 60_000,
        "closeTs": np.arange(n, dtype=np.int64) * 60_000 + 59_999,
        "open": opens,
        "high": np.maximum(opens, closes) + 1.0,
        "low": np.minimum(opens, closes) - 1.0,
        "close": closes,
        "volume": np.ones(n),
    }
    files = write_columns(tmp_path, DataType.KLINE, bars)
    compiled = host.compile(BARS)
    assert compiled.ok, [d.render() for d in compiled.diagnostics]
    assert compiled.required_sources == ("KLine",)

    result = host.run(_request(compiled, files, kind=DataType.KLINE))

    up = closes > opens * 1.01
    down = ~up & (closes < opens * 0.99)
    chosen = up | down
    assert result.events == n
    assert result.signal_ts.tolist() == bars["closeTs"][chosen].tolist()
    assert result.signal_side.tolist() == np.where(up, 1, -1)[chosen].tolist()
    np.testing.assert_array_equal(
        result.signal_price, np.where(up, bars["high"], bars["low"])[chosen]
    )


def test_run_funding_rates(host: EngineHost, tmp_path: Path) -> None:
    n = 500
    rates = np.linspace(-0.001, 0.001, n)
    marks = np.linspace(100.0, 200.0, n)
    ts = np.arange(n, dtype=np.int64) * 28_800_000
    files = write_columns(tmp_path, DataType.FUNDING, {"ts": ts, "rate": rates, "markPrice": marks})
    compiled = host.compile(FUNDING)
    assert compiled.ok, [d.render() for d in compiled.diagnostics]

    result = host.run(_request(compiled, files, kind=DataType.FUNDING))

    assert result.signal_ts.tolist() == ts[rates > 0.0005].tolist()
    np.testing.assert_array_equal(result.signal_price, marks[rates > 0.0005])


def test_run_row_range_feeds_only_those_rows(
    host: EngineHost, momentum: CompileResult, column_files: dict[str, Path], ticks: Columns
) -> None:
    result = host.run(_request(momentum, column_files, rows=(1000, 2000)))

    window = {name: values[1000:2000] for name, values in ticks.items()}
    assert result.events == 1000
    assert result.signal_ts.tolist() == _expected(window, 0.001)[0]


def test_run_unknown_property_is_property_error_listing_declared_names(
    host: EngineHost, momentum: CompileResult, column_files: dict[str, Path]
) -> None:
    with pytest.raises(RunFailure) as caught:
        host.run(_request(momentum, column_files, params={"treshold": 1}))

    assert caught.value.kind is RunFailureKind.PROPERTY_ERROR
    assert caught.value.declared_properties == ("threshold",)


def test_run_user_exception_reports_class_message_and_user_line(
    host: EngineHost, column_files: dict[str, Path], ticks: Columns
) -> None:
    compiled = host.compile(THROWER)
    assert compiled.ok
    pid = host.pid

    with pytest.raises(RunFailure) as caught:
        host.run(_request(compiled, column_files))

    failure = caught.value
    assert failure.kind is RunFailureKind.USER_EXCEPTION
    assert failure.exception_class == "java.lang.IllegalStateException"
    assert "price too low" in failure.message
    assert failure.frames
    assert failure.frames[0].class_name == "demo.Momentum"
    assert failure.frames[0].method == "update"
    assert failure.frames[0].line == _line_of(THROWER, "throw new")
    assert failure.frames[0].file == "Momentum.java"
    assert failure.details["events"] == int(np.argmax(ticks["last"] < 99))
    assert host.pid == pid  # a user exception does not cost the host


def test_run_missing_column_file_is_bad_request(
    host: EngineHost, momentum: CompileResult, column_files: dict[str, Path], tmp_path: Path
) -> None:
    files = {**column_files, "last": tmp_path / "absent.bin"}

    with pytest.raises(RunFailure) as caught:
        host.run(_request(momentum, files))

    assert caught.value.kind is RunFailureKind.BAD_REQUEST
    assert "last" in caught.value.message


def test_run_columns_of_different_lengths_are_refused(
    host: EngineHost, momentum: CompileResult, ticks: Columns, tmp_path: Path
) -> None:
    files = write_columns(tmp_path, DataType.TICKER, ticks)
    np.asarray(ticks["bid"][:10]).astype("<f8").tofile(files["bid"])

    with pytest.raises(RunFailure) as caught:
        host.run(_request(momentum, files))

    assert caught.value.kind is RunFailureKind.BAD_REQUEST


def test_ping_reports_heap_and_counters(
    momentum: CompileResult, column_files: dict[str, Path]
) -> None:
    with EngineHost(HostConfig(jar=_jar(), heap_mb=128)) as engine:
        before = engine.ping()
        engine.run(_request(momentum, column_files))
        engine.compile(MOMENTUM)
        after = engine.ping()

    assert before["runs"] == 0
    assert before["compiles"] == 0
    assert after["runs"] == 1
    assert after["compiles"] == 1
    assert 0 < after["heap_used"] <= after["heap_committed"] <= after["heap_max"]
    assert after["heap_max"] <= 128 * 2**20  # -Xmx128m


# -- supervision -------------------------------------------------------------------------------


def test_host_killed_between_requests_is_restarted_transparently(
    momentum: CompileResult, column_files: dict[str, Path]
) -> None:
    with EngineHost(HostConfig(jar=_jar(), heap_mb=128)) as engine:
        first = engine.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        time.sleep(0.2)

        result = engine.run(_request(momentum, column_files))

        assert result.events == 5_000
        assert engine.pid not in (None, first)


def test_host_crash_fails_only_the_request_in_flight(
    column_files: dict[str, Path],
) -> None:
    spin = MOMENTUM.replace(
        "        super.update(ticker);\n",
        "        super.update(ticker);\n        while (ticker.last() > 0) { prev += 1e-9; }\n",
    )
    with EngineHost(HostConfig(jar=_jar(), heap_mb=128)) as engine:
        compiled = engine.compile(spin)
        assert compiled.ok
        pid = engine.pid
        assert pid is not None
        killed: list[int] = []

        def kill_twice() -> None:
            """The crash is repeated once on a fresh JVM (it may not be the run's fault): kill
            that one as well, so the crash reaches the caller."""
            while len(killed) < 2:
                time.sleep(0.5)
                current = engine.pid
                if current is not None and current not in killed:
                    os.kill(current, signal.SIGKILL)
                    killed.append(current)

        killer = threading.Thread(target=kill_twice)
        killer.start()
        with pytest.raises(RunFailure) as caught:
            engine.run(_request(compiled, column_files, cpu_limit_s=20))
        killer.join()

        assert caught.value.kind is RunFailureKind.HOST_CRASHED
        assert "-9" in caught.value.message
        assert killed[0] == pid
        assert engine.retries == 1
        assert engine.compile(MOMENTUM).ok
        assert engine.pid not in killed


def test_host_exits_on_stdin_eof_with_code_zero() -> None:
    engine = EngineHost(HostConfig(jar=_jar(), heap_mb=64))
    engine.start()
    process = engine._process
    assert process is not None
    assert process.proc.stdin is not None

    process.proc.stdin.close()

    assert process.wait_exit(5.0) == 0
    engine.close()


def test_host_is_recycled_after_max_requests(
    momentum: CompileResult, column_files: dict[str, Path]
) -> None:
    with EngineHost(HostConfig(jar=_jar(), heap_mb=128, max_requests=2)) as engine:
        first = engine.pid
        engine.run(_request(momentum, column_files))
        assert engine.pid == first
        engine.run(_request(momentum, column_files))
        assert engine.pid is None  # stopped after its second request

        engine.run(_request(momentum, column_files))

        assert engine.pid not in (None, first)
        assert engine.starts == 2


def test_a_batch_of_vectors_is_one_request_towards_recycling(
    momentum: CompileResult, column_files: dict[str, Path]
) -> None:
    """Recycling bounds what a JVM accumulates over requests; a sweep's batch of 8 vectors
    shares its columns and loader, so counting its vectors would restart a host (and its JIT,
    series and column caches) every 125 batches, mid-sweep."""
    vectors = [{"threshold": 0.001 * (k + 1)} for k in range(8)]
    with EngineHost(HostConfig(jar=_jar(), heap_mb=128, max_requests=2)) as engine:
        first = engine.pid
        outcomes = engine.run_many(_request(momentum, column_files), vectors)
        assert [type(o).__name__ for o in outcomes] == ["RunResult"] * 8
        assert engine.pid == first  # eight vectors, one request: still serving
        engine.run_many(_request(momentum, column_files), vectors)
        assert engine.pid is None  # stopped after its second request
        engine.run(_request(momentum, column_files))
        assert engine.starts == 2


def test_host_is_recycled_above_memory_ceiling(
    momentum: CompileResult, column_files: dict[str, Path]
) -> None:
    with EngineHost(HostConfig(jar=_jar(), heap_mb=128, memory_ceiling_mb=1)) as engine:
        first = engine.run(_request(momentum, column_files))
        assert engine.pid is None  # over the ceiling: stopped after answering

        second = engine.run(_request(momentum, column_files))

        assert engine.starts == 2  # the next request started a fresh JVM
        np.testing.assert_array_equal(second.signal_ts, first.signal_ts)


def _fake_java(tmp_path: Path, body: str) -> str:
    script = tmp_path / "fake-java"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_host_that_dies_at_start_reports_exit_code_and_stderr(tmp_path: Path) -> None:
    java = _fake_java(tmp_path, "echo 'Error: no such class' >&2\nexit 3\n")

    with pytest.raises(EngineHostError, match=r"code 3[\s\S]*no such class"):
        EngineHost(HostConfig(jar=_jar(), java=java, start_timeout_s=5)).start()


def test_host_with_other_protocol_version_is_refused(tmp_path: Path) -> None:
    hello = '{"type":"hello","protocol":99}'
    java = _fake_java(
        tmp_path, f"printf '\\000\\000\\000\\0{len(hello):o}{hello}'\ncat >/dev/null\n"
    )

    with pytest.raises(EngineHostError, match="protocol 99"):
        EngineHost(HostConfig(jar=_jar(), java=java, start_timeout_s=5)).start()


def test_pool_serves_concurrent_runs_on_separate_hosts(
    momentum: CompileResult, column_files: dict[str, Path], ticks: Columns
) -> None:
    expected = _expected(ticks, 0.001)[0]
    results: list[list[int]] = []
    with EnginePool(2, HostConfig(jar=_jar(), heap_mb=128)) as pool:
        pool.start()

        def work() -> None:
            results.append(pool.run(_request(momentum, column_files)).signal_ts.tolist())

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        pids = {h.pid for h in pool.hosts}
    assert results == [expected] * 4
    assert len(pids) == 2


def test_pool_checkout_times_out_when_all_hosts_are_busy() -> None:
    with EnginePool(1, HostConfig(jar=_jar(), heap_mb=64)) as pool:
        with pool.checkout(), pytest.raises(EngineHostError, match="no engine host"):
            with pool.checkout(timeout=0.1):
                pass


def test_a_run_asked_to_stop_is_killed_at_once_and_the_next_run_is_unharmed(
    momentum: CompileResult, column_files: dict[str, Path], ticks: Columns
) -> None:
    spin = MOMENTUM.replace(
        "        super.update(ticker);\n",
        "        super.update(ticker);\n        while (ticker.last() > 0) { prev += 1e-9; }\n",
    )
    with EngineHost(HostConfig(jar=_jar(), heap_mb=128)) as engine:
        compiled = engine.compile(spin)
        assert compiled.ok
        pid = engine.pid
        asked_at = time.monotonic() + 0.5
        started = time.monotonic()
        with pytest.raises(RunFailure) as caught:
            engine.run(
                _request(compiled, column_files, cpu_limit_s=30),
                should_stop=lambda: time.monotonic() >= asked_at,
            )
        assert caught.value.kind is RunFailureKind.CANCELLED
        assert time.monotonic() - started < 10  # far below the 30 s CPU limit
        assert pid is not None
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # the JVM of the cancelled run is gone
        fresh = engine.compile(MOMENTUM)
        result = engine.run(_request(fresh, column_files, params={"threshold": 0.002}))
        ts, _, _ = _expected(ticks, 0.002)
        assert result.signal_ts.tolist() == ts
        assert engine.pid != pid
