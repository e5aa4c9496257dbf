"""``backtestd bench mixed``: the mixed-load command a user runs against their own server."""

from __future__ import annotations

import re
import subprocess

from tests.support.server import BIN, LiveServer


def test_bench_mixed_reports_every_route_and_no_server_errors(live_server: LiveServer) -> None:
    key = live_server.create_key("bench-user", tier="pro")
    assert live_server.process is not None

    out = subprocess.run(
        [str(BIN), "bench", "mixed", live_server.base_url, "--api-key", key]
        + ["--clients", "4", "--seconds", "2", "--pid", str(live_server.process.pid)],
        capture_output=True,
        text=True,
        env=live_server.env,
        timeout=300,
        check=False,
    )

    assert out.returncode == 0, out.stderr[-2000:]
    for route in ("token", "exchanges", "download", "strategies", "poll", "account"):
        assert re.search(rf"^{route}\s+\d+", out.stdout, re.MULTILINE), out.stdout
    assert "5xx answers: 0" in out.stdout
    requests = int(re.search(r"^all\s+(\d+)", out.stdout, re.MULTILINE).group(1))  # type: ignore[union-attr]
    assert requests > 0
    assert re.search(r"server peak RSS \(with its children\): [\d,]+ MiB", out.stdout)
