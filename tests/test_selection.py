"""The exponential mechanism with a rational base and the two private quantiles, checked exactly.

Every dataset of a tiny grid is enumerated; the checker runs the real release
against symbolic draws, and the stated ratio and rank-error bounds are compared
with the exact laws (equality where the theorem is tight).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from finitedp import SeededSource
from finitedp.accounting import Accountant
from finitedp.checker import exact_distribution, max_privacy_ratio
from finitedp.checker.measures import hockey_stick
from finitedp.errors import FloatParameterError, ParameterError, ParameterTypeError
from finitedp.exactmath import exp_bounds
from finitedp.selection import (
    BinarySearchQuantile,
    ExponentialMechanism,
    ExponentialQuantile,
    Grid,
)
from finitedp.selection.exponential import fixed_weights, table_ratio
from finitedp.selection.gaussianquantile import GaussianBinarySearchQuantile


def rank_error(values: list[int], y: Fraction, m: int) -> int:
    below = sum(1 for x in values if x < y)
    upto = sum(1 for x in values if x <= y)
    return max(0, below - m, m - upto)


def replace_one_pairs(datasets: list[tuple[int, ...]]) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, a in enumerate(datasets)
        for j, b in enumerate(datasets)
        if i < j and sum(x != y for x, y in zip(a, b, strict=True)) == 1
    ]


# -- the exponential mechanism ------------------------------------------------------------------


def test_exponential_law_is_base_to_the_utility() -> None:
    em = ExponentialMechanism("3/2")
    pmf = em.pmf([0, -1, -3, 2], [1, 2, 1, 1])
    assert pmf[1] / pmf[0] == 2 * Fraction(2, 3)
    assert pmf[3] / pmf[2] == Fraction(3, 2) ** 5
    assert sum(pmf.values()) == 1
    dist = exact_distribution(lambda rng: em.sample([0, -1, -3, 2], [1, 2, 1, 1], rng))
    assert {i: sum(p for (c, _), p in dist.items() if c == i) for i in range(4)} == pmf
    # inside a candidate the points are uniform
    assert dist[(1, 0)] == dist[(1, 1)] == pmf[1] / 2


def test_exponential_ratio_is_exact_and_attained() -> None:
    em = ExponentialMechanism("5/4", sensitivity=1)
    # every utility vector in {-2..0}^3 against its neighbours (each utility moved by <= 1)
    vectors = list(itertools.product(range(-2, 1), repeat=3))
    dists = [em.pmf(list(v)) for v in vectors]
    pairs = [
        (i, j)
        for i, a in enumerate(vectors)
        for j, b in enumerate(vectors)
        if i < j and max(abs(x - y) for x, y in zip(a, b, strict=True)) <= 1
    ]
    worst, _ = max_privacy_ratio(dists, pairs)
    assert worst == Fraction(11, 8) < em.privacy_ratio == Fraction(25, 16)
    # beta^2 is the supremum: one candidate up, c points down, ratio (1 + c beta)/(1 + c/beta)
    beta = em.base
    for c in (1, 7, 10**6):
        up, down = em.pmf([0, -1], [1, c]), em.pmf([-1, 0], [1, c])
        assert up[0] / down[0] == (1 + c * beta) / (1 + c / beta)
    assert up[0] / down[0] > em.privacy_ratio * (1 - Fraction(1, 10**5))
    monotone = ExponentialMechanism("5/4", monotone=True)
    assert monotone.privacy_ratio == Fraction(5, 4)


def test_exponential_comparisons_are_bounded() -> None:
    em = ExponentialMechanism(2)
    assert em.max_comparisons(4, 8) == 2 + 3
    weights = em.weights([0, -1, -2, -3], [8, 1, 1, 1])
    total = sum(weights)
    assert [em.choose([0, -1, -2, -3], [8, 1, 1, 1], u) for u in (1, total)] == [(0, 0), (3, 0)]
    # without counts every candidate is one point: weights 8, 4, 2, 1 of 15
    assert [em.choose([0, -1, -2, -3], None, u) for u in (1, 8, 9, 15)] == [
        (0, 0),
        (0, 0),
        (1, 0),
        (3, 0),
    ]


def test_exponential_guarantee_is_bounded_range() -> None:
    g = ExponentialMechanism(2).guarantee()
    assert g.epsilon is not None and g.rho is not None
    assert g.rho == g.epsilon**2 / 8 and g.delta == 0


def test_exponential_bad_input() -> None:
    with pytest.raises(ParameterError, match="base"):
        ExponentialMechanism(1)
    with pytest.raises(FloatParameterError, match="base"):
        ExponentialMechanism(1.5)
    with pytest.raises(ParameterError, match="utilities"):
        ExponentialMechanism(2).weights([])
    with pytest.raises(ParameterError, match="utility 1"):
        ExponentialMechanism(2).weights([0, Fraction(1, 2)])  # type: ignore[list-item]
    with pytest.raises(ParameterError, match="counts"):
        ExponentialMechanism(2).weights([0, 1], [1, 0])


# -- quantiles ----------------------------------------------------------------------------------


def test_grid() -> None:
    g = Grid("-1", "1", "1/2")
    assert g.size == 5 and g.value(0) == -1
    with pytest.raises(ParameterError, match="not on the grid"):
        g.index(Fraction(1, 3))
    with pytest.raises(ParameterError, match=r"lie in \[-1, 1\]"):
        g.index(2)
    with pytest.raises(ParameterError, match="upper"):
        Grid(0, "1/3", "1/2")


DATASETS = list(itertools.product(range(5), repeat=2))


@pytest.mark.parametrize("clip", [None, 1])
def test_exponential_quantile_privacy_and_rank_error(clip: int | None) -> None:
    q = ExponentialQuantile(0, 4, quantile="1/2", n=2, base=2, clip=clip)
    dists = [exact_distribution(lambda rng, d=d: q.release(list(d), rng)) for d in DATASETS]
    worst, _ = max_privacy_ratio(dists, replace_one_pairs(DATASETS))
    assert worst == Fraction(18, 7) < q.privacy_ratio == 4  # beta^2 is the supremum over n
    if clip is None:
        for d, dist in zip(DATASETS, dists, strict=True):
            for t in range(3):
                tail = sum(
                    (p for y, p in dist.items() if rank_error(list(d), y, q.rank) > t),
                    Fraction(0),
                )
                assert tail <= Fraction(q.grid.size, 2 ** (t + 1))


def test_exponential_quantile_law_matches_its_utilities() -> None:
    q = ExponentialQuantile(0, 6, quantile="1/2", n=3, base=3)
    data = [1, 1, 4]
    dist = exact_distribution(lambda rng: q.release(data, rng))
    weights = {Fraction(y): Fraction(1, 3 ** rank_error(data, Fraction(y), 1)) for y in range(7)}
    total = sum(weights.values())
    assert dist == {y: w / total for y, w in weights.items()}


def test_exponential_quantile_rank_error_statement() -> None:
    q = ExponentialQuantile(0, 99, quantile="1/4", n=8, base=2)
    # N beta^-(t+1) <= beta: 100 / 2^(t+1) <= 1/10 -> t + 1 = 10
    assert q.rank_error("1/10") == 9
    with pytest.raises(ParameterError, match="clip"):
        ExponentialQuantile(0, 99, quantile="1/4", n=8, base=2, clip=3).rank_error("1/10")


@pytest.mark.parametrize("clip", [6, 1])
def test_binary_search_quantile_privacy_and_accuracy(clip: int) -> None:
    q = BinarySearchQuantile(0, 3, quantile="1/2", n=2, epsilon=1, clip=clip)
    datasets = list(itertools.product(range(4), repeat=2))
    dists = [exact_distribution(lambda rng, d=d: q.release(list(d), rng)) for d in datasets]
    worst, _ = max_privacy_ratio(dists, replace_one_pairs(datasets))
    assert worst == q.privacy_ratio  # tight: (b/a)^2 is attained on 16 datasets
    assert q.max_oracle_calls == 2
    if clip == 1:  # a narrow window is as private; it bounds what can be stated
        with pytest.raises(ParameterError, match="clip L = 1"):
            q.rank_error(Fraction(1, 4))
        return
    beta = Fraction(1, 4)
    a = q.rank_error(beta)
    for d, dist in zip(datasets, dists, strict=True):
        tail = sum((p for y, p in dist.items() if rank_error(list(d), y, q.rank) > a), Fraction(0))
        assert tail <= beta


def test_quantile_release_is_on_the_grid_and_close() -> None:
    values = [Fraction(i, 2) for i in range(-20, 21)] * 5
    q = ExponentialQuantile(-10, 10, quantile="1/2", n=len(values), base=2, step="1/2")
    y = q.release(values, SeededSource(b"q"))
    assert y.denominator in (1, 2) and rank_error([int(2 * v) for v in values], 2 * y, q.rank) <= 30
    b = BinarySearchQuantile(-10, 10, quantile="1/2", n=len(values), epsilon=2, step="1/2")
    assert abs(b.release(values, SeededSource(b"q"))) <= 3


def test_quantile_bad_input() -> None:
    q = ExponentialQuantile(0, 4, quantile="1/2", n=2, base=2)
    with pytest.raises(ParameterError, match="n = 2 is public"):
        q.release([1, 2, 3])
    with pytest.raises(ParameterError, match=r"values\[1\]"):
        q.release([1, 7])
    with pytest.raises(ParameterError, match="quantile"):
        ExponentialQuantile(0, 4, quantile="3/2", n=2, base=2)
    with pytest.raises(ParameterError, match="epsilon"):
        BinarySearchQuantile(0, 4, quantile="1/2", n=2, epsilon=0)


def test_exponential_memory_estimate_is_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    # 2m + 4 copies of the largest weight: spread * bits(max(a, b)) + bits(max count) bits
    from finitedp.errors import ResourceLimitError

    em = ExponentialMechanism("3/2")
    utilities, counts = [0, -1000, -5], [1, 1, 7]
    bits = 1000 * (3).bit_length() + (7).bit_length()
    estimate = (2 * 3 + 4) * ((bits + 7) // 8)
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", str(estimate))
    em.weights(utilities, counts)
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", str(estimate - 1))
    with pytest.raises(ResourceLimitError, match="utilities spanning 1000 with base 3/2"):
        em.weights(utilities, counts)


def test_grid_int_fast_path_and_single_point_grid() -> None:
    g = Grid(-5, 5)
    assert [g.index(v) for v in (-5, 0, 3, 5)] == [0, 5, 8, 10]
    with pytest.raises(ParameterError, match="values"):
        g.index(6, "values")
    # A one-point grid still makes one draw: the search's work never depends on the data.
    q = BinarySearchQuantile(3, 3, quantile="1/2", n=2, epsilon=1)
    assert q.steps == q.max_oracle_calls == 1
    assert exact_distribution(lambda rng: q.release([3, 3], rng)) == {Fraction(3): 1}


def test_binary_search_reaches_both_ends_of_the_grid() -> None:
    for data, end in (([3, 3], 3), ([0, 0], 0)):
        q = BinarySearchQuantile(0, 3, quantile="1/2", n=2, epsilon=8, clip=4)
        dist = exact_distribution(lambda rng, d=data, q=q: q.release(d, rng))
        assert dist.get(Fraction(end), 0) > Fraction(1, 2)


def test_binary_search_law_is_the_windowed_geosample() -> None:
    # The exact law of the release, computed again step by step from GeoSample's pmf over
    # the window, for a narrow window (L = 1) and counts past both of its ends.
    q = BinarySearchQuantile(0, 7, quantile="1/2", n=6, epsilon=2, clip=1)
    window = q.sampler
    top, offset = 2 * q.clip + 2, q.rank - q.clip - 1
    assert window.n == top

    def law(data: list[int], low: int, high: int, steps: int) -> dict[Fraction, Fraction]:
        if steps == 0:
            return {Fraction(low): Fraction(1)}
        mid = (low + high) // 2
        count = sum(1 for x in data if x <= mid)
        pmf = window.pmf(min(max(count - offset, 0), top))
        yes = sum((p for z, p in pmf.items() if z >= q.clip + 1), Fraction(0))
        if low == high:
            return law(data, low, high, steps - 1)
        out: dict[Fraction, Fraction] = {}
        for (lo, hi), weight in (((low, mid), yes), ((mid + 1, high), 1 - yes)):
            for y, p in law(data, lo, hi, steps - 1).items():
                out[y] = out.get(y, Fraction(0)) + weight * p
        return out

    for data in ([0, 1, 1, 6, 7, 7], [0] * 6, [7] * 6):
        expected = {y: p for y, p in law(data, 0, 7, q.steps).items() if p}
        assert exact_distribution(lambda rng, d=data: q.release(d, rng)) == expected


def test_grid_indices_fast_path_agrees_with_the_checked_one() -> None:
    g = Grid(-7, 9)
    ints = [-7, 0, 9, 3, 3]
    assert (
        list(g.indices(ints)) == list(g.indices([Fraction(v) for v in ints])) == [0, 7, 16, 10, 10]
    )
    with pytest.raises(ParameterError, match=r"values\[2\]: got 10"):
        g.indices([0, 1, 10])
    with pytest.raises(ParameterTypeError, match=r"values\[1\]: got True \(a bool\)"):
        g.indices([0, True])


# -- fixed-precision weights (PLAN's quantiles) ---------------------------------------------------


def test_fixed_weights_are_exact_floors() -> None:
    for base in (Fraction(2), Fraction(3, 2), Fraction(34009, 33992)):
        table = fixed_weights(base, 400, 100)
        assert table == [(base.denominator**t << 100) // base.numerator**t for t in range(401)]


def test_table_ratio_is_the_largest_step_and_refuses_zeros() -> None:
    assert table_ratio([16, 10, 7, 4]) == Fraction(7, 4)
    assert table_ratio([5]) == 1
    with pytest.raises(ParameterError, match="precision"):
        table_ratio([4, 1, 0])


def test_fixed_quantile_law_privacy_and_rank_error() -> None:
    q = ExponentialQuantile(0, 4, quantile="1/2", n=2, base=2, weights="fixed")
    assert q.table is not None and q.clip == 67 and len(q.table) == 68
    assert 4 <= q.privacy_ratio < 4 * (1 + Fraction(1, 2**60))  # beta^2, a hair above
    dists = [exact_distribution(lambda rng, d=d: q.release(list(d), rng)) for d in DATASETS]
    worst, _ = max_privacy_ratio(dists, replace_one_pairs(DATASETS))
    assert worst == Fraction(18, 7) <= q.privacy_ratio  # the same law as exact weights here
    data = [1, 3]
    law = exact_distribution(lambda rng: q.release(data, rng))
    weights = {Fraction(y): q.table[rank_error(data, Fraction(y), 1)] for y in range(5)}
    total = sum(weights.values())
    assert law == {y: Fraction(w, total) for y, w in weights.items()}
    assert q.rank_error("1/10") == ExponentialQuantile(
        0, 4, quantile="1/2", n=2, base=2
    ).rank_error("1/10")


def test_fixed_weights_refuse_a_bad_kind() -> None:
    with pytest.raises(ParameterError, match="weights: got 'float'"):
        ExponentialQuantile(0, 4, quantile="1/2", n=2, base=2, weights="float")  # type: ignore[arg-type]


def test_presorted_values_are_checked_not_trusted() -> None:
    q = ExponentialQuantile(0, 4, quantile="1/2", n=3, base=2)
    source = SeededSource(b"sorted")
    unsorted = q.release_indices(np.array([4, 0, 2]), SeededSource(b"sorted"), presorted=True)
    assert unsorted == q.release_indices(np.array([0, 2, 4]), source)


# -- binary search with discrete Gaussian counts (IOME's PRIVQUANTILE) ----------------------------


def test_gaussian_binary_search_is_private_at_the_accountants_epsilon() -> None:
    """Every replace-one pair of 2 values on {0..3}: the exact hockey-stick delta at the
    accountant's eps for delta = 10^-3 is at most 10^-3; at half that eps it is above."""
    # the checker enumerates draws: the one-table law's (the convolved law's are 256-bit
    # fields; its own exact checks are tests/test_convolved.py's)
    q = GaussianBinarySearchQuantile(0, 3, quantile="1/2", n=2, rho=2, noise_law="table")
    accountant = Accountant("replace one value")
    accountant.add(q.guarantee())
    eps = accountant.epsilon_for(Fraction(1, 1000))
    datasets = list(itertools.product(range(4), repeat=2))
    laws = [exact_distribution(lambda rng, d=d: q.release(list(d), rng)) for d in datasets]
    pairs = [(i, j) for i, j in replace_one_pairs(datasets)] + [
        (j, i) for i, j in replace_one_pairs(datasets)
    ]

    def worst(at: Fraction) -> Fraction:
        exp_eps = exp_bounds(at, 64)[0]
        return max(hockey_stick(laws[i], laws[j], exp_eps) for i, j in pairs)

    assert worst(eps) <= Fraction(1, 1000)
    assert worst(eps / 2) > Fraction(1, 1000)
    assert q.max_oracle_calls == q.steps == 2
    rho = q.guarantee().rho
    assert rho is not None and Fraction(2) * (1 - Fraction(1, 2**19)) <= rho <= 2


def test_gaussian_binary_search_rank_error_holds_on_the_exact_law() -> None:
    q = GaussianBinarySearchQuantile(0, 7, quantile="1/2", n=6, rho=2, noise_law="table")
    data = [1, 2, 2, 5, 6, 7]
    law = exact_distribution(lambda rng: q.release(data, rng))
    a = q.rank_error(Fraction(1, 10))
    wrong = sum((p for y, p in law.items() if rank_error(data, y, q.rank) > a), Fraction(0))
    assert wrong <= Fraction(1, 10)
    assert a == q.noise.accuracy(Fraction(1, 30))  # beta / T, T = 3 steps


@pytest.mark.parametrize("eps", ["1/1000", "1/10", "1/3", "5"])
def test_rank_error_before_the_table_is_built_is_the_tables(eps: str) -> None:
    """The fixed weights are built at the first draw; rank_error asks single weights
    ``floor(2^P beta^-t)`` first, and they and its answers are the table's."""
    lazy = ExponentialQuantile.from_epsilon(
        0, 500, quantile="1/2", n=1000, epsilon=eps, weights="fixed"
    )
    answers = [lazy.rank_error(b) for b in ("1/10", "1/1000")]
    assert lazy._table is None  # no table was needed
    built = ExponentialQuantile.from_epsilon(
        0, 500, quantile="1/2", n=1000, epsilon=eps, weights="fixed"
    )
    table = built.table
    assert table is not None and [built.rank_error(b) for b in ("1/10", "1/1000")] == answers
    step = max(1, len(table) // 97)
    assert all(lazy._weight(t) == table[t] for t in [*range(0, len(table), step), len(table) - 1])
