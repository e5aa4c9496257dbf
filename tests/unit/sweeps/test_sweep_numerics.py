"""Sweep numerics against brute-force or independently written references."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backtestd.domain.backtests import BaseConfig
from backtestd.domain.strategies import PropertySpec
from backtestd.domain.sweeps import (
    AxisRange,
    AxisRequest,
    AxisValues,
    CurveMode,
    CurvePrefs,
    Objective,
    Sampler,
    SweepAxis,
    SweepSpec,
)
from backtestd.engine.metrics import grid_daily_returns
from backtestd.errors import InvalidInput
from backtestd.sweeps.axes import range_values, resolve_axes
from backtestd.sweeps.plan import expand_vectors, retained_count
from backtestd.sweeps.ranking import plateau_scores, rank_order, value_positions
from backtestd.sweeps.sensitivity import sensitivity
from backtestd.sweeps.statistics import (
    deflated_sharpe_ratios,
    expected_max_sharpe,
    probabilistic_sharpe,
    probability_of_overfitting,
)
from backtestd.sweeps.walkforward import fold_windows


def prop(name: str, kind: str | None) -> PropertySpec:
    return PropertySpec(name, "", None, True, type=kind)


def resolve(
    axes: dict[str, dict[str, Any]], declared: tuple[PropertySpec, ...]
) -> tuple[SweepAxis, ...]:
    """``resolve_axes`` of axes written as the request spells them (``values`` or a range)."""
    asked: dict[str, AxisRequest] = {
        name: AxisValues(tuple(a["values"]))
        if "values" in a
        else AxisRange(a["from"], a["to"], a["step"])
        for name, a in axes.items()
    }
    return resolve_axes(asked, declared)


def spec(
    axes: list[tuple[str, list[Any]]], sampler: Sampler, samples: int | None = None, seed: int = 7
) -> SweepSpec:
    return SweepSpec(
        prepare_job_id="p",
        strategy_id="s",
        axes=tuple(SweepAxis(n, tuple(v)) for n, v in axes),
        sampler=sampler,
        seed=seed,
        samples=samples,
        objective=Objective.SHARPE,
        base_config=BaseConfig(),
        min_trade_floor=30,
        shards=1,
        walk_forward=None,
    )


# -- axes ---------------------------------------------------------------------------------


def test_decimal_steps_hit_their_end_exactly() -> None:
    assert range_values("x", 0.1, 0.3, 0.1) == [0.1, 0.2, 0.3]
    assert range_values("x", 0.0, 1.0, 0.1)[-1] == 1.0
    assert len(range_values("x", 0.0, 1.0, 0.1)) == 11
    assert range_values("n", 5, 50, 5) == list(range(5, 51, 5))


@pytest.mark.parametrize(
    ("axes", "fragment"),
    [
        ({"fast": {"values": [2.5]}}, "'fast': 2.5 is not a whole number"),
        ({"scale": {"values": [True]}}, "'scale': True is a boolean"),
        ({"flag": {"values": [1]}}, "'flag': 1 is not true/false"),
        ({"other": {"values": [1]}}, "declared: fast, flag, scale"),
        ({"fast": {"from": 1, "to": 5, "step": 0}}, "step must be positive"),
    ],
)
def test_values_that_cannot_be_coerced_name_the_property(
    axes: dict[str, Any], fragment: str
) -> None:
    declared = (prop("fast", "int"), prop("scale", "double"), prop("flag", "boolean"))
    with pytest.raises(InvalidInput, match=fragment):
        resolve(axes, declared)


def test_coercion_dedupes_equal_values_and_keeps_request_order() -> None:
    declared = (prop("slow", "int"), prop("fast", "long"), prop("scale", "double"))
    axes = {
        "slow": {"values": [20.0, 20, 30]},
        "fast": {"from": 5.0, "to": 10, "step": 5},
        "scale": {"values": [1, 2]},
    }
    assert resolve(axes, declared) == (
        SweepAxis("slow", (20, 30)),
        SweepAxis("fast", (5, 10)),
        SweepAxis("scale", (1.0, 2.0)),
    )


@pytest.mark.parametrize(
    ("kind", "value", "fragment"),
    [
        ("int", 3_000_000_000, "outside the range of int"),
        ("java.lang.Integer", -(2**31) - 1, "outside the range of java.lang.Integer"),
        ("byte", 128, "outside the range of byte"),
        ("short", 40_000.0, "outside the range of short"),
        ("long", 2**63, "outside the range of long"),
        ("int", 10**400, "outside the range of int"),  # float(10**400) would overflow: a 500
        ("double", float("nan"), "must be finite"),
        ("double", float("inf"), "must be finite"),
        ("float", 1e39, "beyond the range of a Java float"),
        ("int", "seven", "must be a number"),
        ("double", 10**400, "beyond the range of double"),  # float() would overflow: a 500
        ("double", "", "must be a number"),
    ],
)
def test_values_outside_the_java_type_are_a_400_naming_the_property(
    kind: str, value: Any, fragment: str
) -> None:
    with pytest.raises(InvalidInput, match=f"'p'.*{fragment}"):
        resolve({"p": {"values": [value]}}, (prop("p", kind),))


def test_numbers_and_booleans_spelled_as_strings_are_the_same_axis_values() -> None:
    """``"20"`` and ``20`` make the same sweep (and so the same sweep id), as in execute."""
    declared = (prop("slow", "int"), prop("scale", "double"), prop("flag", "boolean"))
    spelled = {
        "slow": {"values": ["20", 20, " 30 "]},
        "scale": {"values": ["0.5", "1"]},
        "flag": {"values": ["true", "False"]},
    }
    plain = {
        "slow": {"values": [20, 30]},
        "scale": {"values": [0.5, 1]},
        "flag": {"values": [True, False]},
    }
    assert resolve(spelled, declared) == resolve(plain, declared)
    assert resolve(spelled, declared)[0] == SweepAxis("slow", (20, 30))


def test_boxed_byte_and_big_integer_properties_can_be_swept() -> None:
    declared = (prop("b", "java.lang.Byte"), prop("big", "java.math.BigInteger"))
    got = resolve({"b": {"values": [1.0, 2]}, "big": {"values": [10**30]}}, declared)
    assert got == (SweepAxis("b", (1, 2)), SweepAxis("big", (10**30,)))


@pytest.mark.parametrize(
    ("axis", "fragment"),
    [
        ({"from": 0, "to": float("inf"), "step": 1}, "to must be finite"),
        ({"from": float("nan"), "to": 1, "step": 1}, "from must be finite"),
        ({"from": 0, "to": 1, "step": True}, "step must be a number"),
        ({"from": 0, "to": 1e300, "step": 1e-300}, "at most 100000"),
    ],
)
def test_degenerate_ranges_are_a_400_not_a_crash(axis: dict[str, Any], fragment: str) -> None:
    with pytest.raises(InvalidInput, match=fragment):
        resolve({"x": axis}, (prop("x", "double"),))


def test_untyped_values_keep_true_apart_from_one() -> None:
    got = resolve({"x": {"values": [1, True, 1.0, False, 0]}}, (prop("x", None),))
    assert got == (SweepAxis("x", (1, True, False, 0)),)
    assert [type(v) for v in got[0].values] == [int, bool, bool, int]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(-1000, 1000),
    st.integers(1, 500),
    st.integers(0, 60),
    st.sampled_from([1, 10, 1000]),
)
def test_ranges_equal_the_exact_rational_lattice(
    start: int, step: int, count: int, scale: int
) -> None:
    from fractions import Fraction

    got = range_values("k", start / scale, (start + step * count) / scale, step / scale)
    assert got == [float(Fraction(start + step * i, scale)) for i in range(count + 1)]


# -- samplers -----------------------------------------------------------------------------


def test_grid_is_the_cartesian_product_with_the_first_axis_slowest() -> None:
    vectors = expand_vectors(spec([("a", [1, 2]), ("b", [10, 20, 30])], Sampler.GRID))
    assert vectors == [{"a": a, "b": b} for a, b in itertools.product([1, 2], [10, 20, 30])]


@given(
    st.integers(1, 40),
    st.lists(st.integers(1, 30), min_size=1, max_size=3),
    st.integers(0, 2**53 - 1),
)
@settings(max_examples=60, deadline=None)
def test_lhs_hits_every_stratum_of_every_axis_once(
    samples: int, sizes: list[int], seed: int
) -> None:
    axes = [(f"p{i}", list(range(size))) for i, size in enumerate(sizes)]
    vectors = expand_vectors(spec(axes, Sampler.LHS, samples, seed))
    assert len(vectors) == samples
    for name, values in axes:
        strata = sorted(
            min(samples - 1, math.floor(v[name] * samples / len(values))) for v in vectors
        )
        if len(values) >= samples:  # a lattice at least as fine as the strata
            assert strata == list(range(samples))
    assert vectors == expand_vectors(spec(axes, Sampler.LHS, samples, seed))


def test_random_is_reproducible_and_stays_on_the_lattice() -> None:
    axes = [("a", [1, 2, 3]), ("b", [0.5, 1.5])]
    one = expand_vectors(spec(axes, Sampler.RANDOM, 50, seed=11))
    assert one == expand_vectors(spec(axes, Sampler.RANDOM, 50, seed=11))
    assert one != expand_vectors(spec(axes, Sampler.RANDOM, 50, seed=12))
    assert all(v["a"] in (1, 2, 3) and v["b"] in (0.5, 1.5) for v in one)


@pytest.mark.parametrize(
    ("prefs", "expected"),
    [
        (CurvePrefs(), 10),
        (CurvePrefs(mode=CurveMode.NONE), 0),
        (CurvePrefs(mode=CurveMode.TOP_N, n=3), 3),
        (CurvePrefs(mode=CurveMode.TOP_PCT, max_pct=5), 3),  # ceil(5% of 41)
    ],
)
def test_retained_curves_per_mode(prefs: CurvePrefs, expected: int) -> None:
    base = spec([("a", [1])], Sampler.GRID)
    assert retained_count(SweepSpec(**{**base.__dict__, "curves": prefs}), 41) == expected


# -- ranking ------------------------------------------------------------------------------


def brute_plateau(values: dict[tuple[int, int], float | None]) -> dict[tuple[int, int], Any]:
    out: dict[tuple[int, int], Any] = {}
    for (i, j), v in values.items():
        if v is None:
            continue
        near = [values.get(n) for n in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1))]
        found = [x for x in near if x is not None]
        out[(i, j)] = (min([v, *found]), len(found))
    return out


@given(
    st.integers(1, 5),
    st.integers(1, 5),
    st.data(),
)
@settings(max_examples=60, deadline=None)
def test_plateau_matches_a_brute_force_neighbourhood(rows: int, cols: int, data: Any) -> None:
    cells = [(i, j) for i in range(rows) for j in range(cols)]
    values = data.draw(
        st.lists(
            st.one_of(st.none(), st.floats(-5, 5, allow_nan=False)),
            min_size=len(cells),
            max_size=len(cells),
        )
    )
    scores, counts = plateau_scores(values, cells, (rows, cols), Objective.SHARPE)
    expected = brute_plateau(dict(zip(cells, values, strict=True)))
    for cell, score, count in zip(cells, scores, counts, strict=True):
        if cell in expected:
            assert (score, count) == expected[cell]
        else:
            assert score is None


def test_plateau_neighbours_follow_value_order_not_list_order() -> None:
    listed = [10, 50, 20]  # as submitted: {"values": [10, 50, 20]}
    pos = value_positions(listed)
    coords = [(pos[(False, v)],) for v in listed]
    scores, counts = plateau_scores([1.0, 9.0, 5.0], coords, (3,), Objective.SHARPE)
    # 20 sits between 10 and 50; 10 and 50 are not neighbours of each other.
    assert counts == [1, 1, 2]
    assert scores == [1.0, 5.0, 1.0]
    assert value_positions([True, False]) == {(True, False): 0, (True, True): 1}


def test_maxdd_ranks_the_smallest_drawdown_first_and_aborted_last() -> None:
    assert rank_order([12.0, None, 3.0, 7.0], Objective.MAXDD) == [2, 3, 0, 1]
    scores, _ = plateau_scores([1.0, 5.0], [(0,), (1,)], (2,), Objective.MAXDD)
    assert scores == [5.0, 5.0]  # the worst drawdown of the neighbourhood


# -- sensitivity --------------------------------------------------------------------------


def test_sensitivity_cells_match_grouped_rows() -> None:
    rng = np.random.default_rng(3)
    params = [{"a": a, "b": b, "c": c} for a in (1, 2, 3) for b in (True, False) for c in (0.5,)]
    values = rng.normal(size=len(params)).tolist()
    found = sensitivity(params, values, ["a", "b", "c"], Objective.PNL)
    assert not found.heatmaps_truncated
    assert len(found.heatmaps) == 3
    by_a = {p.value: p.stats for p in found.marginals[0].points}
    for a in (1, 2, 3):
        group = [v for p, v in zip(params, values, strict=True) if p["a"] == a]
        assert by_a[a].count == len(group)
        assert by_a[a].best == max(group)
        assert by_a[a].worst == min(group)
        assert by_a[a].mean == pytest.approx(np.mean(group))
    ab = found.heatmaps[0]
    assert (ab.param_a, ab.param_b) == ("a", "b")
    assert sum(cell.stats.count for cell in ab.cells) == len(params)


# -- DSR and PBO --------------------------------------------------------------------------


def reference_dsr(returns: list[np.ndarray]) -> list[float]:
    """Bailey & Lopez de Prado (2014), written out term by term with math.erf."""

    def cdf(x: float) -> float:
        return 0.5 * (1 + math.erf(x / math.sqrt(2)))

    srs = [float(np.mean(r) / np.std(r, ddof=1)) for r in returns]
    n = len(srs)
    var = float(np.var(srs, ddof=1))
    from statistics import NormalDist

    z = NormalDist().inv_cdf
    emax = math.sqrt(var) * (
        (1 - 0.5772156649015329) * z(1 - 1 / n) + 0.5772156649015329 * z(1 - 1 / (n * math.e))
    )
    out = []
    for r, sr in zip(returns, srs, strict=True):
        t = len(r)
        d = r - r.mean()
        skew = float((d**3).mean() / (d**2).mean() ** 1.5)
        kurt = float((d**4).mean() / (d**2).mean() ** 2)
        out.append(
            cdf((sr - emax) * math.sqrt(t - 1) / math.sqrt(1 - skew * sr + (kurt - 1) / 4 * sr**2))
        )
    return out


def test_deflated_sharpe_matches_the_written_out_formula() -> None:
    rng = np.random.default_rng(5)
    returns = [rng.normal(0.001 * k, 0.01, size=60) for k in range(8)]
    assert deflated_sharpe_ratios(returns) == pytest.approx(reference_dsr(returns), abs=1e-12)


def test_dsr_reproduces_the_papers_worked_example() -> None:
    # Bailey & Lopez de Prado (2014), numerical example: N = 100 trials, annualised variance of
    # the trials' SRs 1/2, selected annualised SR 2.5, T = 1250 daily returns (250 a year),
    # skewness -3, kurtosis 10: E[max SR] ~ 0.1132 per period (1.7894 annualised), DSR ~ 0.9004.
    emax = expected_max_sharpe(0.5 / 250, 100)
    assert emax == pytest.approx(0.1132, abs=5e-5)
    assert emax * math.sqrt(250) == pytest.approx(1.7894, abs=5e-5)
    dsr = probabilistic_sharpe(2.5 / math.sqrt(250), emax, 1250, -3.0, 10.0)
    assert dsr == pytest.approx(0.9004, abs=5e-5)
    assert probabilistic_sharpe(1.0, 0.0, 100, 5.0, 3.0) is None  # 1 - 5 + 0.5 <= 0


def test_expected_max_sharpe_grows_with_trials() -> None:
    assert expected_max_sharpe(1.0, 10) < expected_max_sharpe(1.0, 1000)
    assert expected_max_sharpe(1.0, 1) == 0.0


def reference_pbo(matrix: np.ndarray, splits: int) -> float:
    t, n = matrix.shape
    blocks = np.array_split(np.arange(t), splits)
    below = 0
    combos = list(itertools.combinations(range(splits), splits // 2))
    for chosen in combos:
        rows_in = np.concatenate([blocks[k] for k in chosen])
        rows_out = np.concatenate([blocks[k] for k in range(splits) if k not in chosen])

        def sharpe(rows: np.ndarray) -> list[float]:
            part = matrix[rows]
            return [float(part[:, j].mean() / part[:, j].std(ddof=1)) for j in range(n)]

        is_sr, oos_sr = sharpe(rows_in), sharpe(rows_out)
        best = max(range(n), key=lambda j: (is_sr[j], -j))
        rank = sum(1 for j in range(n) if oos_sr[j] < oos_sr[best]) + 1
        w = rank / (n + 1)
        below += math.log(w / (1 - w)) <= 0
    return below / len(combos)


def test_pbo_matches_a_brute_force_cscv_and_separates_skill_from_noise() -> None:
    rng = np.random.default_rng(9)
    noise = rng.normal(0, 0.01, size=(32, 12))
    pbo, splits = probability_of_overfitting(noise)  # type: ignore[misc]
    assert splits == 16
    assert pbo == pytest.approx(reference_pbo(noise, 16))
    skilled = noise.copy()
    skilled[:, 0] += 0.02  # one trial is better in every period
    skilled_pbo, _ = probability_of_overfitting(skilled)  # type: ignore[misc]
    assert skilled_pbo < 0.01
    assert skilled_pbo == pytest.approx(reference_pbo(skilled, 16))
    assert 0.2 < pbo < 0.8
    assert probability_of_overfitting(noise[:6]) is None  # too few periods for 4 blocks


# -- walk-forward and daily returns -------------------------------------------------------


@given(st.integers(2, 10_000), st.integers(2, 12), st.integers(1, 99))
def test_folds_tile_the_session_in_order(rows: int, folds: int, pct: int) -> None:
    windows = fold_windows(rows, folds, pct)
    assert windows[0][0] == 0
    assert windows[-1][2] == rows
    for (lo, cut, hi), nxt in zip(windows, [*windows[1:], None], strict=True):
        assert lo <= cut <= hi
        if nxt is not None:
            assert nxt[0] == hi


def test_daily_returns_sample_each_day_from_the_start() -> None:
    day = 86_400_000
    ts = np.arange(0, 3 * day, day // 4, dtype=np.int64)
    equity = 100.0 + np.arange(ts.size, dtype=np.float64)
    # days end at 1d and 2d (grid points 4 and 8), the last point closes the third day
    expected = [104 / 100 - 1, 108 / 104 - 1, 111 / 108 - 1]
    assert grid_daily_returns(equity, ts).tolist() == pytest.approx(expected)


def test_docstring_examples_run() -> None:
    import doctest

    from backtestd.sweeps import axes, plan, ranking, statistics, walkforward
    from backtestd.sweeps import sensitivity as sensitivity_module

    for module in (axes, plan, ranking, statistics, walkforward, sensitivity_module):
        outcome = doctest.testmod(module)
        assert outcome.attempted > 0, module.__name__
        assert outcome.failed == 0, module.__name__


def exact_pbo(matrix: np.ndarray, splits: int, scale: int) -> float:
    """CSCV in rational arithmetic (returns are multiples of 1/scale): ties are exact ties."""
    from fractions import Fraction

    periods, trials = matrix.shape
    x = [[Fraction(round(float(v) * scale), scale) for v in row] for row in matrix]
    block = [i * splits // periods for i in range(periods)]

    def signed_sr2(rows: list[int], j: int) -> Fraction:  # sign(SR)·SR², monotone in SR
        vals = [x[i][j] for i in rows]
        mu = sum(vals, Fraction(0)) / len(vals)
        var = sum(((v - mu) ** 2 for v in vals), Fraction(0)) / (len(vals) - 1)
        return Fraction(0) if var == 0 else (1 if mu > 0 else -1) * mu * mu / var

    overfit = total = 0
    for chosen in itertools.combinations(range(splits), splits // 2):
        ins = [i for i in range(periods) if block[i] in chosen]
        oos = [i for i in range(periods) if block[i] not in chosen]
        is_sr = [signed_sr2(ins, j) for j in range(trials)]
        best = is_sr.index(max(is_sr))
        oos_sr = [signed_sr2(oos, j) for j in range(trials)]
        rank = 1 + sum(1 for j in range(trials) if oos_sr[j] < oos_sr[best])
        omega = rank / (trials + 1)
        overfit += math.log(omega / (1 - omega)) <= 0
        total += 1
    return overfit / total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pbo_equals_an_exact_rational_cscv_when_returns_tie(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = np.round(rng.normal(0.0005, 0.01, size=(27, 4)), 2)  # coarse: many exact ties
    m[:, 3] = m[:, 2][::-1]  # same returns in another order: equal Sharpe over the whole run
    got = probability_of_overfitting(m)
    assert got is not None
    assert got[1] == 12
    assert got[0] == exact_pbo(m, 12, 100)
