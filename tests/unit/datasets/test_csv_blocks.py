"""The parallel CSV reader hands over arrow's streaming reader's batches, block for block, in
order, and refuses (NotPlain) the files it cannot cut safely."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.datasets.csv_blocks import NotPlain, parallel_batches

NAMES = ["timestamp", "close", "note"]
CONVERT = pacsv.ConvertOptions(
    column_types={"timestamp": pa.float64(), "close": pa.float64()},
    include_columns=["timestamp", "close"],
    strings_can_be_null=True,
)


def _streaming(path: Path, block: int) -> list[pa.RecordBatch]:
    options = pacsv.ReadOptions(block_size=block, encoding="utf8")
    return [b for b in pacsv.open_csv(path, read_options=options, convert_options=CONVERT)]


_CELLS = st.sampled_from(["1", "22.5", "", "333", "-4e3", "nan", "x"])


@st.composite
def _files(draw: st.DrawFn) -> bytes:
    header = draw(st.sampled_from(["timestamp,close,note", '"timestamp","close","note"']))
    # Rounded closes are in the compiled parser's plain shape, full reprs often not.
    closes = st.one_of(st.floats(0, 1e6), st.floats(0, 1e6).map(lambda v: round(v, 2)))
    rows = draw(st.lists(st.tuples(st.integers(0, 10**13), closes, _CELLS), max_size=80))
    lines = [header] + [f"{t},{c!r},{n}" for t, c, n in rows]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(1, len(lines))), "")  # a blank line, skipped by both
    ending = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    tail = draw(st.sampled_from(["", ending]))
    return (ending.join(lines) + tail).encode()


@given(data=_files(), block=st.sampled_from([64, 100, 256, 1 << 20]), workers=st.integers(1, 3))
@settings(max_examples=300, deadline=None)
def test_same_batches_as_the_streaming_reader(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, block: int, workers: int
) -> None:
    path = tmp_path_factory.mktemp("csv") / "data.csv"
    path.write_bytes(data)
    try:
        ours = list(parallel_batches(path, NAMES, CONVERT, block, workers))
    except NotPlain:
        return  # e.g. a line longer than the block: the caller uses the streaming reader
    assert [b.to_pydict() for b in ours if b.num_rows] == [
        b.to_pydict() for b in _streaming(path, block) if b.num_rows
    ]


def test_batches_come_in_file_order_over_many_blocks(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    rows = [f"{i},{i}.5,n" for i in range(20_000)]
    path.write_bytes(("timestamp,close,note\n" + "\n".join(rows) + "\n").encode())
    batches = list(parallel_batches(path, NAMES, CONVERT, 4096, 2))
    assert len(batches) > 20
    stamps = [int(v) for b in batches for v in b.column(0).to_pylist()]
    assert stamps == list(range(20_000))


def test_conversion_error_comes_after_the_batches_before_it(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    rows = [f"{i},1.5,n" for i in range(5_000)]
    rows[4_000] = "4000,abc,n"
    path.write_bytes(("timestamp,close,note\n" + "\n".join(rows) + "\n").encode())
    batches = parallel_batches(path, NAMES, CONVERT, 4096, 2)
    seen = 0
    with pytest.raises(pa.ArrowInvalid):  # noqa: PT012 - the error must come mid-iteration
        for batch in batches:
            seen += batch.num_rows
    assert 0 < seen <= 4_000


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('timestamp,close,note\n1,2,"a,b"\n', NAMES),  # a quoted field
        ("timestamp,close,note\n1,2," + "x" * 200 + "\n3,4,y\n", NAMES),  # a line over a block
        ("timestamp,close,note\n1,2,3\n", ["timestamp", "close", "other"]),  # another header
        ("timestamp,close,note", NAMES),  # no newline at all
    ],
)
def test_files_it_cannot_cut_safely_are_not_plain(
    tmp_path: Path, text: str, names: list[str]
) -> None:
    path = tmp_path / "data.csv"
    path.write_bytes(text.encode())
    with pytest.raises(NotPlain):
        list(parallel_batches(path, names, CONVERT, 64, 2))


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_header_ends_at_its_own_line_end(tmp_path: Path, ending: str) -> None:
    path = tmp_path / "data.csv"
    path.write_bytes(ending.join(["timestamp,close,note", "1,2,a", "3,4,b\n5,6,c"]).encode())
    batches = list(parallel_batches(path, NAMES, CONVERT, 1 << 20, 2))
    assert [v for b in batches for v in b.column(0).to_pylist()] == [1, 3, 5]
