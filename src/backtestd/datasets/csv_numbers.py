r"""A compiled parser for the common shape of an uploaded CSV block: plain decimal numbers.

Arrow's CSV reader spends about 30 ns converting each float cell's text to a double, about
70 % of an ingest's CPU. Most uploads are written by a program: every row has the header's
field count, every cell we read is ``[-+]?digits[.digits]`` with a handful of digits. For that
shape this numba kernel splits the block at commas and line ends (``\n`` or ``\r\n``) and
converts each selected cell with Clinger's fast path: the cell's digits without the point are
an integer ``m``; with ``k`` digits after the point, when ``m <= 2**53`` (a double holds it
exactly) and ``k <= 22`` (a double holds ``10**k`` exactly), ``float(m) / 10.0**k`` is a single
correctly rounded IEEE division, so it is the correctly rounded value of the text, the same
double arrow's parser (and Python's ``float``) gives, bit for bit.

Anything else makes :func:`parse_block` answer "not plain" for the whole block and the caller
parses that block with arrow as before, so every result and every error message stays arrow's:
an empty cell, a sign or point without digits, an exponent, ``nan``/``inf`` or other letters,
spaces or tabs, more than 18 digits in all (leading zeros count) or a mantissa above ``2**53``
(so ``k <= 18``), a lone ``\r``, an empty line, a row with another field count, and in the
cells not read any byte outside printable ASCII. (Arrow accepts ``+1``, ``.5``, ``5.`` and
``-0`` as this kernel reads them: tested.) Arrow's default null values (``NaN``, ``N/A``,
``NULL``, ...) all hold letters, so no cell this kernel reads would have been a null.

The kernel releases the GIL (``nogil=True``): the ingest's thread pool runs one per core.
``cache=True`` keeps the machine code next to the module; :func:`warm_up` loads it at worker
start.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]

SKIP = -1
"""``targets`` entry of a field the caller does not read."""

_MAX_MANTISSA = 2**53
_POWERS = np.array([10.0**k for k in range(23)], dtype=np.float64)  # exact doubles

_NL, _CR, _COMMA, _DOT, _MINUS, _PLUS, _ZERO, _NINE = 10, 13, 44, 46, 45, 43, 48, 57


@numba.njit(cache=True, nogil=True)
def _count_rows(buf: npt.NDArray[np.uint8]) -> int:
    rows = 0
    for i in range(buf.shape[0]):
        if buf[i] == _NL:
            rows += 1
    return rows


@numba.njit(cache=True, nogil=True)
def _parse(  # noqa: C901 - one loop on purpose: split into compiled helpers it ran 4x slower
    buf: npt.NDArray[np.uint8], targets: npt.NDArray[np.int64], out: F64, powers: F64
) -> bool:
    r"""Fill ``out[target, row]`` (one row per ``\n`` of ``buf``, whose last byte is one);
    False at the first thing outside the plain shape.

    Per cell: an optional sign, digits, an optional point and digits (at most 18 digits in
    all, so the int64 mantissa cannot overflow, and at most 2**53), then ``m / 10.0**k``.
    The final ``\n`` is the sentinel that ends every scan, so the loops test bytes, not the
    index: each row ends at its own ``\n`` (a ``\n`` inside a row is refused), so a row
    never reads past the last byte, and ``rows`` rows end exactly at it.
    """
    n = buf.shape[0]
    n_fields = targets.shape[0]
    i = 0
    for row in range(out.shape[1]):
        for field in range(n_fields):
            target = targets[field]
            if target < 0:
                c = buf[i]
                while c != _COMMA and c != _NL and c != _CR:
                    if c < 32 or c > 126:
                        return False
                    i += 1
                    c = buf[i]
            else:
                c = buf[i]
                negative = c == _MINUS
                if negative or c == _PLUS:
                    i += 1
                start = i
                m = 0
                d = buf[i] - _ZERO
                while 0 <= d <= 9:
                    m = m * 10 + d
                    i += 1
                    d = buf[i] - _ZERO
                digits = i - start
                k = 0
                if buf[i] == _DOT:
                    i += 1
                    point = i
                    d = buf[i] - _ZERO
                    while 0 <= d <= 9:
                        m = m * 10 + d
                        i += 1
                        d = buf[i] - _ZERO
                    k = i - point
                    digits += k
                if digits == 0 or digits > 18 or m > _MAX_MANTISSA:
                    return False
                value = float(m) / powers[k] if k else float(m)  # integers: no division
                out[target, row] = -value if negative else value
            # A comma ends a field before the last, a line end (``\n`` or ``\r\n``) the last.
            c = buf[i]
            if field < n_fields - 1:
                if c != _COMMA:
                    return False
            else:
                if c == _CR and i + 1 < n:
                    i += 1
                    c = buf[i]
                if c != _NL:
                    return False
            i += 1
    return i == n


@numba.njit(cache=True, nogil=True)
def _parse_block(
    buf: npt.NDArray[np.uint8], targets: npt.NDArray[np.int64], n_out: int, powers: F64
) -> tuple[F64, bool]:
    out = np.empty((n_out, _count_rows(buf)), dtype=np.float64)
    return out, _parse(buf, targets, out, powers)


def _read_only(buf: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """``buf`` as the one array type the kernel is compiled (and warmed) for: a read-only
    view, as ``np.frombuffer`` of the ``pread`` bytes is. A writable array would be another
    numba specialisation, compiled on the spot in the middle of an ingest."""
    if not buf.flags.writeable:
        return buf
    view = buf.view()
    view.flags.writeable = False
    return view


def parse_block(buf: npt.NDArray[np.uint8], targets: npt.NDArray[np.int64]) -> F64 | None:
    """The selected columns of a block of CSV rows (no header), one row of the result per
    column: field ``f`` of each line goes to ``result[targets[f]]`` (``SKIP``: not read).

    None when the block is not in the plain shape (module docstring): parse it with arrow.
    An empty block gives zero rows. The GIL is released while the kernel runs.
    """
    n_out = int(targets.max()) + 1 if targets.size else 0
    if buf.size and buf[-1] == _CR:  # a lone ``\r`` ends the line for arrow: its path
        return None
    if buf.size and buf[-1] != _NL:  # the file's last line, without a line end
        buf = np.concatenate((buf, np.array([_NL], dtype=np.uint8)))
    out, plain = _parse_block(_read_only(buf), np.asarray(targets, dtype=np.int64), n_out, _POWERS)
    return out if plain else None


def warm_up() -> None:
    """Compile (or load from the cache) the kernel, so a worker's first ingest does not."""
    parse_block(np.frombuffer(b"1,2.5\n", dtype=np.uint8), np.array([0, 1], dtype=np.int64))
