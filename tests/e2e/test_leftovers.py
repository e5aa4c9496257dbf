"""Black-box: the service removes, as it starts, the files a crash left behind."""

from __future__ import annotations

import time
from pathlib import Path

from tests.support.server import LiveServer


def test_staged_writes_and_spooled_uploads_left_by_a_crash_are_removed_at_start(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    kept = data / "objects" / "prepared" / "p1" / "close.bin"
    staged = kept.with_name(".staging-4242-deadbeef")
    spooled = data / "tmp" / "upload-abc123"
    other = data / "tmp" / "ingest-work" / "part.csv"  # another job's work: not an upload spool
    for path, body in ((kept, b"k" * 32), (staged, b"half"), (spooled, b"body"), (other, b"x")):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)
    server = LiveServer(data, extra_env={"BACKTESTD_STAGING_MAX_AGE_SECONDS": "0"})
    server.start()
    try:
        deadline = time.monotonic() + 30
        while (staged.exists() or spooled.exists()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not staged.exists()
        assert not spooled.exists()
        assert kept.read_bytes() == b"k" * 32
        assert other.read_bytes() == b"x"
    finally:
        server.stop()
