"""Find the engine jar, building it with ``jvm/build.sh`` when it is missing or stale.

The jar holds the strategy API, its runtime and the engine host; ``build.sh`` compiles every
``.java`` under ``jvm/src`` with plain ``javac``. Several worker processes may start at once, so
the build runs under a file lock and re-checks staleness after taking it.
"""

from __future__ import annotations

import fcntl
import logging
import subprocess
import threading
from pathlib import Path

from backtestd.strategy.jvm.results import EngineHostError

log = logging.getLogger(__name__)

JAR_NAME = "backtestd-engine.jar"
BUILD_TIMEOUT_S = 600.0
_BUILD_LOCK = threading.Lock()


def default_jvm_dir() -> Path:
    """``jvm/`` of the source tree this package was loaded from."""
    return Path(__file__).resolve().parents[4] / "jvm"


def engine_jar_path(jvm_dir: Path | None = None) -> Path:
    """Where ``build.sh`` puts the jar (it may not exist yet)."""
    return (jvm_dir or default_jvm_dir()) / "build" / JAR_NAME


def is_stale(jvm_dir: Path | None = None) -> bool:
    """True when the jar is missing or older than a Java source or the build script."""
    root = jvm_dir or default_jvm_dir()
    jar = engine_jar_path(root)
    if not jar.exists():
        return True
    built = jar.stat().st_mtime
    inputs = [root / "build.sh", *(root / "src").rglob("*.java")]
    return any(p.exists() and p.stat().st_mtime > built for p in inputs)


def locate_engine_jar(jvm_dir: Path | None = None, *, build: bool = True) -> Path:
    """Return the engine jar, (re)building it first when ``build`` and it is stale."""
    root = jvm_dir or default_jvm_dir()
    jar = engine_jar_path(root)
    if build and is_stale(root):
        _build(root)
    if not jar.exists():
        raise EngineHostError(
            f"engine jar {jar} does not exist; build it with `bash {root / 'build.sh'}`"
        )
    return jar


def _build(root: Path) -> None:
    script = root / "build.sh"
    if not script.exists():
        raise EngineHostError(f"cannot build the engine: {script} is missing")
    lock_path = root / "build" / ".build.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with _BUILD_LOCK, lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not is_stale(root):
                return  # another process built it while we waited
            log.info("building the engine jar with %s", script)
            try:
                done = subprocess.run(
                    ["bash", str(script)],
                    cwd=root.parent,
                    capture_output=True,
                    text=True,
                    timeout=BUILD_TIMEOUT_S,
                    check=False,
                )
            except subprocess.TimeoutExpired as exc:
                raise EngineHostError(
                    f"building the engine jar took longer than {BUILD_TIMEOUT_S:.0f} s"
                ) from exc
            if done.returncode != 0:
                tail = "\n".join((done.stderr or done.stdout).splitlines()[-30:])
                raise EngineHostError(
                    f"building the engine jar failed (exit {done.returncode}):\n{tail}"
                )
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
