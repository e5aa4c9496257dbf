"""Dataset ingest benchmark: ``ingest_upload`` vs ``pandas.read_csv`` + ``DataFrame.to_parquet``.

One run generates a 1-second OHLCV CSV (``timestamp`` in epoch milliseconds, then ``open``,
``high``, ``low``, ``close``, ``volume``; 10 million rows by default, about 600 MB) in a temporary
directory, then times each contender in a fresh child process on that same file:

* **backtestd.** ``ingest_upload(csv, work_dir, max_bytes)``: format detection, the CSV
  parsed block by block on a thread pool (the compiled number parser, arrow for any block it
  does not take), every row checked (order, units, finite values), cadence and gaps, and the
  lastra version file written.
* **pandas (baseline).** ``pandas.read_csv(csv)`` then ``DataFrame.to_parquet(out)`` (pyarrow
  engine, default options), with no checks at all.

Each child times only its own work (not the interpreter start or its imports, nor, for
backtestd, the first load of the compiled CSV parser, which a service worker does when it
joins: ``--cold`` times that load too), with the CPU
time it used in that span (user + system, all threads: a figure that a loaded machine disturbs
less than the wall time, which is what the target is about), and reports its
peak resident set from ``VmHWM`` in ``/proc/self/status``: that counter belongs to the child's
own address space, so it includes neither the parent's memory nor the other contender's (which
``ru_maxrss`` of a ``vfork``-ed child, or ``RUSAGE_CHILDREN``, would). The page cache is warm for
both: the file has just been written.

The baseline needs pandas, which comes with the ``bench`` dependency group
(``uv sync --group bench --group dev``); without it the baseline is skipped with a message.
To leave ``.venv`` as it is, point ``--baseline-python`` at another interpreter that has pandas
and pyarrow (``uv venv /tmp/pandas-venv && uv pip install --python /tmp/pandas-venv/bin/python
pandas==3.1.1 pyarrow==22.0.0 numpy==2.4.6``, the versions ``uv.lock`` pins).

With ``--upload`` it then measures the same file through the service: a ``backtestd serve``
(``tests/support/server.py``'s ``LiveServer``, SQLite, embedded workers) in a temporary data
directory, a pro key, ``POST /datasets``, the CSV streamed by ``httpx`` in a PUT to the signed
upload URL (MB/s of the PUT), then finalize and the time until the upload is ``ready`` (the
ingest job, the object-store copies and the version record included).

Run: ``.venv/bin/python benchmarks/bench_datasets.py [--rows 2000000] [--repeat 3] [--upload]
[--cold] [--before-src DIR]``. ``--before-src`` runs a third contender in every round, between the
two: the same child with another checkout's ``src`` first on ``PYTHONPATH`` (e.g. main's, from
``git archive main src | tar -x -C /tmp/main-src``), so old and new alternate in one run.
This is a script, not a test: timings depend on the machine and its load. On a shared machine
``--repeat`` runs the contenders alternately that many times and shows the round with the median
ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

if TYPE_CHECKING:
    import httpx

ROWS = 10_000_000
CHUNK_ROWS = 1_000_000
START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
STEP_MS = 1_000
TARGET_RATIO = 3.0
TARGET_RSS_MB = 500.0
MAX_BYTES = 1 << 40
CONTENDERS = ("backtestd", "pandas")
BEFORE = "backtestd-before"
LABELS = {
    "backtestd": "backtestd ingest_upload -> lastra",
    BEFORE: "backtestd before (--before-src)",
    "pandas": "pandas read_csv + to_parquet",
}


@dataclass(frozen=True)
class Measure:
    name: str
    seconds: float
    process_seconds: float
    rows: int
    peak_rss_mb: float
    cpu_seconds: float
    output_bytes: int
    note: str

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.seconds


# -- data ------------------------------------------------------------------------------------


def write_csv(path: Path, rows: int, seed: int) -> None:
    """A random-walk 1 s OHLCV series, written chunk by chunk so the parent stays small."""
    rng = np.random.default_rng(seed)
    last = 30_000.0
    write_options = pacsv.WriteOptions(include_header=True, quoting_style="none")
    schema = pa.schema(
        [("timestamp", pa.int64())]
        + [(name, pa.float64()) for name in ("open", "high", "low", "close", "volume")]
    )
    with pacsv.CSVWriter(path, schema, write_options=write_options) as writer:
        for start in range(0, rows, CHUNK_ROWS):
            n = min(CHUNK_ROWS, rows - start)
            ts = START_MS + (start + np.arange(n, dtype=np.int64)) * STEP_MS
            close = last * np.exp(np.cumsum(rng.normal(0.0, 2e-4, n)))
            open_ = np.concatenate(([last], close[:-1]))
            spread = np.abs(rng.normal(0.0, 3.0, (2, n)))
            high = np.maximum(open_, close) + spread[0]
            low = np.minimum(open_, close) - spread[1]
            volume = rng.exponential(2.0, n)
            last = float(close[-1])
            columns = [ts] + [np.round(c, 2) for c in (open_, high, low, close)]
            columns.append(np.round(volume, 3))
            writer.write_table(pa.Table.from_arrays([pa.array(c) for c in columns], schema=schema))


# -- children --------------------------------------------------------------------------------


def _peak_rss_mb() -> float:
    """This process's own high-water RSS (``VmHWM``), in MB; ``ru_maxrss`` where there is no
    ``/proc``."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_seconds() -> float:
    """User + system CPU time of this process (all its threads) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _warm_up_like_a_worker() -> None:
    """Load the compiled CSV parser as a service worker does when it joins (numba's first call
    in a process costs about 0.6-1 s of CPU, paid at worker start, not per ingest); a ``src``
    without it (an older checkout on ``PYTHONPATH``) has nothing to load."""
    try:
        from backtestd.datasets.csv_numbers import warm_up
    except ImportError:
        return
    warm_up()


def _child_backtestd(csv_path: Path, out_dir: Path, cold: bool) -> dict[str, object]:
    from backtestd.datasets.ingest import ingest_upload

    # pyarrow imports pandas lazily on its first ``pa.array`` when pandas is installed (about
    # 1 s, once per process); pay it here so an environment with the bench group is not timed
    # differently from one without.
    pa.array(np.zeros(1))
    if not cold:
        _warm_up_like_a_worker()
    cpu, start = _cpu_seconds(), time.perf_counter()
    result = ingest_upload(csv_path, out_dir, MAX_BYTES)
    seconds, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    note = (
        f"cadence {result.cadence}, gaps {result.gaps}, unit {result.timestamp_unit.value}, "
        f"{result.data_format.value}"
    )
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "rows": result.rows,
        "bytes": result.bytes,
        "note": note,
    }


def _child_pandas(csv_path: Path, out_dir: Path, cold: bool) -> dict[str, object]:
    import pandas as pd

    target = out_dir / "baseline.parquet"
    cpu, start = _cpu_seconds(), time.perf_counter()
    frame = pd.read_csv(csv_path)
    frame.to_parquet(target)
    seconds, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    note = f"pandas {pd.__version__}, {len(frame.columns)} columns"
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "rows": len(frame),
        "bytes": target.stat().st_size,
        "note": note,
    }


def child_main(name: str, csv_path: Path, out_dir: Path, cold: bool) -> None:
    run = _child_backtestd if name == "backtestd" else _child_pandas
    report = run(csv_path, out_dir, cold)
    report["peak_rss_mb"] = _peak_rss_mb()
    print(json.dumps(report))


def measure(
    name: str,
    python: str,
    csv_path: Path,
    out_dir: Path,
    cold: bool = False,
    src: Path | None = None,
) -> Measure:
    """One child run; ``src`` puts another checkout's ``src`` first on its ``PYTHONPATH``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    child = "backtestd" if name == BEFORE else name
    command = [python, str(Path(__file__).resolve()), "--child", child, "--csv", str(csv_path)]
    command += ["--out", str(out_dir)] + (["--cold"] if cold else [])
    env = None if src is None else {**os.environ, "PYTHONPATH": str(src)}
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    process_seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{name} child failed ({done.returncode}):\n{done.stderr[-4000:]}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return Measure(
        name=name,
        seconds=float(report["seconds"]),
        process_seconds=process_seconds,
        rows=int(report["rows"]),
        peak_rss_mb=float(report["peak_rss_mb"]),
        cpu_seconds=float(report["cpu_seconds"]),
        output_bytes=int(report["bytes"]),
        note=str(report["note"]),
    )


def has_pandas(python: str) -> bool:
    probe = [python, "-c", "import pandas, pyarrow"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


# -- report ----------------------------------------------------------------------------------


def print_table(measures: list[Measure], csv_bytes: int) -> None:
    print()
    header = f"{'contender':<36} {'wall s':>8} {'rows/s':>12} {'MB/s':>7} {'peak RSS MB':>12}"
    print(header + f" {'output MB':>10} {'cpu s':>7} {'process s':>10}")
    print("-" * len(header) + "-" * 30)
    for m in measures:
        mb_per_s = csv_bytes / 1e6 / m.seconds
        print(
            f"{LABELS[m.name]:<36} {m.seconds:>8.2f} {m.rows_per_s:>12,.0f} {mb_per_s:>7.1f} "
            f"{m.peak_rss_mb:>12.0f} {m.output_bytes / 1e6:>10.1f} {m.cpu_seconds:>7.2f} "
            f"{m.process_seconds:>10.2f}"
        )
    for m in measures:
        print(f"  {m.name}: {m.note}")


def print_verdict(ours: Measure, baseline: Measure | None) -> None:
    rss_ok = ours.peak_rss_mb < TARGET_RSS_MB
    print()
    print(
        f"peak RSS target (< {TARGET_RSS_MB:.0f} MB): {ours.peak_rss_mb:.0f} MB -> "
        f"{'met' if rss_ok else 'NOT met'}"
    )
    if baseline is None:
        print(f"throughput target (>= {TARGET_RATIO:.0f}x pandas): not measured (no baseline)")
        return
    ratio = ours.rows_per_s / baseline.rows_per_s
    print(
        f"throughput ratio backtestd / pandas: {ratio:.2f}x -> target >= {TARGET_RATIO:.0f}x "
        f"{'met' if ratio >= TARGET_RATIO else 'NOT met'}; peak RSS ratio "
        f"{ours.peak_rss_mb / baseline.peak_rss_mb:.2f}; CPU time ratio (baseline / ours) "
        f"{baseline.cpu_seconds / ours.cpu_seconds:.2f}"
    )


# -- upload through the service -------------------------------------------------------------

UPLOAD_CHUNK = 1 << 20


def _file_chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(UPLOAD_CHUNK):
            yield chunk


def measure_upload(csv_path: Path, root: Path, uploads: int = 2) -> None:
    """PUT the CSV to a live server's signed upload URL, finalize, and wait for the version;
    ``uploads`` times, as the first job also pays the worker's imports. httpx (the dev group)
    is imported here: the baseline's child may run in an interpreter without it."""
    import httpx

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support.server import LiveServer

    server = LiveServer(root / "server")
    server.start()
    try:
        key = server.create_key("bench-upload", tier="pro")
        headers = {"Authorization": f"Bearer {server.token(key)}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=600) as client:
            for number in range(1, uploads + 1):
                _upload_once(client, csv_path, number)
    finally:
        server.stop()


def _upload_once(client: httpx.Client, csv_path: Path, number: int) -> None:
    import httpx

    created = client.post("/datasets", json={"name": f"bench-{number}", "instrument": "BTC/USDT"})
    created.raise_for_status()
    body = created.json()
    size = csv_path.stat().st_size / 1e6
    start = time.perf_counter()
    put = httpx.put(body["upload"]["url"], content=_file_chunks(csv_path), timeout=600)
    put_seconds = time.perf_counter() - start
    put.raise_for_status()
    state_path = f"/datasets/{body['datasetId']}/uploads/{body['uploadId']}"
    start = time.perf_counter()
    client.post(f"{state_path}/finalize").raise_for_status()
    while (state := client.get(state_path).json())["status"] not in ("ready", "failed"):
        time.sleep(0.1)
    ingest_seconds = time.perf_counter() - start
    print(
        f"upload {number} through the service: PUT {size:,.0f} MB in {put_seconds:.2f} s "
        f"({size / put_seconds:.1f} MB/s); finalize -> {state['status']} in "
        f"{ingest_seconds:.2f} s ({size / ingest_seconds:.1f} MB/s) (load average "
        f"{os.getloadavg()[0]:.1f})"
        + (f": {state.get('error')}" if state["status"] == "failed" else "")
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=ROWS, help="rows of 1 s data (10,000,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=None, help="keep files here (temp dir)")
    parser.add_argument(
        "--baseline-python", default=sys.executable, help="interpreter with pandas for baseline"
    )
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument(
        "--repeat", type=int, default=1, help="rounds of both contenders, alternating (1)"
    )
    parser.add_argument(
        "--upload", action="store_true", help="also PUT the CSV through a live server"
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="time the compiled parser's first load inside the ingest (a worker loads it at start)",
    )
    parser.add_argument(
        "--before-src",
        type=Path,
        default=None,
        help="another checkout's src dir (e.g. main's), run in each round between the two",
    )
    parser.add_argument("--child", choices=CONTENDERS, help=argparse.SUPPRESS)
    parser.add_argument("--csv", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args()


def run(args: argparse.Namespace, root: Path) -> None:
    csv_path = root / "bars_1s.csv"
    start = time.perf_counter()
    write_csv(csv_path, args.rows, args.seed)
    csv_bytes = csv_path.stat().st_size
    print(
        f"generated {args.rows:,} rows of 1 s OHLCV (epoch ms) in {time.perf_counter() - start:.1f}"
        f" s: {csv_bytes / 1e6:,.0f} MB at {csv_path}"
    )
    with_baseline = not args.skip_baseline and has_pandas(args.baseline_python)
    if args.skip_baseline:
        print("baseline skipped (--skip-baseline)")
    elif not with_baseline:
        print(
            f"baseline skipped: pandas is not importable by {args.baseline_python}. It comes "
            "with the 'bench' dependency group (uv sync --group bench --group dev); or pass "
            "--baseline-python with an interpreter that has pandas and pyarrow"
        )
    rounds: list[tuple[Measure, Measure | None]] = []
    befores: list[Measure] = []  # one a round with --before-src
    for round_number in range(1, args.repeat + 1):
        # Each round writes into fresh directories, as the service's ingest does (a temporary
        # directory per job): rewriting the last round's 480 MB file made the next write wait
        # while the kernel dropped the old file's pages (0.46 -> 0.56-0.65 s for the same
        # ingest). Before each contender the page cache's dirty pages are written out
        # (untimed), so no contender pays for the write-back of the one before it, and the
        # order of the contenders rotates from round to round.
        out = root / f"round-{round_number}"
        # name -> (interpreter, output directory, src on PYTHONPATH, cold)
        runs: dict[str, tuple[str, Path, Path | None, bool]] = {
            "backtestd": (sys.executable, out / "backtestd", None, args.cold)
        }
        if args.before_src is not None:
            runs[BEFORE] = (sys.executable, out / "before", args.before_src, args.cold)
        if with_baseline:
            runs["pandas"] = (args.baseline_python, out / "pandas", None, False)
        order = list(runs)
        shift = (round_number - 1) % len(order)
        order = order[shift:] + order[:shift]
        measured: dict[str, Measure] = {}
        for name in order:
            python, out_dir, src, cold = runs[name]
            os.sync()
            measured[name] = measure(name, python, csv_path, out_dir, cold, src)
        ours = measured["backtestd"]
        line = (
            f"round {round_number}: backtestd {ours.seconds:.2f} s ({ours.cpu_seconds:.2f} CPU s)"
        )
        if BEFORE in measured:
            before = measured[BEFORE]
            befores.append(before)
            line += f", before {before.seconds:.2f} s ({before.cpu_seconds:.2f} CPU s)"
        baseline = measured.get("pandas")
        if baseline is not None:
            line += f", pandas {baseline.seconds:.2f} s ({baseline.cpu_seconds:.2f} CPU s)"
            line += f": {baseline.seconds / ours.seconds:.2f}x"
            if BEFORE in measured:
                line += f" (before {baseline.seconds / measured[BEFORE].seconds:.2f}x)"
        order_shown = " > ".join(order)
        print(f"{line} (order {order_shown}; load average {os.getloadavg()[0]:.1f})", flush=True)
        rounds.append((ours, baseline))
        shutil.rmtree(root / f"round-{round_number - 1}", ignore_errors=True)
    ours, baseline = median_round(rounds)
    if args.repeat > 1:
        print(f"\nthe median round of {args.repeat} (by throughput ratio, else by our wall time):")
    before_shown = befores[rounds.index((ours, baseline))] if befores else None
    shown = (ours, before_shown, baseline)
    print_table([m for m in shown if m is not None], csv_bytes)
    print_verdict(ours, baseline)
    if args.upload:
        print()
        measure_upload(csv_path, root)


def median_round(rounds: list[tuple[Measure, Measure | None]]) -> tuple[Measure, Measure | None]:
    """The round with the median throughput ratio (our median wall time without a baseline);
    the lower median of an even count."""

    def key(pair: tuple[Measure, Measure | None]) -> float:
        ours, baseline = pair
        return baseline.seconds / ours.seconds if baseline is not None else -ours.seconds

    ordered = sorted(rounds, key=key)
    return ordered[(len(ordered) - 1) // 2]


def main() -> None:
    args = parse_args()
    if args.child:
        child_main(args.child, args.csv, args.out, args.cold)
        return
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        run(args, args.workdir)
        return
    root = Path(tempfile.mkdtemp(prefix="bench-datasets-"))
    try:
        run(args, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
