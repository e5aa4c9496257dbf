"""The engine hosts' JIT settings (``strategy/jvm/jit_flags.py``): the methods they name exist,
and a host running a sweep's batch compiles its row loop with the window listener inlined.

The JVM ignores a ``CompileCommand`` whose method does not exist, so a renamed engine method
would silently bring back the out-of-line listener call (a slower sweep, nothing failing): the
first test reads the built jar. The second reads the JIT's own log of a real host.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.support.market_columns import bars
from tests.support.services import requires_java
from tests.support.strategies import source

from backtestd.domain.marketdata import DataType, Instrument
from backtestd.strategy.jvm import (
    EngineHost,
    HostConfig,
    RunRequest,
    RunResult,
    locate_engine_jar,
    write_columns,
)
from backtestd.strategy.jvm.jit_flags import INLINED_METHODS, JIT_FLAGS

pytestmark = requires_java

_JAVAP = "javap"


@pytest.mark.parametrize(("cls", "method"), INLINED_METHODS, ids=lambda v: v.split(".")[-1])
def test_every_method_the_hosts_inline_exists_in_the_engine(cls: str, method: str) -> None:
    listing = subprocess.run(
        [_JAVAP, "-p", "-cp", str(locate_engine_jar()), cls],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert re.search(rf"\s{re.escape(method)}\(", listing), listing


def test_every_host_starts_with_the_flags() -> None:
    argv = HostConfig().argv(Path("engine.jar"))
    assert all(flag in argv for flag in JIT_FLAGS)
    assert argv.index(JIT_FLAGS[-1]) < argv.index("-cp")


@dataclass(frozen=True)
class _Call:
    """One call site in a C2 compilation's inline tree, and whether it was inlined."""

    callee: str
    inlined: bool
    reason: str


def _row_loop_calls(log: str) -> list[list[_Call]]:
    """The call sites of each standard (not on-stack-replacement) C2 compilation of
    ``LazyRows.run`` in a ``-XX:+LogCompilation`` log, in the order they were compiled."""
    compiles = []
    for task in re.finditer(r"<task [^>]*>", log):
        head = task.group(0)
        if "LazyRows run" not in head or "level=" in head or "osr" in head:
            continue  # C1 tiers carry a level attribute; C2 (tier 4) none
        body = log[task.end() : log.index("</task>", task.end())]
        holders = dict(re.findall(r"<klass id='(\d+)' name='([^']*)'", body))
        methods = {
            m.group(1): holders.get(m.group(2), "?").rsplit(".", 1)[-1] + "." + m.group(3)
            for m in re.finditer(r"<method id='(\d+)' holder='(\d+)' name='([^']*)'", body)
        }
        calls: list[_Call] = []
        for event in re.finditer(
            r"<call method='(\d+)'[^>]*/>\s*<(inline_success|inline_fail) reason='([^']*)'", body
        ):
            callee = methods.get(event.group(1), "?")
            calls.append(_Call(callee, event.group(2) == "inline_success", event.group(3)))
        compiles.append(calls)
    return compiles


def test_a_sweep_batch_runs_a_row_loop_with_the_listener_inlined(tmp_path: Path) -> None:
    log = tmp_path / "jit.log"
    config = HostConfig(
        jar=locate_engine_jar(),
        heap_mb=256,
        extra_jvm_args=(
            "-XX:+UnlockDiagnosticVMOptions",
            "-XX:+LogCompilation",
            f"-XX:LogFile={log}",
        ),
    )
    files = write_columns(tmp_path / "bars", DataType.KLINE, bars(400_000, gaps=True))
    # Compiled elsewhere, as the API's host compiles in the service: javac's methods would
    # otherwise fill the JIT's queue while the batch runs.
    with EngineHost(HostConfig(jar=locate_engine_jar(), heap_mb=256)) as compiler:
        compiled = compiler.compile(source("sma_cross_kline.java"))
    assert compiled.ok
    assert compiled.main_class is not None
    with EngineHost(config) as host:
        request = RunRequest(
            class_files=compiled.class_files,
            main_class=compiled.main_class,
            kind=DataType.KLINE,
            columns=files,
            instrument=Instrument("BTC", "USDT"),
        )
        vectors = [{"fast": f, "slow": s} for f in (5, 10, 15, 20) for s in (40, 80, 120, 160)]
        outcomes = host.run_many(request, vectors)
    assert all(isinstance(o, RunResult) and o.signal_ts.size for o in outcomes), outcomes

    compiles = _row_loop_calls(log.read_text(errors="replace"))
    assert compiles, "the row loop was never compiled by C2"
    last = compiles[-1]  # what the later vectors ran
    engine_links = ["LazyRows.fire", "WindowSet.fire", "AbstractWindowListener.dispatchWindowClose"]
    for link in [*engine_links, "SmaCrossKline$Cross.onChange"]:
        sites = [c for c in last if c.callee == link]
        assert sites, f"{link} is not called in the compiled row loop: {last}"
        assert all(c.inlined for c in sites), f"{link} is out of line: {sites}"
    forced = {c.callee for c in last if c.reason == "force inline by CompileCommand"}
    assert set(engine_links) <= forced
