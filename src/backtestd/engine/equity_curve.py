"""The equity curve served to clients: points, downsampling and delta encoding.

The curve is realised equity. The first point is the backtest ``from`` with the initial
funding, and then there is one point per closed trade with the cash right after it, so the
curve ends at ``initial + pnlTotal``. The risk metrics use the denser mark-to-market grid
instead (see ``docs/metrics.md``). The transforms run in the wire's order (resample, then
differential, then outMode), and ``meta`` reports what was actually done, because clients
trust ``meta`` rather than their request.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from backtestd.domain.equity import EquityCurveMeta, OutMode, ShapedCurve
from backtestd.engine.portfolio import PortfolioResult

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


def equity_points(result: PortfolioResult) -> tuple[I64, F64]:
    """Timestamps and equities of the realised curve of a run (``len(trades) + 1`` points).

    >>> from backtestd.engine.portfolio import PortfolioConfig, simulate
    >>> ts = np.array([0, 60_000], dtype=np.int64)
    >>> r = simulate(
    ...     ts, np.array([1, -1], dtype=np.int8), np.array([10.0, 12.0]),
    ...     ts, np.array([10.0, 12.0]), from_ms=0, to_ms=120_000, grid_step_ms=60_000,
    ...     config=PortfolioConfig(buy_fee_rate=0.0, sell_fee_rate=0.0),
    ... )
    >>> [a.tolist() for a in equity_points(r)]
    [[0, 60000], [100.0, 120.0]]
    """
    ts = np.concatenate([np.array([result.from_ms], dtype=np.int64), result.trades.exit_ts])
    eq = np.concatenate(
        [np.array([result.config.initial_funding], dtype=np.float64), result.trades.equity_after]
    )
    return ts.astype(np.int64), eq.astype(np.float64)


def _bucket_extrema(values: F64, nb: int) -> npt.NDArray[np.intp]:
    """Indices of the first minimum and first maximum of ``nb`` equal-count buckets of the
    interior points ``1 .. n-2``."""
    n = values.shape[0]
    interior = n - 2
    starts = 1 + (np.arange(nb, dtype=np.int64) * interior) // nb
    sizes = np.diff(np.append(starts, n - 1))
    inner = values[1 : n - 1]
    bucket = np.repeat(np.arange(nb), sizes)
    picks = []
    for reduce in (np.minimum, np.maximum):
        best = reduce.reduceat(inner, starts - 1)
        hits = np.flatnonzero(inner == np.repeat(best, sizes))
        _, first = np.unique(bucket[hits], return_index=True)
        picks.append(hits[first] + 1)
    return np.concatenate(picks)


def resample(ts: I64, eq: F64, max_points: int) -> tuple[I64, F64]:
    """Downsample to at most ``max_points`` points, keeping extremes.

    The exact first and last points are always kept, and so are the global maximum and
    minimum (their first occurrences). The interior is cut into ``(max_points - 2) // 2``
    buckets of equal point count, and the first minimum and first maximum of each bucket are
    kept, in time order. That includes the global extremes and is deterministic. With
    ``max_points`` of 2 or 3 there is no room for buckets: the global maximum, then the
    minimum, are added while room is left. A curve that already fits is returned unchanged.

    >>> ts = np.arange(8, dtype=np.int64)
    >>> eq = np.array([5.0, 6.0, 9.0, 4.0, 5.0, 1.0, 7.0, 6.0])
    >>> [a.tolist() for a in resample(ts, eq, 4)]
    [[0, 2, 5, 7], [5.0, 9.0, 1.0, 6.0]]
    """
    if max_points < 2:
        raise ValueError("max_points must be at least 2")
    n = int(ts.shape[0])
    if eq.shape != ts.shape:
        raise ValueError("timestamps and equities must have one length")
    if n <= max_points:
        return ts.copy(), eq.copy()
    if not bool(np.all(np.isfinite(eq))):
        raise ValueError("equities must be finite")
    keep = {0, n - 1}
    nb = (max_points - 2) // 2
    if nb > 0:
        keep.update(_bucket_extrema(eq, nb).tolist())
    else:
        for extreme in (int(np.argmax(eq)), int(np.argmin(eq))):
            if len(keep) < max_points:
                keep.add(extreme)
    idx = np.array(sorted(keep), dtype=np.intp)
    return ts[idx], eq[idx]


def differential(ts: I64, eq: F64) -> tuple[I64, F64]:
    """Delta-encode both fields from the second point on. The first point stays absolute.

    >>> [a.tolist() for a in differential(np.array([10, 15, 40]), np.array([100.0, 101.5, 99.5]))]
    [[10, 5, 25], [100.0, 1.5, -2.0]]
    """
    if ts.shape[0] < 2:
        return ts.copy(), eq.copy()
    d_ts = np.concatenate([ts[:1], np.diff(ts)])
    d_eq = np.concatenate([eq[:1], np.diff(eq)])
    return d_ts.astype(np.int64), d_eq.astype(np.float64)


def transform(
    ts: I64,
    eq: F64,
    *,
    resample_to: int | None = None,
    delta: bool = False,
    out_mode: OutMode = OutMode.ARRAY,
    force_short_above: int | None = None,
) -> tuple[I64, F64, EquityCurveMeta]:
    """Apply resample, then differential, and settle the shape. Returns the arrays and meta.

    ``force_short_above`` is the server's size threshold: a curve with more output points than
    this is served as ``SHORT`` whatever was asked.

    >>> _, _, meta = transform(np.array([0]), np.array([100.0]), resample_to=5, delta=True)
    >>> meta  # doctest: +NORMALIZE_WHITESPACE
    EquityCurveMeta(input_point_count=1, output_point_count=1, resampled=False,
                    differential=False, out_mode=<OutMode.ARRAY: 'ARRAY'>)
    """
    n_in = int(ts.shape[0])
    if resample_to is not None:
        ts, eq = resample(ts, eq, resample_to)
    n_out = int(ts.shape[0])
    encoded = delta and n_out >= 2
    if encoded:
        ts, eq = differential(ts, eq)
    mode = OutMode(out_mode)
    if force_short_above is not None and n_out > force_short_above:
        mode = OutMode.SHORT
    meta = EquityCurveMeta(n_in, n_out, n_out != n_in, encoded, mode)
    return ts, eq, meta


def build_equity_curve(
    ts: I64,
    eq: F64,
    *,
    resample_to: int | None = None,
    delta: bool = False,
    out_mode: OutMode = OutMode.ARRAY,
    force_short_above: int | None = None,
) -> ShapedCurve:
    """The curve as served: the transforms applied, plain numbers, and its ``meta``.

    >>> build_equity_curve(np.array([0, 60_000]), np.array([100.0, 101.0])).equities
    (100.0, 101.0)
    >>> build_equity_curve(np.array([0]), np.array([1.0]), out_mode=OutMode.SHORT).meta.out_mode
    <OutMode.SHORT: 'SHORT'>
    """
    out_ts, out_eq, meta = transform(
        ts,
        eq,
        resample_to=resample_to,
        delta=delta,
        out_mode=out_mode,
        force_short_above=force_short_above,
    )
    stamps = tuple(int(t) for t in out_ts.tolist())
    values = tuple(float(v) for v in out_eq.tolist())
    return ShapedCurve(stamps, values, meta)
