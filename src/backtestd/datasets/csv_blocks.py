"""A CSV parsed block by block on several threads, its batches handed over in file order.

pyarrow's streaming reader (``pyarrow.csv.open_csv``) parses one block after another: on the
2-core machine a 554 MB file took as long in wall time as in CPU time (2.3-3.4 s), one core
idle while the other parsed. This reader cuts the file where arrow's streaming reader does
(after the last line end, ``\n`` or ``\r``, of each ``block_bytes`` window of the file; the
header line comes off the first block), so its batches are the streaming reader's, block for
block. Each block is found, read and parsed by a worker of a thread pool (arrow releases the GIL
while it parses) while the caller checks and writes the batches already parsed; at most
``2 * workers + 1`` blocks are in flight, so memory stays bounded.

It reads plain files only: a block holding a quote character (a quoted field may hold a
delimiter or a line end, which cutting at line ends would split), a window without a line end,
or a header arrow reads differently from ``names`` raises :class:`NotPlain`, and the caller
reads the file with the streaming reader instead.

When every column read is float64, each block first goes to the compiled parser of
``csv_numbers`` (plain decimal numbers, the same doubles as arrow's, the GIL released); a block
it does not take is parsed by arrow, so a batch and an error are arrow's either way.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Generator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.csv as pacsv

from backtestd.datasets.csv_numbers import SKIP, parse_block

MAX_WORKERS = 8

T = TypeVar("T")


class NotPlain(Exception):
    """The file is not one this reader cuts safely; read it with the streaming reader."""


def default_workers() -> int:
    """Arrow's own CPU count (it honours the container's limit), at most ``MAX_WORKERS``."""
    return max(1, min(pa.cpu_count(), MAX_WORKERS))


def _header_names(line: bytes) -> list[str]:
    options = pacsv.ReadOptions(use_threads=False)
    return list(pacsv.read_csv(pa.py_buffer(line), read_options=options).column_names)


def _header_end(fd: int, size: int, names: list[str], block_bytes: int) -> int:
    """Where the data rows start: after the first line end, if that line reads as ``names``."""
    first = os.pread(fd, min(block_bytes, size), 0)
    ends = [i for i in (first.find(b"\n"), first.find(b"\r")) if i >= 0]
    if not ends:
        raise NotPlain("no line end in the first block")
    position = min(ends) + (2 if first[min(ends) : min(ends) + 2] == b"\r\n" else 1)
    if _header_names(first[:position]) != names:
        raise NotPlain("the header line is not read as expected")
    return position


_TAIL = 64 << 10


def _cut(fd: int, window: int, block_bytes: int, header_end: int) -> int:
    """Where arrow's streaming reader ends the block of ``window`` (an index): after the last
    line end (``\n`` or ``\r``) in the window that is not in the header."""
    window_end = (window + 1) * block_bytes
    floor = max(window * block_bytes, header_end)
    for length in (min(_TAIL, block_bytes), block_bytes):
        start = max(window_end - length, floor)
        data = os.pread(fd, window_end - start, start)
        cut = max(data.rfind(b"\n"), data.rfind(b"\r"))
        if cut >= 0:
            return start + cut + 1
    raise NotPlain("a line is longer than a block")


@dataclass(frozen=True)
class _Layout:
    fd: int
    size: int
    header_end: int
    block_bytes: int
    windows: int


def _read_block(layout: _Layout, window: int) -> bytes:
    """The data of block ``window``, found and read by the worker that parses it, so blocks
    are cut and read in parallel too."""
    bytes_, header_end = layout.block_bytes, layout.header_end
    start = header_end if window == 0 else _cut(layout.fd, window - 1, bytes_, header_end)
    last = window == layout.windows - 1
    end = layout.size if last else _cut(layout.fd, window, bytes_, header_end)
    data = os.pread(layout.fd, end - start, start)
    if data.find(b'"') >= 0:
        raise NotPlain("a quote character")
    return data


@dataclass(frozen=True)
class _Plan:
    """What the compiled parser reads: ``targets[f]`` is field ``f``'s output row (``SKIP``:
    not read) and ``schema`` the batch arrow's reader would give."""

    targets: npt.NDArray[np.int64]
    schema: pa.Schema


_NUMBER = re.compile(r"[+-]?[0-9]*\.?[0-9]*")


def _compiled_plan(names: list[str], convert: pacsv.ConvertOptions) -> _Plan | None:
    """The plan when the compiled parser gives arrow's batches for ``convert``: every column
    read is float64, named once in the header, with arrow's decimal point and no null value
    that looks like a number (arrow's defaults); None otherwise."""
    included = list(convert.include_columns) or names
    types = convert.column_types
    if (
        len(set(names)) != len(names)
        or not set(included) <= set(names)
        or any(types.get(name) != pa.float64() for name in included)
        or convert.decimal_point != "."
        or any(_NUMBER.fullmatch(value) for value in convert.null_values if value)
    ):
        return None
    targets = np.full(len(names), SKIP, dtype=np.int64)
    for index, name in enumerate(included):
        targets[names.index(name)] = index
    schema = pa.schema([pa.field(name, pa.float64()) for name in included])
    return _Plan(targets, schema)


def _compiled_batch(block: bytes, plan: _Plan) -> pa.RecordBatch | None:
    columns = parse_block(np.frombuffer(block, dtype=np.uint8), plan.targets)
    if columns is None:
        return None
    return pa.RecordBatch.from_arrays([pa.array(column) for column in columns], schema=plan.schema)


def _parse(
    layout: _Layout,
    window: int,
    names: list[str],
    convert: pacsv.ConvertOptions,
    plan: _Plan | None,
) -> list[pa.RecordBatch]:
    block = _read_block(layout, window)
    if not block:
        return []
    if plan is not None:
        batch = _compiled_batch(block, plan)
        if batch is not None:
            return [batch] if batch.num_rows else []
    options = pacsv.ReadOptions(column_names=names, use_threads=False, block_size=len(block))
    table = pacsv.read_csv(pa.py_buffer(block), read_options=options, convert_options=convert)
    return table.combine_chunks().to_batches()


def _parse_prepared(
    layout: _Layout,
    window: int,
    names: list[str],
    convert: pacsv.ConvertOptions,
    plan: _Plan | None,
    prepare: Callable[[pa.RecordBatch], T],
) -> list[tuple[pa.RecordBatch, T]]:
    return [(batch, prepare(batch)) for batch in _parse(layout, window, names, convert, plan)]


def _nothing(batch: pa.RecordBatch) -> None:
    return None


def parallel_batches(
    path: Path,
    names: list[str],
    convert: pacsv.ConvertOptions,
    block_bytes: int,
    workers: int,
) -> Generator[pa.RecordBatch, None, None]:
    """The batches of the CSV at ``path`` whose header is ``names``, in file order.

    Errors of arrow's parse or conversion (``pa.ArrowInvalid``) come out at the batch they
    belong to, after every batch before it.
    """
    prepared = prepared_batches(path, names, convert, block_bytes, workers, _nothing)
    try:
        for batch, _ in prepared:
            yield batch
    finally:
        prepared.close()


def prepared_batches(
    path: Path,
    names: list[str],
    convert: pacsv.ConvertOptions,
    block_bytes: int,
    workers: int,
    prepare: Callable[[pa.RecordBatch], T],
) -> Generator[tuple[pa.RecordBatch, T], None, None]:
    """:func:`parallel_batches`, each batch with ``prepare(batch)`` computed by the worker that
    parsed it: per-batch work that needs nothing from the batches before it (a conversion
    the caller would otherwise do on its one thread). ``prepare`` must not raise: an error
    there would surface as the batch's own."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        header_end = _header_end(fd, size, names, block_bytes)
        windows = max(1, -(-size // block_bytes))
        layout = _Layout(fd, size, header_end, block_bytes, windows)
        plan = _compiled_plan(names, convert)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="csv-parse") as pool:
            pending: deque[Future[list[tuple[pa.RecordBatch, T]]]] = deque()
            try:
                for window in range(windows):
                    pending.append(
                        pool.submit(_parse_prepared, layout, window, names, convert, plan, prepare)
                    )
                    if len(pending) > 2 * workers:
                        yield from pending.popleft().result()
                while pending:
                    yield from pending.popleft().result()
            finally:
                for future in pending:
                    future.cancel()
    finally:
        os.close(fd)
