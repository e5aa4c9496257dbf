"""Where a CSV ingest spends its CPU, stage by stage (the profile behind docs/benchmarks.md).

``ingest_upload`` overlaps the parsing threads with the checks and the writing on the main
thread, so its stages cannot be timed inside it. This script runs the same steps one after the
other on one file: first the parse alone (as ingest parses it: for an integer-epoch file the
block reader of ``csv_blocks`` with its compiled number parser, loaded first as a worker does;
otherwise arrow's streaming reader; all batches kept; process CPU time, all threads), then,
over those batches, each step of ``datasets.ingest._convert_csv``'s loop on the main thread
(thread CPU time): timestamps to microseconds with the unit enforced, the value columns, the
order check, the finite check, cadence and gaps, and the lastra write (CRC32 per column per row
group, file write). The batches are all held at once (about 1 GB for 10 million rows): a
profile, not the product.

Run: ``.venv/bin/python benchmarks/bench_datasets_stages.py CSV [--out FILE]`` (a CSV from
``bench_datasets.py --workdir DIR``). Integer-epoch files take the fast path, others the general.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from backtestd.datasets import ingest
from backtestd.datasets.csv_blocks import default_workers, parallel_batches
from backtestd.datasets.csv_numbers import warm_up
from backtestd.datasets.rows import RowChecker
from backtestd.datasets.timestamps import detect_unit, epoch_floats_to_micros, to_micros
from backtestd.datasets.version_file import LastraVersionWriter, value_columns


def _process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def profile(csv_path: Path, out: Path) -> dict[str, float]:
    header, first = ingest._csv_head(csv_path)
    columns = value_columns(header)
    fast = first is not None and ingest._INTEGER.fullmatch(first.strip()) is not None
    convert = pacsv.ConvertOptions(
        column_types={
            "timestamp": pa.float64() if fast else pa.string(),
            **{name: pa.float64() for name in columns},
        },
        include_columns=["timestamp", *columns],
        strings_can_be_null=True,
    )
    read = pacsv.ReadOptions(block_size=ingest.CSV_BLOCK_BYTES, encoding="utf8")
    if fast:
        warm_up()  # as a worker does at start
    cpu = _process_cpu()
    if fast:  # as ingest reads it: compiled parser, arrow for blocks it does not take
        batches = list(
            parallel_batches(csv_path, header, convert, ingest.CSV_BLOCK_BYTES, default_workers())
        )
        parse = "CSV parse (csv_blocks, all threads)"
    else:
        batches = list(pacsv.open_csv(csv_path, read_options=read, convert_options=convert))
        parse = "CSV parse (arrow, all threads)"
    stages = {parse: _process_cpu() - cpu}
    convert_ts: Callable[..., np.ndarray] = epoch_floats_to_micros if fast else to_micros

    def timed(name: str, step: Callable[[], object]) -> object:
        start = time.thread_time()
        result = step()
        stages[name] = stages.get(name, 0.0) + time.thread_time() - start
        return result

    checker = RowChecker()
    unit = detect_unit(batches[0].column(0)[0].as_py())
    with LastraVersionWriter(columns, out) as writer:
        for batch in batches:
            first_row = checker.rows + 1
            ts_us = timed(
                "timestamps to us, unit enforced",
                lambda b=batch, r=first_row: convert_ts(b.column(0), unit, r),
            )
            values = timed(
                "value columns (nulls, float64)",
                lambda b=batch, r=first_row: ingest._values(b, columns, r),
            )
            intervals = timed("order check", lambda t=ts_us: checker._check_order(t))
            timed(
                "finite check",
                lambda v=values: [bool(np.isfinite(c).all()) for c in v.values()],
            )
            timed(
                "cadence and gaps",
                lambda i=intervals, t=ts_us: checker._cadence.add_intervals(i, int(t[-1])),
            )
            checker.rows += int(ts_us.size)
            checker.last_us = int(ts_us[-1])
            timed("lastra write (CRC32 + file write)", lambda t=ts_us, v=values: writer.write(t, v))
        timed("lastra write (CRC32 + file write)", writer.finish)
    return stages


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("csv", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="lastra file (a temporary one)")
    args = parser.parse_args()
    pa.array(np.zeros(1))  # pyarrow's lazy pandas import, outside the timings
    with tempfile.TemporaryDirectory() as directory:
        stages = profile(args.csv, args.out or Path(directory) / "version.lastra")
    for name, seconds in stages.items():
        print(f"{name:<40} {seconds:6.2f} s CPU")
    print(f"{'total':<40} {sum(stages.values()):6.2f} s CPU")


if __name__ == "__main__":
    main()
