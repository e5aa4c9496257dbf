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


def _rss_mib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return int(next(line.split()[1] for line in status if line.startswith("VmRSS"))) >> 10


def test_a_host_with_a_committed_heap_has_touched_it_before_its_first_request() -> None:
    """``committed_heap_mb`` (a worker's host: ``BACKTESTD_ENGINE_COMMITTED_HEAP_MB``): the heap
    is committed and every page of it resident when the host has said hello, so the first
    sweeps do not fault it in (docs/engine-host.md, "A heap touched at start"); a host without
    it commits as it grows. The committed size is capped by the heap."""
    jar = locate_engine_jar()
    with EngineHost(HostConfig(jar=jar, heap_mb=512, committed_heap_mb=256)) as touched:
        touched.start()
        assert touched.pid is not None
        # the JVM's committed figure leaves out one survivor space
        assert touched.ping()["heap_committed"] >> 20 >= 0.9 * 256
        assert _rss_mib(touched.pid) >= 256
    with EngineHost(HostConfig(jar=jar, heap_mb=512, extra_jvm_args=("-Xms64m",))) as grown:
        grown.start()
        assert grown.pid is not None
        assert grown.ping()["heap_committed"] >> 20 < 128
        assert _rss_mib(grown.pid) < 200
    with EngineHost(HostConfig(jar=jar, heap_mb=128, committed_heap_mb=512)) as capped:
        capped.start()
        assert capped.ping()["heap_committed"] >> 20 <= 128
