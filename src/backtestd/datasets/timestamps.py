"""Timestamp units of an uploaded dataset: detected from the first row, enforced on every row.

Every accepted form is turned into int64 epoch microseconds, the finest unit a user can send, so
two rows a millisecond file cannot tell apart stay distinct in a microsecond file.
Numeric epochs are classified by magnitude (seconds below 1e11, i.e. before the year 5138;
milliseconds below 1e14; microseconds below 1e17): a file whose first row is in milliseconds
and a later row in seconds is refused with that row's number instead of being read as 1970.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from backtestd.domain.datasets import TimestampUnit

I64 = npt.NDArray[np.int64]

_SCALE_TO_MICROS = {
    TimestampUnit.SECONDS: 1_000_000,
    TimestampUnit.MILLIS: 1_000,
    TimestampUnit.MICROS: 1,
}
_UNIT_WORDS = {
    TimestampUnit.SECONDS: "epoch seconds",
    TimestampUnit.MILLIS: "epoch milliseconds",
    TimestampUnit.MICROS: "epoch microseconds",
    TimestampUnit.ISO: "ISO-8601",
}
_ARROW_UNITS = {"s": TimestampUnit.SECONDS, "ms": TimestampUnit.MILLIS}


class TimestampError(ValueError):
    """A timestamp that cannot be read or breaks the file's unit; message names the row."""


def describe(unit: TimestampUnit) -> str:
    return _UNIT_WORDS[unit]


def row_label(row: int) -> str:
    """Rows are counted from 1 over data rows (the CSV header is not a row)."""
    return f"row {row:,}"


def magnitude_unit(value: float) -> TimestampUnit | None:
    size = abs(value)
    if size < 1e11:
        return TimestampUnit.SECONDS
    if size < 1e14:
        return TimestampUnit.MILLIS
    if size < 1e17:
        return TimestampUnit.MICROS
    return None


def _magnitude_classes(values: npt.NDArray[np.float64]) -> npt.NDArray[np.int8]:
    size = np.abs(values)
    return np.select([size < 1e11, size < 1e14, size < 1e17], [0, 1, 2], default=3).astype(np.int8)


_CLASS_OF = {TimestampUnit.SECONDS: 0, TimestampUnit.MILLIS: 1, TimestampUnit.MICROS: 2}


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def detect_unit(first: object) -> TimestampUnit:
    """The file's unit from its first timestamp (a string or a number)."""
    if isinstance(first, str):
        text = first.strip()
        if not _looks_numeric(text):
            return TimestampUnit.ISO
        first = float(text)
    if isinstance(first, int | float):
        unit = magnitude_unit(float(first))
        if unit is None:
            raise TimestampError(
                f"{row_label(1)}: timestamp {first} is too large for epoch seconds, "
                "milliseconds or microseconds (nanoseconds are not accepted)"
            )
        return unit
    raise TimestampError(f"{row_label(1)}: timestamp {first!r} is neither ISO-8601 nor a number")


def to_micros(column: pa.Array | pa.ChunkedArray, unit: TimestampUnit, first_row: int) -> I64:
    """Convert one chunk to epoch microseconds, refusing any row that breaks ``unit``."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if array.null_count:
        bad = int(pc.index(pc.is_null(array), True).as_py())
        raise TimestampError(f"{row_label(first_row + bad)}: timestamp is empty")
    if pa.types.is_timestamp(array.type):
        return _from_arrow_timestamp(array)
    if unit is TimestampUnit.ISO:
        return _from_iso(array, first_row)
    return _from_epoch(array, unit, first_row)


# Unit ranges of the magnitude classes (``_magnitude_classes``), as float bounds.
_CLASS_RANGE = {
    TimestampUnit.SECONDS: (0.0, 1e11),
    TimestampUnit.MILLIS: (1e11, 1e14),
    TimestampUnit.MICROS: (1e14, 1e17),
}
_EXACT_FLOAT = 2.0**53


class InexactEpoch(TimestampError):
    """An epoch too large for a float64 to hold its integer exactly (read it as text)."""


def epoch_floats_to_micros(array: pa.Array, unit: TimestampUnit, first_row: int) -> I64:
    """``to_micros`` of the text column, from the same column parsed as float64 (the CSV fast
    path: arrow parses a number's text to the same double either way).

    A chunk with no nulls and every value inside ``unit``'s range costs a min, a max, a
    rounding and a multiply; any other chunk goes through :func:`to_micros`. Whole numbers
    are exact below 2**53; a value beyond raises :class:`InexactEpoch`, as the text path reads
    such integers exactly and a float cannot.
    """
    if array.null_count or not pa.types.is_float64(array.type) or unit is TimestampUnit.ISO:
        return to_micros(array, unit, first_row)
    values = np.asarray(array.to_numpy(zero_copy_only=True), dtype=np.float64)
    if values.size == 0:
        return np.empty(0, dtype=np.int64)
    low, high = _CLASS_RANGE[unit]
    smallest, largest = float(values.min()), float(values.max())
    if largest >= _EXACT_FLOAT or smallest <= -_EXACT_FLOAT:
        raise InexactEpoch(
            f"{row_label(first_row)}: an epoch timestamp of this chunk is beyond ±2**53"
        )
    if not (smallest >= low and largest < high):
        return to_micros(array, unit, first_row)
    whole = np.rint(values)
    if unit is TimestampUnit.SECONDS and not np.array_equal(values, whole):
        return np.rint(values * 1_000_000).astype(np.int64)  # fractional seconds
    return whole.astype(np.int64) * _SCALE_TO_MICROS[unit]


def arrow_unit(array_type: pa.DataType) -> TimestampUnit:
    """The reported unit of a typed (parquet) timestamp column."""
    return _ARROW_UNITS.get(array_type.unit, TimestampUnit.MICROS)


def _from_arrow_timestamp(array: pa.Array) -> I64:
    micros = pc.cast(array, pa.timestamp("us", tz=array.type.tz), safe=False)
    return np.asarray(micros.cast(pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)


def _from_iso(array: pa.Array, first_row: int) -> I64:
    if not pa.types.is_string(array.type) and not pa.types.is_large_string(array.type):
        raise TimestampError(
            f"{row_label(first_row)}: timestamp is a number but the file's first row is "
            "ISO-8601; use one unit in the whole file"
        )
    for target in (pa.timestamp("us", tz="UTC"), pa.timestamp("us")):
        try:
            parsed = pc.cast(array, target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
        return np.asarray(parsed.cast(pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)
    return _from_iso_rows(array.to_pylist(), first_row)


def _from_iso_rows(texts: list[str], first_row: int) -> I64:
    """Slow path (mixed offsets or a bad row): parse row by row to name the bad one."""
    out = np.empty(len(texts), dtype=np.int64)
    for index, text in enumerate(texts):
        try:
            parsed = datetime.fromisoformat(text.strip())
        except ValueError:
            what = f"{text!r} (a number)" if _looks_numeric(text) else f"{text!r}"
            raise TimestampError(
                f"{row_label(first_row + index)}: timestamp {what} is not ISO-8601, the unit "
                "of the file's first row; use one unit in the whole file"
            ) from None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        delta = parsed - datetime(1970, 1, 1, tzinfo=UTC)
        out[index] = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return out


def _from_epoch(array: pa.Array, unit: TimestampUnit, first_row: int) -> I64:
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        # Spaces and tabs around a number, as arrow's CSV reader allows in number columns.
        array = pc.utf8_trim(array, characters=" \t")
    try:
        # Integers beyond 2**53 round as their text would (a safe cast refuses them).
        safe = not pa.types.is_integer(array.type)
        values = np.asarray(
            pc.cast(array, pa.float64(), safe=safe).to_numpy(zero_copy_only=False),
            dtype=np.float64,
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        texts = array.cast(pa.string()).to_pylist()
        bad = _first_unparsable(texts)
        raise TimestampError(
            f"{row_label(first_row + bad)}: timestamp {texts[bad]!r} is not a number, but the "
            f"file's first row is in {describe(unit)}; use one unit in the whole file"
        ) from None
    classes = _magnitude_classes(values)
    wrong = np.flatnonzero(classes != _CLASS_OF[unit])
    if wrong.size:
        index = int(wrong[0])
        raise TimestampError(
            f"{row_label(first_row + index)}: timestamp {array[index].as_py()} is not in "
            f"{describe(unit)}, the unit of the file's first row; use one unit in the whole file"
        )
    if unit is TimestampUnit.SECONDS and not np.array_equal(values, np.floor(values)):
        return np.rint(values * 1_000_000).astype(np.int64)  # fractional seconds
    return _exact_integers(array, values) * _SCALE_TO_MICROS[unit]


def _first_unparsable(texts: list[str | None]) -> int:
    """The first text arrow cannot read as a number (error path only). Python's ``float`` is
    no judge: it accepts what arrow refuses, such as surrounding spaces or ``1_000``."""
    for index, text in enumerate(texts):
        try:
            pc.cast(pa.array([text], type=pa.string()), pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return index
    return 0


def _exact_integers(array: pa.Array, values: npt.NDArray[np.float64]) -> I64:
    """Whole numbers read without a float round trip (a float64 holds 2**53 exactly, less
    than epoch microseconds need)."""
    if pa.types.is_floating(array.type):
        return np.rint(values).astype(np.int64)
    try:
        return np.asarray(pc.cast(array, pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return np.rint(values).astype(np.int64)
