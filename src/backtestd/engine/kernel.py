"""The compiled per-trial kernel: signals -> fills -> trades -> equity runs on the grid.

This is the hot path of ``execute`` and of a sweep shard. It is one sequential numba loop
with the same event order, fee arithmetic and float operations as the rules in
``docs/metrics.md`` (the readable Python twin lives in ``tests/unit/engine/reference_portfolio.py``
and the property tests hold the two to the same bits). Arrays go in, flat arrays come out:
the caller loads the prepared columns once and can call :func:`run_kernel` once per
parameter vector without anything growing between calls. The equity comes out as runs
(``engine/equity_runs.py``): its cost follows the fills and the marks of open positions, not
the length of the grid. ``cache=True`` writes the machine code next to the module, so the JIT
compile is paid once per installation, not per worker or per call (:func:`warm_up` pays it at
worker start when the cache is cold).
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]

# Trade columns in the float matrix returned by the kernel.
T_ENTRY_PRICE, T_EXIT_PRICE, T_QTY, T_FEES, T_PNL, T_EQUITY_AFTER = range(6)
# Trade columns in the integer matrix.
T_ENTRY_TS, T_EXIT_TS, T_SIDE, T_ENTRIES, T_REASON = range(5)

_REASON_SIGNAL, _REASON_TAKE_PROFIT, _REASON_END = 0, 1, 2


@numba.njit(cache=True, nogil=True)
def _close(
    st: F64,  # free, locked, cash, units, fees, notional, gross_qty, first_price
    si: I64,  # open(0/1), side, entry_ts, entries, n_trades, n_book
    ts: int,
    price: float,
    reason: int,
    fees_cfg: F64,  # buy_rate, sell_rate, buy_fee_base, sell_fee_base
    tf: F64,
    ti: I64,
    book_ts: I64,
    book_f: F64,
) -> None:
    buy_rate, sell_rate = fees_cfg[0], fees_cfg[1]
    units = st[3]
    if si[1] == 1:
        # sell_base
        if fees_cfg[3] != 0.0:
            notional = units / (1.0 + sell_rate) * price
            value = notional
            fee = notional * sell_rate
        else:
            notional = units * price
            value = notional - notional * sell_rate
            fee = notional * sell_rate
    else:
        # buy_base covers the short
        if fees_cfg[2] != 0.0:
            notional = units / (1.0 - buy_rate) * price
            paid = notional
            fee = notional * buy_rate
        else:
            notional = units * price
            paid = notional + notional * buy_rate
            fee = notional * buy_rate
        value = st[2] - paid
    st[0] += value
    si[0] = 0
    if reason != _REASON_END:
        k = si[5]
        book_ts[k] = ts
        book_f[k, 0] = price
        book_f[k, 1] = st[0]
        book_f[k, 2] = 0.0
        si[5] = k + 1
    n = si[4]
    entry_price = st[7] if si[3] == 1 else st[5] / st[6]
    tf[n, T_ENTRY_PRICE] = entry_price
    tf[n, T_EXIT_PRICE] = price
    tf[n, T_QTY] = units
    tf[n, T_FEES] = st[4] + fee
    tf[n, T_PNL] = value - st[1]
    tf[n, T_EQUITY_AFTER] = st[0]
    ti[n, T_ENTRY_TS] = si[2]
    ti[n, T_EXIT_TS] = ts
    ti[n, T_SIDE] = si[1]
    ti[n, T_ENTRIES] = si[3]
    ti[n, T_REASON] = reason
    si[4] = n + 1


@numba.njit(cache=True, nogil=True)
def _enter(
    st: F64,
    si: I64,
    ts: int,
    side: int,
    price: float,
    pct: float,
    fees_cfg: F64,
    book_ts: I64,
    book_f: F64,
) -> bool:
    amount = st[0] if np.isnan(pct) else st[0] * (pct / 100.0)
    if not amount > 0.0:
        return False
    if si[0] == 0:
        si[0] = 1
        si[1] = side
        si[2] = ts
        si[3] = 0
        st[1] = 0.0
        st[2] = 0.0
        st[3] = 0.0
        st[4] = 0.0
        st[5] = 0.0
        st[6] = 0.0
        st[7] = price
    if side == 1:
        rate = fees_cfg[0]
        if fees_cfg[2] != 0.0:
            gross = amount / price
            units = gross - gross * rate
            fee = amount * rate
        else:
            notional = amount / (1.0 + rate)
            units = notional / price
            fee = notional * rate
    else:
        rate = fees_cfg[1]
        sold = amount / price
        if fees_cfg[3] != 0.0:
            units = sold + sold * rate
            received = amount
        else:
            units = sold
            received = amount - amount * rate
        fee = amount * rate
        st[2] += amount + received
    st[0] -= amount
    st[1] += amount
    st[3] += units
    st[4] += fee
    st[5] += amount
    st[6] += amount / price
    si[3] += 1
    k = si[5]
    book_ts[k] = ts
    book_f[k, 0] = price
    book_f[k, 1] = st[0] + st[2]
    book_f[k, 2] = side * st[3]
    si[5] = k + 1
    return True


@numba.njit(cache=True, nogil=True)
def _take_profit(
    st: F64,
    si: I64,
    lo: int,
    hi: int,
    m_ts: I64,
    m_px: F64,
    gain: float,
    fees_cfg: F64,
    tf: F64,
    ti: I64,
    book_ts: I64,
    book_f: F64,
) -> None:
    if si[0] == 0 or np.isnan(gain) or lo >= hi:
        return
    entry_price = st[7] if si[3] == 1 else st[5] / st[6]
    if si[1] == 1:
        target = entry_price * (100.0 + gain) / 100.0
        for k in range(lo, hi):
            if m_px[k] >= target:
                _close(
                    st, si, m_ts[k], m_px[k], _REASON_TAKE_PROFIT, fees_cfg, tf, ti, book_ts, book_f
                )
                return
    else:
        target = entry_price * (100.0 - gain) / 100.0
        for k in range(lo, hi):
            if m_px[k] <= target:
                _close(
                    st, si, m_ts[k], m_px[k], _REASON_TAKE_PROFIT, fees_cfg, tf, ti, book_ts, book_f
                )
                return


_NEVER = 9_223_372_036_854_775_807  # int64 max: no further event


@numba.njit(cache=True, nogil=True)
def _seek(a: I64, i: int, n: int, t: int) -> int:
    """The first index at or after ``i`` (and below ``n``) whose timestamp is not before ``t``.

    A galloping search: steps of 1, 2, 4, ... from ``i``, then halving. It costs the log of
    the distance, in memory next to ``i``: a binary search over the rest of a million marks
    missed the cache on most of its steps, and a walk costs the whole distance.
    """
    if i >= n or a[i] >= t:
        return i
    lo = i  # a[lo] < t
    hi = i + 1
    step = 1
    while hi < n and a[hi] < t:
        lo = hi
        step *= 2
        hi = lo + step
    if hi > n:
        hi = n
    while hi - lo > 1:  # a[lo] < t, and hi == n or a[hi] >= t
        mid = (lo + hi) >> 1
        if a[mid] < t:
            lo = mid
        else:
            hi = mid
    return hi


@numba.njit(cache=True, nogil=True)
def _equity_runs(
    from_ms: int,
    to_ms: int,
    step_ms: int,
    book_ts: I64,
    book_f: F64,
    n_book: int,
    m_ts: I64,
    m_px: F64,
    initial: float,
    final: float,
) -> tuple[I64, F64]:
    """The grid equity as runs ``(start index, value)``; see ``engine/equity_runs.py``.

    The value at grid instant ``t`` is the account after the last fill strictly before it,
    valued at the last observation (mark or fill; a fill wins a tie) strictly before it. So it
    changes only at the first instant after a fill and, while a position is open, after a mark
    strictly later than the position's last fill. The loop visits those events in time order
    and offers each one's value from the first instant after it: a later offer for the same
    instant replaces the pending one (no instant showed it), an offer for a later instant
    stores the pending run unless it has the bits of the run before it (a zero may be -0.0,
    so it always starts a run). A flat account costs nothing per grid instant or mark. The
    last instant (``to``) shows ``final``, the cash after the end-of-run close; the value it
    replaces is not a run. (The step is written out twice, for fills and for marks, rather
    than called: numba did not inline a cached helper returning a tuple, and the calls
    tripled the time of a trial.)
    """
    count = (to_ms - from_ms + step_ms - 1) // step_ms  # instants before `to`; `to` is `count`
    n_marks = m_ts.shape[0]
    cap = min(count + 1, n_book + n_marks + 1) + 1
    rs = np.empty(cap, dtype=np.int64)
    rv = np.empty(cap, dtype=np.float64)
    nr = 0
    pg, pv = 0, initial  # the pending run: from instant 0, the initial funding
    g, tg = 0, from_ms  # the first instant after the last event, and its time on the
    # arithmetic grid (from + count*step >= to stands for `to`: every event is before `to`)
    last = np.nan  # the value of the last stored run
    im = 0  # the first mark not yet visited
    for j in range(n_book):
        # A fill: the account changes, valued at the fill's own price.
        x = book_ts[j]
        cash = book_f[j, 1]
        held = book_f[j, 2]
        value = cash + held * book_f[j, 0] if held != 0.0 else cash
        if tg <= x:
            if x - tg < 8 * step_ms:
                while tg <= x:
                    g += 1
                    tg += step_ms
            else:
                g = (x - from_ms) // step_ms + 1
                tg = from_ms + g * step_ms
        if g != pg:
            if pv != last or pv == 0.0:
                rs[nr] = pg
                rv[nr] = pv
                nr += 1
                last = pv
            pg = g
        pv = value
        if held == 0.0:
            continue
        # A position is open: each mark after the fill and before the next one re-values it.
        lo = _seek(m_ts, im, n_marks, x + 1)  # a mark at the fill's millisecond loses the tie
        im = _seek(m_ts, lo, n_marks, book_ts[j + 1]) if j + 1 < n_book else n_marks
        for k in range(lo, im):  # a counted loop: numba's while loop was twice as slow here
            x = m_ts[k]
            value = cash + held * m_px[k]
            if tg <= x:
                if x - tg < 8 * step_ms:
                    while tg <= x:
                        g += 1
                        tg += step_ms
                else:
                    g = (x - from_ms) // step_ms + 1
                    tg = from_ms + g * step_ms
            if g != pg:
                if pv != last or pv == 0.0:
                    rs[nr] = pg
                    rv[nr] = pv
                    nr += 1
                    last = pv
                pg = g
            pv = value
    if count != pg:  # the last instant shows the final cash
        if pv != last or pv == 0.0:
            rs[nr] = pg
            rv[nr] = pv
            nr += 1
            last = pv
    if final != last or final == 0.0:
        rs[nr] = count
        rv[nr] = final
        nr += 1
    return rs[:nr], rv[:nr]


@numba.njit(cache=True, nogil=True)
def run_kernel(
    s_ts: I64,
    s_side: I8,
    s_px: F64,
    m_ts: I64,
    m_px: F64,
    from_ms: int,
    to_ms: int,
    step_ms: int,
    cfg: F64,
    mode: I64,
) -> tuple[F64, I64, int, I64, F64, float, int]:
    """One backtest over signals and marks already cut to the run range ``[from, to)``.

    ``step_ms`` is the equity grid's cadence (``grid_timestamps(from_ms, to_ms, step_ms)``).
    ``cfg`` = ``[initial, buy_rate, sell_rate, buy_fee_base, sell_fee_base, pct_lock (nan =
    none), percent_gain (nan = none)]``; ``mode`` = ``[position_side, multi_entry]``.
    Returns ``(trade floats [n, 6], trade ints [n, 5], n_trades, equity run starts, equity
    run values, final cash, ignored signals)``; only the first ``n_trades`` trade rows are
    meaningful, and the runs are those of ``engine/equity_runs.EquityRuns``.
    """
    n_sig = s_ts.shape[0]
    n_marks = m_ts.shape[0]
    initial = cfg[0]
    fees_cfg = np.empty(4, dtype=np.float64)
    fees_cfg[0] = cfg[1]
    fees_cfg[1] = cfg[2]
    fees_cfg[2] = cfg[3]
    fees_cfg[3] = cfg[4]
    pct = cfg[5]
    gain = cfg[6]
    pos_side = mode[0]
    multi = mode[1] != 0
    st = np.zeros(8, dtype=np.float64)
    st[0] = initial
    si = np.zeros(6, dtype=np.int64)
    cap = 2 * n_sig + 2
    book_ts = np.empty(cap, dtype=np.int64)
    book_f = np.empty((cap, 3), dtype=np.float64)
    tf = np.empty((n_sig + 1, 6), dtype=np.float64)
    ti = np.empty((n_sig + 1, 5), dtype=np.int64)
    ignored = 0
    done = 0
    for i in range(n_sig):
        ts = s_ts[i]
        # Marks at or before the signal's millisecond come first (found by a search, not a
        # walk: a flat position or no take-profit has nothing to do with the marks between).
        hi = _seek(m_ts, done, n_marks, ts + 1)
        _take_profit(st, si, done, hi, m_ts, m_px, gain, fees_cfg, tf, ti, book_ts, book_f)
        done = hi
        side = int(s_side[i])
        price = s_px[i]
        if si[0] == 0:
            if side == pos_side:
                if not _enter(st, si, ts, side, price, pct, fees_cfg, book_ts, book_f):
                    ignored += 1
            else:
                ignored += 1
        elif side == si[1]:
            if multi:
                if not _enter(st, si, ts, side, price, pct, fees_cfg, book_ts, book_f):
                    ignored += 1
            else:
                ignored += 1
        else:
            _close(st, si, ts, price, _REASON_SIGNAL, fees_cfg, tf, ti, book_ts, book_f)
    _take_profit(st, si, done, n_marks, m_ts, m_px, gain, fees_cfg, tf, ti, book_ts, book_f)
    if si[0] == 1:
        k = si[5] - 1
        last_ts = book_ts[k]
        last_px = book_f[k, 0]
        if n_marks > 0 and m_ts[n_marks - 1] > last_ts:
            last_ts = m_ts[n_marks - 1]
            last_px = m_px[n_marks - 1]
        _close(st, si, last_ts, last_px, _REASON_END, fees_cfg, tf, ti, book_ts, book_f)
    run_start, run_value = _equity_runs(
        from_ms, to_ms, step_ms, book_ts, book_f, si[5], m_ts, m_px, initial, st[0]
    )
    return tf, ti, si[4], run_start, run_value, st[0], ignored


def warm_up() -> None:
    """Compile (or load from the cache) every kernel specialisation a run uses.

    Those are :func:`run_kernel` (which compiles its helpers), the metrics of its runs, and
    the full-grid metrics that tests and the readable formulas use.
    """
    from backtestd.engine.kernel_metrics import daily_equity_runs, equity_stats, run_stats

    ts = np.array([0, 1000], dtype=np.int64)
    px = np.array([10.0, 11.0])
    cfg = np.array([100.0, 0.001, 0.001, 1.0, 0.0, np.nan, np.nan])
    _, _, _, start, value, _, _ = run_kernel(
        ts, np.array([1, -1], dtype=np.int8), px, ts, px, 0, 2000, 1000, cfg,
        np.array([1, 0], dtype=np.int64),
    )  # fmt: skip
    run_stats(start, value, 0, 2000, 1000, 86_400_000)
    daily_equity_runs(start, value, 0, 2000, 1000, 86_400_000)
    equity_stats(np.array([100.0, 100.0, 99.0]), np.array([0, 1000, 2000]), 86_400_000)
