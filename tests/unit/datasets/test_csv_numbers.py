"""The compiled CSV number parser gives arrow's doubles bit for bit, and hands every block
outside its plain shape back (None) instead of reading it differently."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.datasets import csv_numbers
from backtestd.datasets.csv_numbers import SKIP, parse_block

_MAX_MANTISSA = 2**53


def _buf(text: str) -> np.ndarray:
    return np.frombuffer(text.encode(), dtype=np.uint8)


def _arrow_column(cells: list[str]) -> np.ndarray:
    """Arrow's doubles for one float64 column holding ``cells``."""
    data = ("a\n" + "\n".join(cells) + "\n").encode()
    convert = pacsv.ConvertOptions(column_types={"a": pa.float64()})
    table = pacsv.read_csv(pa.py_buffer(data), convert_options=convert)
    return np.asarray(table.column("a").to_numpy(), dtype=np.float64)


def _kernel_cell(cell: str) -> float | None:
    out = parse_block(_buf(cell + "\n"), np.array([0], dtype=np.int64))
    return None if out is None else float(out[0, 0])


def _in_plain_shape(cell: str) -> bool:
    """The documented rule: a sign, digits, a point, digits; at least one digit, at most 18 in
    all, and the digits without the point at most 2**53."""
    body = cell[1:] if cell[:1] in "+-" else cell
    digits = body.replace(".", "", 1)
    return (
        0 < len(digits) <= 18
        and digits.isdigit()
        and digits.isascii()
        and int(digits) <= _MAX_MANTISSA
    )


def _bits(value: float) -> int:
    return int(np.array([value], dtype=np.float64).view(np.int64)[0])


@st.composite
def _decimals(draw: st.DrawFn) -> str:
    """Decimal text as programs write it: signs, leading zeros, trailing or missing points,
    short and long fractions, and 15-19 significant digits around 2**53."""
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    kind = draw(st.sampled_from(["digits", "near-2**53", "float-repr", "rounded"]))
    if kind == "digits":
        whole = draw(st.text("0123456789", max_size=12))
        zeros = "0" * draw(st.integers(0, 3))
        point = draw(st.sampled_from(["", "."]))
        fraction = draw(st.text("0123456789", max_size=12)) if point else ""
        body = zeros + whole + point + fraction
        return sign + (body if any(c.isdigit() for c in body) else "0")
    if kind == "near-2**53":
        mantissa = str(_MAX_MANTISSA + draw(st.integers(-3_000, 3_000)))
        mantissa = mantissa + "9" * draw(st.integers(0, 3))  # 16 to 19 digits
        cut = draw(st.integers(0, len(mantissa)))
        return sign + mantissa[:cut] + "." + mantissa[cut:]
    value = draw(st.floats(0, 1e12, allow_nan=False, allow_infinity=False))
    if kind == "rounded":
        value = round(value, draw(st.integers(0, 6)))
    text = repr(value)
    return sign + text if "e" not in text else sign + "1.5"


@given(cells=st.lists(_decimals(), min_size=1, max_size=40))
@settings(max_examples=400, deadline=None)
def test_decimal_text_parses_to_arrows_double_bit_for_bit_or_is_handed_back(
    cells: list[str],
) -> None:
    expected = _arrow_column(cells)
    for cell, value in zip(cells, expected, strict=True):
        ours = _kernel_cell(cell)
        assert (ours is not None) == _in_plain_shape(cell), cell
        if ours is not None:
            assert _bits(ours) == _bits(float(value)), cell
    if all(_in_plain_shape(cell) for cell in cells):
        block = parse_block(_buf("\n".join(cells)), np.array([0], dtype=np.int64))
        assert block is not None
        assert block[0].view(np.int64).tolist() == expected.view(np.int64).tolist()


@pytest.mark.parametrize(
    ("cell", "value"),
    [
        ("-0", -0.0),
        ("-0.0", -0.0),
        ("+0", 0.0),
        ("5.", 5.0),
        (".5", 0.5),
        ("-.5", -0.5),
        ("00012.50", 12.5),
        ("9007199254740992", 9007199254740992.0),
        ("0.1", 0.1),
        ("30001.57", 30001.57),
        ("1767225600000", 1767225600000.0),
    ],
)
def test_edge_forms_read_as_arrow_reads_them(cell: str, value: float) -> None:
    ours = _kernel_cell(cell)
    assert ours is not None
    assert _bits(ours) == _bits(value) == _bits(float(_arrow_column([cell])[0]))


@pytest.mark.parametrize(
    "cell",
    [
        "",
        "+",
        "-",
        ".",
        "-.",
        "1e5",
        "1E5",
        "1.5e-3",
        "nan",
        "NaN",
        "inf",
        "-inf",
        " 1",
        "1 ",
        "\t1",
        "1.2.3",
        "--1",
        "0x10",
        "1_000",
        '"1"',
        "\u00a01",
        "１",
        "9007199254740993",  # 2**53 + 1: more than a double holds
        "12345678901234567890",
        "0.0000000000000000001",  # 19 digits
        "1.50000000000000000000",
    ],
)
def test_cell_outside_the_plain_shape_hands_the_block_back(cell: str) -> None:
    block = "1,2\n" + f"3,{cell}\n" + "5,6\n"
    assert parse_block(_buf(block), np.array([0, 1], dtype=np.int64)) is None


@pytest.mark.parametrize(
    "block",
    [
        "1,2\n\n3,4\n",  # an empty line (arrow skips it)
        "1,2\r3,4\n",  # a lone carriage return ends a line for arrow
        "1,2\r",
        "\n1,2\n",
        "1,2,3\n",  # a field more than the header
        "1\n",  # a field fewer
        "1,2,\n",
        "1,2\n3\n",
    ],
)
def test_irregular_lines_hand_the_block_back(block: str) -> None:
    assert parse_block(_buf(block), np.array([0, 1], dtype=np.int64)) is None


def test_line_ends_and_a_missing_last_line_end_are_read() -> None:
    out = parse_block(_buf("1,2.5\r\n3,-4\n5,6"), np.array([0, 1], dtype=np.int64))
    assert out is not None
    assert out.tolist() == [[1.0, 3.0, 5.0], [2.5, -4.0, 6.0]]


def test_unread_fields_are_skipped_and_columns_follow_the_targets() -> None:
    targets = np.array([1, SKIP, 0], dtype=np.int64)
    out = parse_block(_buf("1,BTC-USD,2\n3,,4\n"), targets)
    assert out is not None
    assert out.tolist() == [[2.0, 4.0], [1.0, 3.0]]


@pytest.mark.parametrize("cell", ["é", "a\tb", "\x00"])
def test_unread_field_outside_printable_ascii_hands_the_block_back(cell: str) -> None:
    targets = np.array([0, SKIP], dtype=np.int64)
    assert parse_block(_buf(f"1,{cell}\n"), targets) is None


def test_empty_block_has_no_rows() -> None:
    out = parse_block(_buf(""), np.array([0, 1], dtype=np.int64))
    assert out is not None
    assert out.shape == (2, 0)


_SHORT = st.from_regex(r"[+-]?[0-9]{0,6}\.?[0-9]{0,4}", fullmatch=True)
_NOISE = st.text("0123456789+-.eE xn", max_size=8)
_CELL = st.one_of(_SHORT, _SHORT, _SHORT, _SHORT, _decimals(), _NOISE)
_ROWS = st.lists(
    st.tuples(_CELL, st.sampled_from([",", ",,", ""] + [","] * 10), _CELL),
    min_size=1,
    max_size=4,
)


@st.composite
def _any_text(draw: st.DrawFn) -> str:
    """Rows of cells, mostly plain numbers, mostly two fields a line, any line ends."""
    lines = [a + comma + b for a, comma, b in draw(_ROWS)]
    ends = st.sampled_from(["", "\r", "\n\n"] + ["\r\n"] * 3 + ["\n"] * 10)
    endings = draw(st.lists(ends, min_size=len(lines), max_size=len(lines)))
    return "".join(line + end for line, end in zip(lines, endings, strict=True))


@given(text=_any_text())
@settings(max_examples=500, deadline=None)
def test_any_block_the_kernel_takes_arrow_reads_to_the_same_doubles(text: str) -> None:
    targets = np.array([0, 1], dtype=np.int64)
    ours = parse_block(_buf(text), targets)
    if ours is None or not text:  # csv_blocks never hands an empty block to either parser
        return
    options = pacsv.ReadOptions(column_names=["a", "b"])
    convert = pacsv.ConvertOptions(column_types={"a": pa.float64(), "b": pa.float64()})
    table = pacsv.read_csv(
        pa.py_buffer(text.encode()), read_options=options, convert_options=convert
    )
    for row, name in enumerate(["a", "b"]):
        column = table.column(name)
        assert column.null_count == 0
        theirs = np.asarray(column.to_numpy(), dtype=np.float64)
        assert ours[row].view(np.int64).tolist() == theirs.view(np.int64).tolist()


def test_every_block_runs_the_one_warmed_specialisation() -> None:
    """A writable array or a last block without a line end (copied to add one) must not make
    numba compile another specialisation in the middle of an ingest."""
    targets = np.array([0, 1], dtype=np.int64)
    parse_block(_buf("1,2\n"), targets)
    parse_block(_buf("1,2"), targets)
    parse_block(np.array(list(b"1,2\n"), dtype=np.uint8), targets)
    parse_block(_buf("1,2\n"), np.array([0, 1]))
    assert len(csv_numbers._parse_block.signatures) == 1
