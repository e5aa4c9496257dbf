"""Runs the plain-Java sandbox checks in ``jvm/test/host`` (loader without verifier, policy)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.support.services import requires_javac

from backtestd.strategy.jvm import locate_engine_jar

pytestmark = requires_javac

CHECKS = Path(__file__).resolve().parents[3] / "jvm" / "test" / "host"


def _jar() -> Path:
    return locate_engine_jar()


def test_java_host_checks_pass(tmp_path: Path) -> None:
    jar = _jar()
    sources = [str(p) for p in sorted(CHECKS.glob("*.java"))]
    compiled = subprocess.run(
        ["javac", "-cp", str(jar), "-d", str(tmp_path), *sources],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr

    ran = subprocess.run(
        ["java", "-cp", f"{jar}{os.pathsep}{tmp_path}", "com.wualabs.backtestd.host.HostChecks"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ", 0 failed" in ran.stdout
