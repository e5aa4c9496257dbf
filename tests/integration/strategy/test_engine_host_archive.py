"""The class-data archive (``jvm/build.sh`` writes ``backtestd-engine.jsa`` beside the jar): a host
configured to map it (``HostConfig.class_archive``; off by default, docs/engine-host.md) returns
the same signals; an archive that does not match its jar is ignored without disturbing the
host's protocol on stdout (the JVM's warning goes to stderr)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
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

pytestmark = requires_java

VECTORS = [{"fast": 3, "slow": 20}, {"fast": 8, "slow": 30}]


def _signals(config: HostConfig, columns: dict[str, Path]) -> list[tuple[object, ...]]:
    """Compile the SMA crossover on a host of ``config`` and run both vectors on ``columns``."""
    with EngineHost(config) as host:
        compiled = host.compile(source("sma_cross_kline.java"))
        assert compiled.ok, compiled.diagnostics
        assert compiled.main_class is not None
        request = RunRequest(
            class_files=compiled.class_files,
            main_class=compiled.main_class,
            kind=DataType.KLINE,
            columns=columns,
            instrument=Instrument("BTC", "USDT"),
        )
        results = host.run_many(request, VECTORS)
    assert all(isinstance(r, RunResult) for r in results), results
    return [
        (r.signal_ts.tolist(), r.signal_side.tolist(), r.signal_price.view(np.int64).tolist())
        for r in results
        if isinstance(r, RunResult)
    ]


@pytest.fixture(scope="module")
def columns(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_columns(
        tmp_path_factory.mktemp("archive"), DataType.KLINE, bars(30_000, gaps=True)
    )


def test_a_host_maps_the_archive_the_build_writes_and_returns_the_same_signals(
    columns: dict[str, Path], tmp_path: Path
) -> None:
    jar = locate_engine_jar()
    assert jar.with_suffix(".jsa").is_file(), "jvm/build.sh wrote no class-data archive"
    # -Xshare:on: the JVM refuses to start unless it maps the archive
    forced = HostConfig(jar=jar, heap_mb=256, class_archive=True, extra_jvm_args=("-Xshare:on",))
    mapped = _signals(forced, columns)
    alone = tmp_path / "alone" / jar.name  # the same jar with no archive beside it
    alone.parent.mkdir()
    shutil.copy2(jar, alone)
    unmapped = _signals(HostConfig(jar=alone, heap_mb=256), columns)
    assert mapped == unmapped
    assert sum(len(ts) for ts, _, _ in mapped) > 100


def test_an_archive_that_does_not_match_its_jar_is_ignored_and_the_host_serves(
    columns: dict[str, Path], tmp_path: Path
) -> None:
    """A jar copied elsewhere with the archive: the archive names the original jar's path, so
    the JVM refuses to map it and says so. Were that warning on stdout (the JVM's default), it
    would come before the host's hello and break the protocol."""
    jar = locate_engine_jar()
    moved = tmp_path / jar.name
    shutil.copy2(jar, moved)
    shutil.copy2(jar.with_suffix(".jsa"), moved.with_suffix(".jsa"))
    refused = HostConfig(jar=moved, heap_mb=256, class_archive=True, extra_jvm_args=("-Xshare:on",))
    with pytest.raises(Exception, match="shared archive"):  # proof that it does not match
        EngineHost(refused).start()
    served = _signals(HostConfig(jar=moved, heap_mb=256, class_archive=True), columns)
    assert served == _signals(HostConfig(jar=jar, heap_mb=256), columns)


def test_hosts_do_not_map_the_archive_unless_configured_to() -> None:
    """Hosts that mapped it ran the engine 3-15 times slower (docs/engine-host.md)."""
    jar = locate_engine_jar()
    assert not any("SharedArchiveFile" in arg for arg in HostConfig(jar=jar).argv(jar))
    mapped = HostConfig(jar=jar, class_archive=True).argv(jar)
    assert f"-XX:SharedArchiveFile={jar.with_suffix('.jsa')}" in mapped
