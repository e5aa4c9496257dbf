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

import math

import numba
import numpy as np
import numpy.typing as npt

from backtestd.engine.kernel_metrics import daily_ratios, with_fall
from backtestd.engine.prefetch import prefetch

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]

# Trade columns in the float matrix returned by the kernel.
T_ENTRY_PRICE, T_EXIT_PRICE, T_QTY, T_FEES, T_PNL, T_EQUITY_AFTER = range(6)
# Trade columns in the integer matrix.
T_ENTRY_TS, T_EXIT_TS, T_SIDE, T_ENTRIES, T_REASON = range(5)

_REASON_SIGNAL, _REASON_TAKE_PROFIT, _REASON_END = 0, 1, 2


_NEVER = 9_223_372_036_854_775_807  # int64 max: no further event
_AHEAD = 64  # marks: the equity pass asks for the marks this far ahead (engine/prefetch.py)
_EXACT_ESTIMATE = 1 << 52  # below it, d * (1 / step) is within one of d // step


@numba.njit(cache=True, nogil=True)
def floor_quotient(d: int, step: int, inv_step: float) -> int:
    """``d // step`` for ``0 <= d`` and ``step > 0``, given ``inv_step = 1.0 / step``.

    The quotient is estimated by a multiplication and corrected by integer compares: exact
    while the estimate is within one of it, which holds below 2**52 (beyond, the division).
    A 64-bit division on every mark of an open position cost more than the estimate.
    """
    if d >= _EXACT_ESTIMATE:
        return d // step
    q = int(d * inv_step)
    if q * step > d:
        return q - 1
    if (q + 1) * step <= d:
        return q + 1
    return q


@numba.njit(cache=True, nogil=True)
def new_instants(m_ts: I64, from_ms: int, step_ms: int) -> I8:
    """1 where a mark is on a later grid instant than the mark before it (the first mark: 1).

    The marks of a range are cut once per job (``portfolio.Marks``) and read by every trial:
    with these flags :func:`equity_pass` walks the marks of an open position without a grid
    quotient per mark (``from_ms <= m_ts``, non-decreasing, as ``Marks.cut`` leaves them).
    """
    n = m_ts.shape[0]
    out = np.empty(n, dtype=np.int8)
    inv_step = 1.0 / step_ms
    g_prev = -1
    for k in range(n):
        g = floor_quotient(m_ts[k] - from_ms, step_ms, inv_step)
        out[k] = 1 if g != g_prev else 0
        g_prev = g
    return out


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


# One loop with every step written out, on purpose: with the grid step and the drawdown step
# as helpers (even numba's inline="always") a 30-day 1 s trial took about 1 ms more.
@numba.njit(cache=True, nogil=True)
def equity_pass(  # noqa: C901
    from_ms: int,
    to_ms: int,
    step_ms: int,
    day_ms: int,
    book_ts: I64,
    book_f: F64,
    n_book: int,
    m_ts: I64,
    m_px: F64,
    m_new: I8,
    initial: float,
    final: float,
    store: bool,
) -> tuple[I64, F64, F64, float, float]:
    """The grid equity of a run, visited as runs: ``(run starts, run values, daily equity,
    max drawdown, max drawdown percent)``; the runs are stored only when ``store`` is set.

    The value at grid instant ``t`` is the account after the last fill strictly before it,
    valued at the last observation (mark or fill; a fill wins a tie) strictly before it. So it
    changes only at the first instant after a fill and, while a position is open, after a mark
    strictly later than the position's last fill. The loop visits those events in time order
    and offers each one's value from the first instant after it: a later offer for the same
    instant replaces the pending one (no instant showed it), an offer for a later instant
    closes the pending run. A closed run feeds the drawdown (``kernel_metrics._drawdown``'s
    result), the daily samples at the indices it covers (``kernel_metrics.daily_equity``), and,
    when stored, the run list (merged with the run before when the bits are equal; a zero
    may be -0.0 and always starts a run). The last instant (``to``) shows ``final``, the cash
    after the end-of-run close; the value it replaces is no run. A flat account costs nothing
    per grid instant or mark, and a trial stores nothing per mark: the drawdown and the daily
    equity are all its metrics need (``engine/equity_runs.py``).

    Without ``store``, the marks after an open position's first are walked in a loop of their
    own up to the next fill or day boundary: a mark closes the pending run where ``m_new``
    (:func:`new_instants`) says it starts an instant, and the instant is computed once, at the
    walk's end. That is the same sequence of runs (no run there samples a day or is stored),
    without the quotient, the event dispatch and the day check at every mark. With ``store``
    the runs' starts are needed, so ``m_new`` is not read (it may be empty). A closed run
    that is no new peak only lowers the peak's trough; the fall and its ratio are taken once
    per peak (``kernel_metrics.with_fall``).
    """
    count = (to_ms - from_ms + step_ms - 1) // step_ms  # instants before `to`; `to` is `count`
    inv_step = 1.0 / step_ms
    n_marks = m_ts.shape[0]
    cap = min(count + 1, n_book + n_marks + 1) + 1 if store else 0
    rs = np.empty(cap, dtype=np.int64)
    rv = np.empty(cap, dtype=np.float64)
    nr = 0
    last = np.nan  # the value of the last stored run
    days = (to_ms - from_ms + day_ms - 1) // day_ms
    daily = np.empty(days + 1, dtype=np.float64)
    daily[0] = initial  # the value at `from` (a one-instant grid: `from` is `to`, set below)
    nd = 1  # the next day boundary to sample, at grid index jd
    jd = day_ms // step_ms
    peak = -np.inf
    trough = np.inf  # the lowest value since the peak (none yet)
    fall_max = 0.0
    pct_max = 0.0
    pg, pv = 0, initial  # the pending run: from instant 0, the initial funding
    g, tg = 0, from_ms  # the first instant after the last event, and its time on the
    # arithmetic grid (from + count*step >= to stands for `to`: every event is before `to`)
    cash, held = initial, 0.0
    j = 0  # the next fill
    # The marks of the open position still to visit: from k, while before t_end (the next
    # fill). A bound in time rather than an index found by a search: the loop reads every one
    # of those marks anyway, so comparing each one's time costs less than a search per fill.
    k, k_end, t_end = 0, 0, _NEVER
    phase = 0  # 0: fills and marks, 1: the final cash offered, 2: the last run closed
    while True:
        marked = k < k_end and m_ts[k] < t_end
        if marked:
            x = m_ts[k]
            value = cash + held * m_px[k]
            k += 1
        elif j < n_book:
            x = book_ts[j]
            cash = book_f[j, 1]
            held = book_f[j, 2]
            value = cash + held * book_f[j, 0] if held != 0.0 else cash
            j += 1
            if held != 0.0:
                k = _seek(m_ts, k, n_marks, x + 1)  # a mark at the fill's ms loses the tie
                k_end = n_marks
                t_end = book_ts[j] if j < n_book else _NEVER
            else:
                k_end = k
        elif phase == 0:
            phase = 1
            x = tg - 1  # no move: the final cash is offered at `to`
            g = count
            value = final
        else:
            phase = 2
            x = tg - 1
            g = count + 1
            value = 0.0
        if tg <= x:
            # A walk of the instants up to x looped a varying number of times (the seconds
            # between two bars) and cost a mispredicted branch on most marks: 4.6 -> 2.5 ms a
            # vector over a month of 1 s bars with the quotient instead.
            g = floor_quotient(x - from_ms, step_ms, inv_step) + 1
            tg = from_ms + g * step_ms
        if g != pg:  # the pending run holds the instants pg .. g-1
            while nd < days and jd < g:
                daily[nd] = pv
                nd += 1
                jd = (nd * day_ms) // step_ms
            if pv > peak:  # a new peak ends the last one's fall
                fall_max, pct_max = with_fall(peak, trough, fall_max, pct_max)
                peak = pv
                trough = np.inf
            elif pv < trough:
                trough = pv
            if store and (pv != last or pv == 0.0):
                rs[nr] = pg
                rv[nr] = pv
                nr += 1
                last = pv
            pg = g
        pv = value
        if phase == 2:
            break
        if marked and not store:  # the open position's next marks, up to a fill or a day
            lim = t_end
            if nd < days:
                t_day = from_ms + jd * step_ms
                if t_day < lim:
                    lim = t_day
            k0 = k  # the walk: each run closes as the branch below closes it
            while k < k_end and m_ts[k] < lim:
                prefetch(m_ts, k + _AHEAD)  # the next stretch too, past a short flat one
                prefetch(m_px, k + _AHEAD)
                if m_new[k] != 0:
                    if pv > peak:
                        fall_max, pct_max = with_fall(peak, trough, fall_max, pct_max)
                        peak = pv
                        trough = np.inf
                    elif pv < trough:
                        trough = pv
                pv = cash + held * m_px[k]
                k += 1
            if k > k0:
                g = floor_quotient(m_ts[k - 1] - from_ms, step_ms, inv_step) + 1
                tg = from_ms + g * step_ms
                pg = g
    daily[days] = final
    fall_max, pct_max = with_fall(peak, trough, fall_max, pct_max)
    if not math.isfinite(fall_max):
        fall_max = 0.0
    pct_max = pct_max * 100.0
    if not math.isfinite(pct_max):
        pct_max = 0.0
    return rs[:nr], rv[:nr], daily, fall_max, pct_max


@numba.njit(cache=True, nogil=True)
def run_kernel(  # noqa: C901 - its steps are closures inside it, see below
    s_ts: I64,
    s_side: I8,
    s_px: F64,
    m_ts: I64,
    m_px: F64,
    m_new: I8,
    from_ms: int,
    to_ms: int,
    step_ms: int,
    day_ms: int,
    cfg: F64,
    mode: I64,
) -> tuple[F64, I64, int, I64, F64, F64, float, float, float, int]:
    """One backtest over signals and marks already cut to the run range ``[from, to)``.

    ``m_new`` is ``new_instants(m_ts, from_ms, step_ms)``. ``step_ms`` is the equity grid's
    cadence (``grid_timestamps(from_ms, to_ms, step_ms)``), ``day_ms`` the daily sampling's
    day. ``cfg`` = ``[initial, buy_rate, sell_rate,
    buy_fee_base, sell_fee_base, pct_lock (nan = none), percent_gain (nan = none)]``;
    ``mode`` = ``[position_side, multi_entry]``. Returns ``(trade floats [n, 6], trade ints
    [n, 5], n_trades, book timestamps, book [fill price, account value, signed units],
    daily equity, max drawdown, max drawdown percent, final cash, ignored signals)``; only
    the first ``n_trades`` trade rows are meaningful. The book (the account after each fill)
    and the marks are what :func:`equity_pass` needs to give the grid equity's runs again.
    """
    n_sig = s_ts.shape[0]
    n_marks = m_ts.shape[0]
    initial = cfg[0]
    fees_cfg = np.empty(4, dtype=np.float64)  # buy_rate, sell_rate, buy_fee_base, sell_fee_base
    fees_cfg[0] = cfg[1]
    fees_cfg[1] = cfg[2]
    fees_cfg[2] = cfg[3]
    fees_cfg[3] = cfg[4]
    pct = cfg[5]
    gain = cfg[6]
    take_profit = not np.isnan(gain)
    pos_side = mode[0]
    multi = mode[1] != 0
    # free, locked, cash, units, fees, notional, gross_qty, first_price
    st = np.zeros(8, dtype=np.float64)
    st[0] = initial
    # open (0/1), side, entry_ts, entries, n_trades, n_book
    si = np.zeros(6, dtype=np.int64)
    cap = 2 * n_sig + 2
    book_ts = np.empty(cap, dtype=np.int64)
    book_f = np.empty((cap, 3), dtype=np.float64)
    tf = np.empty((n_sig + 1, 6), dtype=np.float64)
    ti = np.empty((n_sig + 1, 5), dtype=np.int64)
    ignored = 0
    done = 0

    # The steps below are closures on purpose: numba inlines them and they read the arrays
    # above as they are. As functions taking those arrays, each call counted a reference to
    # every array it was passed and released it again (two atomic operations per array): 80 %
    # of a signal's cost, 2.0 -> 1.0x the kernel's time on a run of 60,000 signals.

    def _close(ts: int, price: float, reason: int) -> None:
        """Closes the position at ``price``: a book entry (unless the run's end), a trade."""
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

    def _enter(ts: int, side: int, price: float) -> bool:
        """Opens or adds to a position with the lockable cash; False when there is none."""
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

    def _take_profit(lo: int, hi: int) -> None:
        """Closes the position at the first of marks ``lo .. hi-1`` that reaches the gain."""
        if si[0] == 0 or np.isnan(gain) or lo >= hi:
            return
        entry_price = st[7] if si[3] == 1 else st[5] / st[6]
        if si[1] == 1:
            target = entry_price * (100.0 + gain) / 100.0
            for k in range(lo, hi):
                if m_px[k] >= target:
                    _close(m_ts[k], m_px[k], _REASON_TAKE_PROFIT)
                    return
        else:
            target = entry_price * (100.0 - gain) / 100.0
            for k in range(lo, hi):
                if m_px[k] <= target:
                    _close(m_ts[k], m_px[k], _REASON_TAKE_PROFIT)
                    return

    for i in range(n_sig):
        ts = s_ts[i]
        # Marks at or before the signal's millisecond come first (found by a search, not a
        # walk: a flat position or no take-profit has nothing to do with the marks between).
        # Without a take-profit nothing reads them: no search at all.
        if take_profit:
            hi = _seek(m_ts, done, n_marks, ts + 1)
            _take_profit(done, hi)
            done = hi
        side = int(s_side[i])
        price = s_px[i]
        if si[0] == 0:
            if side == pos_side:
                if not _enter(ts, side, price):
                    ignored += 1
            else:
                ignored += 1
        elif side == si[1]:
            if multi:
                if not _enter(ts, side, price):
                    ignored += 1
            else:
                ignored += 1
        else:
            _close(ts, price, _REASON_SIGNAL)
    _take_profit(done, n_marks)
    if si[0] == 1:
        k = si[5] - 1
        last_ts = book_ts[k]
        last_px = book_f[k, 0]
        if n_marks > 0 and m_ts[n_marks - 1] > last_ts:
            last_ts = m_ts[n_marks - 1]
            last_px = m_px[n_marks - 1]
        _close(last_ts, last_px, _REASON_END)
    n_book = si[5]
    _, _, daily, dd, dd_pct = equity_pass(
        from_ms, to_ms, step_ms, day_ms, book_ts, book_f, n_book, m_ts, m_px, m_new, initial,
        st[0], False,
    )  # fmt: skip
    return tf, ti, si[4], book_ts[:n_book], book_f[:n_book], daily, dd, dd_pct, st[0], ignored


def warm_up() -> None:
    """Compile (or load from the cache) every kernel specialisation a run uses.

    Those are :func:`run_kernel` (which compiles its helpers), :func:`equity_pass` storing
    the runs (a full-grid equity asked for) and the daily ratios. The metrics over runs and
    over a full grid (``kernel_metrics.run_stats``/``equity_stats``) are the tests' second
    forms, not a run's, so a worker does not load them as it starts.
    """
    ts = np.array([0, 1000], dtype=np.int64)
    px = np.array([10.0, 11.0])
    cfg = np.array([100.0, 0.001, 0.001, 1.0, 0.0, np.nan, np.nan])
    new = new_instants(ts, 0, 1000)
    _, _, _, book_ts, book_f, daily, _, _, final, _ = run_kernel(
        ts, np.array([1, -1], dtype=np.int8), px, ts, px, new, 0, 2000, 1000, 86_400_000, cfg,
        np.array([1, 0], dtype=np.int64),
    )  # fmt: skip
    daily_ratios(daily)
    equity_pass(  # storing the runs: the specialisation a full-grid equity compiles
        0, 2000, 1000, 86_400_000, book_ts, book_f, book_ts.shape[0], ts, px, new, 100.0, final,
        True,
    )  # fmt: skip
