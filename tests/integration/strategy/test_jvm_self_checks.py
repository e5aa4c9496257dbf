"""The Java engine's own checks (jvm/check.sh), run as part of the Python suite.

They verify every indicator against an independent computation, window firing, property
injection, the example strategies compiling, and removed API names failing to compile.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.services import requires_javac

ROOT = Path(__file__).resolve().parents[3]


@requires_javac
def test_engine_self_checks_pass() -> None:
    result = subprocess.run(
        ["bash", str(ROOT / "jvm" / "check.sh")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
