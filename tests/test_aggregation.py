"""Thesis chapter 4 on grids: the mixed geometric noise, the rational splits, Algs 15 and 16.

Each stated figure is checked against an independent exact computation: the
noise laws' ``pmf`` summed by hand, the checker's ratio and hockey-stick
measures on every pair of neighbouring datasets of tiny instances, and the
thesis' own numbers (Figure 4.1, Corollary 4.1's ratios).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp import RecordingSource, ReplaySource, SeededSource
from finitedp.aggregation import budget_split
from finitedp.aggregation.vectorsum import (
    NEIGHBOURS,
    EllipticalGaussian,
    ParallelotopeLaplace,
    VectorSumRelease,
)
from finitedp.checker import hockey_stick, max_ratio
from finitedp.checker.symbolic import explore
from finitedp.counting.base import bisect_cdf
from finitedp.counting.mixedgeometric import MixedGeometric, power_sum
from finitedp.errors import FloatParameterError, ParameterError, ResourceLimitError
from finitedp.exactmath import compare_exp
from finitedp.selection import Grid

# -- the mixed geometric ------------------------------------------------------------------------


SMALL_NOISE = [
    MixedGeometric(1, 1, 0, 2),
    MixedGeometric(1, 2, 0, 4),
    MixedGeometric(2, 3, 0, 3),
    MixedGeometric("1/2", 1, -1, 1, gamma_bits=8),
]


@pytest.mark.parametrize("noise", SMALL_NOISE, ids=repr)
def test_inversion_is_the_least_output_whose_cdf_reaches_the_draw(noise: MixedGeometric) -> None:
    first, last = noise.outputs
    low, high = noise.outputs[0] + noise.t, noise.outputs[1] - noise.t
    for value in range(low, high + 1):
        draws = {1, noise.d}
        for o in range(first, last + 1):
            c = noise.cdf(value, o)
            draws |= {c, c + 1}

        def cdf(k: int, value: int = value) -> int:
            return noise.cdf(value, first + k)

        for u in sorted(x for x in draws if 1 <= x <= noise.d):
            assert noise(value, u) == first + bisect_cdf(cdf, last - first, u)


@pytest.mark.parametrize("noise", SMALL_NOISE, ids=repr)
def test_the_checker_finds_the_law_one_interval_per_output_and_the_stated_steps(
    noise: MixedGeometric,
) -> None:
    first, last = noise.outputs
    for value in (first + noise.t, last - noise.t):
        paths = explore(noise.sample, value)
        law: dict[int, Fraction] = {}
        for p in paths:
            law[p.output] = law.get(p.output, Fraction(0)) + p.probability
        assert law == noise.pmf(value)
        # The steps a draw does not need work on d: its own region's comparisons only,
        # so each output is reached by one interval of the draw, as by a plain search.
        assert len(paths) == len(law)
        middle = [p.comparisons[0] for p in paths if p.divisions[0] == 0]
        assert set(middle) == {noise.max_comparisons}  # every middle draw: the same steps


@pytest.mark.parametrize("noise", SMALL_NOISE, ids=repr)
def test_law_sums_to_one_and_the_noise_is_symmetric(noise: MixedGeometric) -> None:
    pmf = noise.pmf(noise.outputs[0] + noise.t)
    assert sum(pmf.values()) == 1
    assert all(p > 0 for p in pmf.values())  # the mixing puts mass on every output
    for z in range(noise.t + 2):
        assert noise.weight(z) == noise.weight(-z)
    assert noise.weight(noise.t + 1) == 0 < noise.weight(noise.t)
    assert noise.noise_cdf(noise.t) == noise.noise_total
    assert noise.noise_cdf(-noise.t - 1) == 0


@pytest.mark.parametrize("noise", SMALL_NOISE, ids=repr)
def test_exact_worst_ratio_is_within_the_stated_bounds(noise: MixedGeometric) -> None:
    first, last = noise.outputs
    low, high = first + noise.t, last - noise.t
    shift = noise._sensitivity
    laws = {v: noise.pmf(v) for v in range(low, high + 1)}
    worst = max(max_ratio(laws[a], laws[b]) for a in laws for b in laws if 0 < abs(a - b) <= shift)
    assert isinstance(worst, Fraction)
    # never above e^eps; never above the stated bounds; and close to e^eps (tight)
    assert compare_exp(worst, noise._epsilon) <= 0
    assert worst <= max(noise.step_ratio() ** shift, noise.boundary_ratio())
    assert compare_exp(worst, noise._epsilon * (1 - Fraction(1, 1 << 8))) > 0  # (g = 8 dilutes)
    assert noise.privacy_holds()


def test_a_larger_shift_than_stated_breaks_the_bound() -> None:
    noise = MixedGeometric(1, 1, 0, 3)
    a, b = noise.pmf(0), noise.pmf(2)
    assert compare_exp(max_ratio(a, b), 1) > 0  # two units cost about e^2


@pytest.mark.parametrize("noise", SMALL_NOISE, ids=repr)
def test_moments_are_exact(noise: MixedGeometric) -> None:
    w = noise.noise_total
    for p in (1, 2, 3):
        direct = Fraction(
            sum(noise.weight(z) * abs(z) ** p for z in range(-noise.t, noise.t + 1)), w
        )
        assert noise.noise_moment(p) == direct
        first, last = noise.outputs
        ends = first + noise.t, last - noise.t
        by_value = {
            v: sum(q * abs(o - v) ** p for o, q in noise.pmf(v).items())
            for v in range(ends[0], ends[1] + 1)
        }
        assert noise.moment(p) == by_value[ends[0]] == by_value[ends[1]] == max(by_value.values())


def test_large_parameters_stay_small_and_fast() -> None:
    noise = MixedGeometric(Fraction(1, 100), 1000, 0, 10**8)
    assert noise.t > 6 * 10**6 and noise.block < 3000  # a table of sqrt(t) integers
    assert noise.privacy_holds()
    # the geometric's variance 2 a / (b - a)^2 ... ~ 2 (Delta/eps)^2, within the slack
    var = noise.noise_moment(2)
    ideal = 2 * Fraction(1000 * 100) ** 2
    assert ideal < var < ideal * (1 + Fraction(1, 1 << 14))


def test_one_draw_per_sample_and_tapes_replay() -> None:
    noise = MixedGeometric(1, 2, 0, 10)
    rec = RecordingSource(SeededSource(b"mixed"))
    out = [noise.sample(5, rec) for _ in range(20)]
    assert len(rec.tape) == 20 and all(d == noise.d for d, _ in rec.tape)
    assert [noise.sample(5, ReplaySource(rec.tape[i : i + 1])) for i in range(20)] == out
    # Two region tests, then the steps among the block ends and in one block.
    assert 2 + (2 * noise.t).bit_length() <= noise.max_comparisons <= 4 + (2 * noise.t).bit_length()


def test_power_sum_law() -> None:
    for p in range(1, 6):
        for m in range(-1, 12):
            assert power_sum(m, p) == sum(k**p for k in range(1, m + 1))


@pytest.mark.parametrize(
    ("args", "kwargs", "name"),
    [
        ((0, 1, 0, 1), {}, "epsilon"),
        ((0.5, 1, 0, 1), {}, "epsilon"),
        ((1, 0, 0, 1), {}, "sensitivity"),
        ((1, 1, 2, 1), {}, "low, high"),
        ((1, 1, 0, 1), {"gamma_bits": 0}, "gamma_bits"),
        ((Fraction(1, 10**40), 10**9, 0, 10), {}, "epsilon"),
    ],
)
def test_refusals_name_the_parameter(args: tuple, kwargs: dict, name: str) -> None:
    with pytest.raises((ParameterError, FloatParameterError)) as info:
        MixedGeometric(*args, **kwargs)
    assert str(info.value).startswith(name) or name in str(info.value)


def test_memory_refusal_is_a_resource_error() -> None:
    with pytest.raises(ResourceLimitError):
        MixedGeometric(Fraction(1, 10**40), 10**9, 0, 10)


def test_values_out_of_range_are_refused() -> None:
    noise = MixedGeometric(1, 1, 0, 3)
    for bad in (-1, 4, Fraction(1), True):
        with pytest.raises(ParameterError, match="value"):
            noise.sample(bad)  # type: ignore[arg-type]


# -- the split ----------------------------------------------------------------------------------


def test_figure_4_1_numbers() -> None:
    # Delta = (4, 1): Gaussian E||eta||_2^2 = F/(2 rho): 34 standard, 25 optimal (17/rho, 12.5/rho)
    assert budget_split([4, 1], "l2", p=2, exponent=1).objective == pytest.approx(34, abs=1e-9)
    assert budget_split([4, 1], "l2", p=2).objective == pytest.approx(25, abs=1e-9)
    # Laplace E||eta||_1 = F/eps: 10 standard, 9 optimal (||Delta||_{1/2} = 9)
    assert budget_split([4, 1], "l1", p=1, exponent=1).objective == 10
    assert budget_split([4, 1], "l1", p=1).objective == 9


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.fractions(min_value=Fraction(1, 50), max_value=1000, max_denominator=1000),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from(["l1", "l2"]),
    st.integers(1, 4),
    st.fractions(min_value=0, max_value=2, max_denominator=12),
)
def test_split_laws(deltas: list[Fraction], norm: str, p: int, exponent: Fraction) -> None:
    best = budget_split(deltas, norm, p=p)
    other = budget_split(deltas, norm, p=p, exponent=exponent)
    for s in (best, other):
        power = 1 if norm == "l1" else 2
        assert sum(b**power for b in s.b) <= 1
        assert all(b > 0 for b in s.b)
        assert s.objective == sum((d / b) ** p for d, b in zip(deltas, s.b, strict=True))
        assert s.factor == s.objective / s.optimum_lower >= 1
        # the certified lower bound is below every split's objective
        assert s.optimum_lower <= other.objective and s.optimum_lower <= best.objective
    assert best.factor <= 1 + Fraction(1, 10**6)


@pytest.mark.parametrize("p", [1, 2])
def test_corollary_4_1_ratios(p: int) -> None:
    # standard / optimal: d ||Delta||_2 / ||Delta||_{2/3} (p = 1),
    # (sqrt(d) ||Delta||_2 / ||Delta||_1)^2 (p = 2)
    equal = [3, 3, 3, 3]
    ratio = (
        budget_split(equal, "l2", p=p, exponent=1).objective
        / budget_split(equal, "l2", p=p).objective
    )
    assert abs(ratio - 1) < Fraction(1, 10**9)
    skewed = [Fraction(1, k) for k in range(1, 11)]
    standard = budget_split(skewed, "l2", p=p, exponent=1).objective
    optimal = budget_split(skewed, "l2", p=p)
    if p == 2:
        d, l2sq, l1 = 10, sum(x * x for x in skewed), sum(skewed)
        expected = d * l2sq / l1**2
        assert abs(standard / optimal.objective - expected) < expected / 10**9
    assert 1 < standard / optimal.objective < 10


def test_split_refusals() -> None:
    with pytest.raises(ParameterError, match="norm"):
        budget_split([1], "l3")
    with pytest.raises(ParameterError, match="sensitivities"):
        budget_split([], "l1")
    with pytest.raises(ParameterError, match=r"sensitivities\[1\]"):
        budget_split([1, 0], "l1")
    for bad in (-1, Fraction(1, 65), 65):
        with pytest.raises(ParameterError, match="exponent"):
            budget_split([1], "l1", exponent=bad)
    with pytest.raises(FloatParameterError):
        budget_split([1.5], "l1")


# -- the mechanisms on tiny instances: every pair of neighbouring datasets ----------------------


def product(laws: list[dict[int, Fraction]]) -> dict[tuple[int, ...], Fraction]:
    out: dict[tuple[int, ...], Fraction] = {(): Fraction(1)}
    for law in laws:
        out = {(*k, o): p * q for k, p in out.items() for o, q in law.items()}
    return out


def datasets(grids: list[Grid], n: int) -> list[tuple[tuple[int, ...], ...]]:
    rows = list(itertools.product(*(range(g.size) for g in grids)))
    return list(itertools.combinations_with_replacement(rows, n))


def neighbours(data: list[tuple[tuple[int, ...], ...]]) -> list[tuple[int, int]]:
    pairs = []
    for i, a in enumerate(data):
        for j, b in enumerate(data):
            if i != j:
                left = list(a)
                for row in b:
                    if row in left:
                        left.remove(row)
                if len(left) == 1:
                    pairs.append((i, j))
    return pairs


def test_laplace_is_pure_eps_dp_on_every_neighbouring_pair() -> None:
    grids = [Grid(0, 1), Grid(0, 2)]
    mech = ParallelotopeLaplace(grids, n=2, epsilon=8)
    data = datasets(grids, 2)
    laws = []
    for rows in data:
        sums = [sum(r[i] for r in rows) for i in range(2)]
        laws.append(product([mech.sampler(i).pmf(s) for i, s in enumerate(sums)]))
    pairs = neighbours(data)
    assert len(pairs) > 20
    worst = max(max_ratio(laws[i], laws[j]) for i, j in pairs)
    assert isinstance(worst, Fraction)
    assert compare_exp(worst, mech.epsilon) <= 0
    assert compare_exp(worst, mech.epsilon * Fraction(99, 100)) > 0  # the budget is spent
    assert mech.guarantee.epsilon == 8 and mech.guarantee.delta == 0


@pytest.mark.parametrize("grids", [[Grid(0, 1), Grid(0, 2)], [Grid(0, 1)] * 3], ids=["d2", "d3"])
def test_gaussian_delta_at_the_accountants_epsilon_on_every_pair(grids: list[Grid]) -> None:
    from finitedp.exactmath import exp_bounds

    mech = EllipticalGaussian(grids, n=1, rho=8)
    d = len(grids)
    data = datasets(grids, 1)
    tables = [mech.table(i).pmf() for i in range(d)]
    assert max(len(t) for t in tables) < 30
    target = Fraction(1, 1000)
    eps = mech.epsilon_for(target)
    # The output is sum + noise: a pair's divergence depends only on the shift of the sums.
    shifts = {
        tuple(a - b for a, b in zip(data[i][0], data[j][0], strict=True))
        for i, j in neighbours(data)
    }
    every = 1
    for grid in grids:
        every *= 2 * grid.size - 1
    assert len(shifts) == every - 1  # every nonzero shift occurs
    base = product(tables)
    moved = {
        s: {tuple(o + k for o, k in zip(key, s, strict=True)): p for key, p in base.items()}
        for s in shifts
    }
    e_low, e_third = exp_bounds(eps, 64)[0], exp_bounds(eps / 3, 64)[1]
    assert max(hockey_stick(base, moved[s], e_low) for s in shifts) <= target
    # a third of that epsilon is not enough: the statement is not vacuous
    assert max(hockey_stick(base, moved[s], e_third) for s in shifts) > target
    g = mech.guarantee
    assert g.rho is not None and g.rho <= 8 and g.orders == "integer"
    assert g.rho >= 8 * (1 - Fraction(1, 1 << 19)) * sum(b * b for b in mech.split.b)


def test_gaussian_variances_follow_alg_15() -> None:
    grids = [Grid(0, 4), Grid(0, 1, "1/4")]
    mech = EllipticalGaussian(grids, n=5, rho="1/2")
    target = Fraction(1, 2) * (1 - Fraction(1, 1 << 20))
    for i, units in enumerate((4, 4)):
        b = mech.split.b[i]
        assert mech.table(i).sigma2 == Fraction(units * units) / (2 * target * b * b)
    assert mech.ideal_moment() == mech.split.objective / (2 * Fraction(1, 2))
    assert EllipticalGaussian(grids, n=5, rho="1/2", p=1).ideal_moment() is None
    implemented = mech.moment()
    assert abs(implemented / mech.ideal_moment() - 1) < Fraction(1, 100)


def test_laplace_moment_is_the_sum_of_the_coordinates_and_near_lemma_4_10() -> None:
    grids = [Grid(0, 10), Grid(0, 1, "1/10"), Grid(-5, 5, 5)]
    mech = ParallelotopeLaplace(grids, n=4, epsilon="1/2", p=2)
    expected = sum(g.step**2 * mech.sampler(i).moment(2) for i, g in enumerate(grids))
    assert mech.moment() == expected
    assert abs(mech.moment() / mech.ideal_moment() - 1) < Fraction(1, 100)
    assert mech.ideal_moment() == 2 * mech.split.objective / Fraction(1, 4)


def test_release_is_exact_and_replays() -> None:
    grids = [Grid(-2, 2), Grid(0, 1, "1/2")]
    for mech in (
        ParallelotopeLaplace(grids, n=3, epsilon=1),
        EllipticalGaussian(grids, n=3, rho="1/2"),
    ):
        rows = [[1, 0], [2, "1/2"], [-2, 1]]
        rec = RecordingSource(SeededSource(b"vector"))
        rel = mech.release(rows, rec)
        again = mech.release(rows, ReplaySource(rec.tape))
        assert rel == again and hash(rel) == hash(again)
        assert isinstance(rel, VectorSumRelease) and rel.neighbours == NEIGHBOURS
        doc = rel.to_json_dict()
        assert doc["version"] == 1 and doc["type"] == "vector-sum" and doc["n"] == 3
        # estimate = n lower + step (sum + noise): on the grid of the sum
        assert all(
            ((e - 3 * g.lower) / g.step).denominator == 1
            for e, g in zip(rel.estimates, grids, strict=True)
        )
        assert mech.index_sums(rows) == [3 + 4 + 0, 0 + 1 + 2]


def test_release_refusals_name_row_and_column() -> None:
    mech = ParallelotopeLaplace([Grid(0, 2), Grid(0, 1)], n=2, epsilon=1)
    with pytest.raises(ParameterError, match=r"rows\[1\]\[0\]"):
        mech.release([[0, 0], [3, 0]])
    with pytest.raises(ParameterError, match=r"rows\[0\]\[1\]"):
        mech.release([[0, "1/2"], [1, 0]])
    with pytest.raises(ParameterError, match=r"rows\[0\]"):
        mech.release([[0], [1, 0]])
    with pytest.raises(ParameterError, match="n = 2"):
        mech.release([[0, 0]])
    with pytest.raises(ParameterError, match=r"sums\[1\]"):
        mech.release_sums([0, 3])
    with pytest.raises(ParameterError, match="one-point"):
        ParallelotopeLaplace([Grid(0, 0)], n=1, epsilon=1)
    with pytest.raises(ParameterError, match="grids"):
        ParallelotopeLaplace([], n=1, epsilon=1)
    with pytest.raises(ParameterError, match="rho"):
        EllipticalGaussian([Grid(0, 1)], n=1, rho=10**6)
    with pytest.raises(FloatParameterError):
        EllipticalGaussian([Grid(0, 1)], n=1, rho=0.5)


def test_equal_sensitivities_share_one_noise_and_one_accountant_entry() -> None:
    grids = [Grid(0, 3)] * 50 + [Grid(0, 1)] * 50
    lap = ParallelotopeLaplace(grids, n=10, epsilon=1)
    assert len(lap._samplers) == 2 and len(lap.accountant.steps) == 2
    assert lap.guarantee.epsilon == 1
    gau = EllipticalGaussian(grids, n=10, rho=1)
    assert len(gau.accountant.steps) == 2
    assert gau.guarantee.rho is not None and gau.guarantee.rho <= 1


# -- pinned figures (issue 29: each of these was a surviving mutant) ---------------------------


@pytest.mark.parametrize("noise", SMALL_NOISE, ids=repr)
def test_step_and_boundary_ratios_are_the_exact_figures(noise: MixedGeometric) -> None:
    t, shift = noise.t, noise._sensitivity
    steps = [Fraction(noise.weight(j), noise.weight(j + 1)) for j in range(t)]
    assert noise.step_ratio() == max(steps)
    # the boundary ratio is attained: S' = S - Delta, o = S + t - Delta + 1 (no noise mass for S')
    first, last = noise.outputs
    s = first + t + shift  # a true value with S - Delta still in range
    if s <= last - t:
        o = s + t - shift + 1
        assert noise.pmf(s)[o] / noise.pmf(s - shift)[o] == noise.boundary_ratio()


def test_step_ratio_sees_the_steps_across_blocks() -> None:
    noise = MixedGeometric(Fraction(1, 3), 1, 0, 5)
    m = noise.block
    across = [
        Fraction(noise.weight(q * m - 1), noise.weight(q * m)) for q in range(1, noise.t // m + 1)
    ]
    assert across and noise.step_ratio() >= max(across)


def test_default_mixing_share_is_two_to_the_minus_64() -> None:
    noise = MixedGeometric(1, 1, 0, 2)
    first, last = noise.outputs
    assert noise.d == (1 << 64) * (last - first + 1) * noise.noise_total


def test_split_is_frozen_with_defaults_and_exact_edges() -> None:
    import dataclasses

    s = budget_split([4, 1], "l2")
    assert s.p == 2 and s.exponent == Fraction(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.p = 3  # type: ignore[misc]
    # sum x^2 a perfect square: the ceiling of the root is the root itself
    assert budget_split([1, 1, 1, 1], "l2").b == (Fraction(1, 2),) * 4
    for fine in (Fraction(1, 64), 64):
        budget_split([1, 2], "l1", exponent=fine)
    assert budget_split([3, 3, 5], "l1").groups == (0, 0, 1)


def test_split_objective_above_exact_terms_is_a_tight_upper_bound() -> None:
    from finitedp.aggregation.split import EXACT_TERMS, exact_sum

    deltas = [Fraction(10**6, k) for k in range(1, EXACT_TERMS + 10)]
    s = budget_split(deltas, "l1", p=1)
    exact = exact_sum([d / b for d, b in zip(deltas, s.b, strict=True)])
    assert exact <= s.objective <= exact * (1 + Fraction(1, 1 << 60))


@pytest.mark.parametrize("law", ["table", "convolved"])
def test_gaussian_moment_is_the_exact_sum_over_the_tables(law: str) -> None:
    grids = [Grid(0, 2), Grid(0, 1, "1/3")]
    mech = EllipticalGaussian(grids, n=2, rho=4, noise_law=law)
    for p in (1, 2, 3):
        direct = sum(
            g.step**p * sum(q * abs(z) ** p for z, q in mech.table(i).pmf().items())
            for i, g in enumerate(grids)
        )
        assert mech.moment(p) == direct


def test_gaussian_refuses_a_table_no_wider_than_the_sensitivity() -> None:
    # the least rho that puts the noise for Delta = 2 units at R = 2 (found by search):
    # 43 for the one-table law (128 bits), 60 for the convolved law's (192 bits)
    for law, refused, kept in (("table", 43, 35), ("convolved", 60, 59)):
        with pytest.raises(ParameterError, match=r"^rho: .*R = 2 <= 2"):
            EllipticalGaussian([Grid(0, 2)], n=1, rho=refused, noise_law=law)
        assert EllipticalGaussian([Grid(0, 2)], n=1, rho=kept, noise_law=law).table(0).radius == 3


def test_truncation_is_the_least_that_keeps_the_boundary_within_budget() -> None:
    for noise in SMALL_NOISE[:3]:
        beta, eps, shift = 1 / noise.ratio, noise._epsilon, noise._sensitivity
        span = noise._high - noise._low
        target = Fraction((1 << 64) * (span + 2 * noise.t + 1)) / eps
        assert beta ** (noise.t - shift + 1) >= target
        smaller = noise.t - 1
        assert beta ** (smaller - shift + 1) < Fraction((1 << 64) * (span + 2 * smaller + 1)) / eps


def test_objective_is_exact_up_to_exact_terms_groups() -> None:
    from finitedp.aggregation.split import EXACT_TERMS, exact_sum

    assert EXACT_TERMS == 2048  # the limit BudgetSplit's docstring and the proof note state
    for d, exact in ((EXACT_TERMS, True), (EXACT_TERMS + 1, False)):
        deltas = [Fraction(10**6, k) for k in range(1, d + 1)]
        s = budget_split(deltas, "l1", p=1)
        value = exact_sum([x / b for x, b in zip(deltas, s.b, strict=True)])
        assert (s.objective == value) is exact and s.objective >= value


def test_estimates_are_n_lower_plus_step_times_the_noisy_sum() -> None:
    grids = [Grid(-2, 2), Grid("-1/2", 1, "1/4")]
    mech = ParallelotopeLaplace(grids, n=3, epsilon=1)
    sums = [5, 9]
    draws = [mech.sampler(0).d // 3, mech.sampler(1).d // 5]
    rel = mech.release_sums(
        sums, ReplaySource(list(zip([mech.sampler(0).d, mech.sampler(1).d], draws, strict=True)))
    )
    expected = tuple(
        3 * g.lower + g.step * mech.sampler(i)(s, u)
        for i, (g, s, u) in enumerate(zip(grids, sums, draws, strict=True))
    )
    assert rel.estimates == expected
    assert ParallelotopeLaplace(grids, n=3, epsilon=1).split.p == 1  # the default moment
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        rel.n = 4  # type: ignore[misc]


def test_clamp_moves_values_to_the_bounds_and_keeps_the_grid() -> None:
    mech = ParallelotopeLaplace([Grid(0, 2), Grid(0, 1, "1/4")], n=2, epsilon=1)
    assert mech.index_sums([[5, "-1"], [1, "1/2"]], clamp=True) == [2 + 1, 0 + 2]
    with pytest.raises(ParameterError, match=r"rows\[0\]\[0\]"):
        mech.index_sums([[5, 0], [1, 0]])
    with pytest.raises(ParameterError, match=r"rows\[1\]\[1\]"):
        mech.index_sums([[5, 0], [1, "1/3"]], clamp=True)  # off the grid: still refused


def test_the_widest_noise_is_built_first_so_a_refusal_costs_no_other_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import finitedp.aggregation.vectorsum as vectorsum

    built: list[Fraction] = []
    real = vectorsum.gaussian_noise

    def counting(sigma2: Fraction, law: object) -> object:
        built.append(sigma2)
        return real(sigma2, law)

    monkeypatch.setattr(vectorsum, "gaussian_noise", counting)
    grids = [Grid(0, 1), Grid(0, 100), Grid(0, 100, "1/10000"), Grid(0, 10)]
    with pytest.raises(ResourceLimitError, match="rho: got 1/100"):
        EllipticalGaussian(grids, 10**6, "1/100", noise_law="table")
    assert len(built) == 1  # the 10^6-unit table, refused before the three others
    built.clear()
    mech = EllipticalGaussian(grids[:2], 10, "1/2", noise_law="table")
    assert built[0] == max(built) and len(set(built)) == len(built) == 2
    assert mech.table(1).sigma2 == built[0]
