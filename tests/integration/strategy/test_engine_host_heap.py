"""A sweep host's heap stays near what it holds: its live heap is mostly the series and column
caches, whose evicted entries are garbage in the old generation until a full collection, and the
JVM's default free ratios (40-70 %) grew the heap to 1.6 times that live set after each one
(engine hosts' peak RSS 370 -> 770 MiB over 1,000 sweep vectors). ``HostConfig.argv`` keeps
10-25 % free instead (docs/benchmarks.md, "Memory stays flat as the vectors grow")."""

from __future__ import annotations

from pathlib import Path

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

pytestmark = requires_java

SERIES_CACHE_MB = 192
BARS = 1_000_000
"""8 MB a series: each new fast SMA length is a series the cache keeps, evicting an older one."""


def test_a_host_churning_its_series_cache_keeps_its_heap_near_the_cache(tmp_path: Path) -> None:
    """64 vectors with 64 distinct fast SMAs of a million bars: 512 MB of series through a 192
    MiB cache, more than twice over. The committed heap stays under 2.5 times the cache (416
    MiB measured; 626-641 MiB with the JVM's default ratios). ``-Xms64m`` makes the start size the
    same on every machine (the JVM's default is a 64th of its RAM)."""
    files = write_columns(tmp_path, DataType.KLINE, bars(BARS))
    config = HostConfig(
        jar=locate_engine_jar(),
        heap_mb=1024,
        series_cache_mb=SERIES_CACHE_MB,
        extra_jvm_args=("-Xms64m",),
    )
    committed = []
    with EngineHost(config) as host:
        compiled = host.compile(source("sma_cross_kline.java"))
        assert compiled.main_class is not None
        request = RunRequest(
            class_files=compiled.class_files,
            main_class=compiled.main_class,
            kind=DataType.KLINE,
            columns=files,
            instrument=Instrument("BTC", "USDT"),
        )
        for chunk in range(4):
            vectors = [{"fast": 2 + chunk * 16 + k, "slow": 300} for k in range(16)]
            outcomes = host.run_many(request, vectors)
            assert all(isinstance(o, RunResult) and o.signal_count > 0 for o in outcomes)
            committed.append(host.ping()["heap_committed"] >> 20)

    assert max(committed) <= 2.5 * SERIES_CACHE_MB, committed
