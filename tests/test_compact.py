"""CompactHistogram (BV Section 8): Lemmas 8.1 and 8.4 and Thm 8.3 proven exactly on tiny fields."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp import FastSample, GeoSample, RecordingSource, SeededSource
from finitedp.checker import exact_distribution, max_privacy_ratio
from finitedp.checker.counting import audit_counting
from finitedp.compact.family import dyadic_block, interpolate_over_subfield
from finitedp.compact.gf2 import GF2Field
from finitedp.compact.histogram import (
    CompactHistogram,
    CompactRelease,
    EmptyBinSampler,
    UniverseMap,
    compact_histogram,
    field_level_for,
    sample_consistent,
)
from finitedp.compact.polynomial import (
    horner,
    horner_sparse,
    interpolate,
)
from finitedp.counting.base import CountingSampler, bisect_cdf
from finitedp.errors import FloatParameterError, ParameterError
from finitedp.exactmath import ceil_ln, compare_exp
from finitedp.ratio import GeometricRatio

F = Fraction


class TableSampler(CountingSampler):
    """A toy counting sampler given by its integer CDFs ``table[c][z] = F(c, z)``."""

    def __init__(self, table: list[list[int]]) -> None:
        super().__init__(len(table) - 1, F(1), GeometricRatio(1, 2), table[0][-1])
        self.table = table

    @property
    def max_comparisons(self) -> int:
        return self.n + 1

    def cdf(self, c: int, z: int) -> int:
        return 0 if z < 0 else self.table[c][min(z, self.n)]

    def _search(self, c: int, u: int) -> int:
        return bisect_cdf(lambda z: self.cdf(c, z), self.n, u)

    def __repr__(self) -> str:
        return f"TableSampler({self.table})"


RANDOMIZED_RESPONSE = TableSampler([[2, 3], [1, 3]])  # n = 1, d = 3, ratio 2
UNIFORM3 = TableSampler([[1, 2, 3]] * 3)  # n = 2, d = 3, 0-DP
DIVIDES = TableSampler([[3, 4], [1, 4]])  # n = 1, d = 4 divides 64


def pmf_of(sampler: CountingSampler, c: int) -> dict[int, Fraction]:
    return sampler.pmf(c)


def brute_m0(empty: EmptyBinSampler) -> dict[int, Fraction]:
    counts = Counter(empty(u0) for u0 in range(1, empty.d0 + 1))
    return {v: F(k, empty.d0) for v, k in counts.items()}


# -- polynomials ------------------------------------------------------------------------


@settings(max_examples=30)
@given(data=st.data())
def test_interpolation_laws(data: st.DataObject) -> None:
    level = data.draw(st.integers(0, 3))
    field = GF2Field(level)
    size = data.draw(st.integers(1, min(field.order, 12)))
    points = data.draw(
        st.lists(st.integers(0, field.order - 1), min_size=size, max_size=size, unique=True)
    )
    coefficients = data.draw(
        st.lists(st.integers(0, field.order - 1), min_size=size, max_size=size)
    )
    values = [horner(field, coefficients, x) for x in points]
    assert interpolate(field, points, values) == tuple(coefficients)  # unique interpolant
    assert [horner_sparse(field, coefficients, x) for x in points] == values


@settings(max_examples=20)
@given(data=st.data())
def test_subfield_interpolation_equals_generic(data: st.DataObject) -> None:
    level, sub = data.draw(st.sampled_from([(2, 0), (2, 1), (3, 1), (4, 2), (5, 2), (6, 4)]))
    big, small = GF2Field(level), GF2Field(sub)
    size = data.draw(st.integers(1, min(small.order, 40)))
    nodes = data.draw(
        st.lists(st.integers(0, small.order - 1), min_size=size, max_size=size, unique=True)
    )
    values = data.draw(st.lists(st.integers(0, big.order - 1), min_size=size, max_size=size))
    fast = interpolate_over_subfield(big, sub, nodes, values)
    assert fast == interpolate(big, [big.embed(b, sub) for b in nodes], values)
    pairs = zip(nodes, values, strict=True)
    assert all(horner(big, fast, big.embed(b, sub)) == y for b, y in pairs)


def test_parallel_interpolation_equals_serial() -> None:
    big, sub = GF2Field(4), 2
    nodes = list(range(0, 3000, 7))[:300]
    values = [(b * 2654435761) % big.order for b in nodes]
    serial = interpolate_over_subfield(big, sub, nodes, values, workers=1)
    assert interpolate_over_subfield(big, sub, nodes, values, workers=2) == serial


def test_interpolation_refuses_bad_points() -> None:
    field = GF2Field(1)
    with pytest.raises(ParameterError, match="distinct"):
        interpolate(field, [1, 1], [0, 0])
    with pytest.raises(ParameterError, match="one value per point"):
        interpolate(field, [1, 2], [0])
    with pytest.raises(ParameterError, match=r"points\[1\]"):
        interpolate(field, [1, 64], [0, 0])


def test_universe_map_is_a_bijection_ordered_by_weight() -> None:
    for level in (0, 1, 2):
        phi = UniverseMap(level)
        images = [phi(x) for x in range(1, phi.size + 1)]
        assert sorted(images) == list(range(phi.size))
        weights = [bin(v).count("1") for v in images]
        assert weights == sorted(weights)
    phi = UniverseMap(4)
    assert phi.max_weight(2**64) == 14  # every point of a 2^64 universe has <= 14 bits set
    assert bin(phi(2**64)).count("1") <= 14
    assert field_level_for(2**64) == 4 and field_level_for(2**54) == 3


# -- Lemma 8.4 / Alg 8.5: the empty-bin sampler -------------------------------------------


EMPTY_CASES = [
    (GeoSample(1, 1), 64),
    (GeoSample(2, 1), 64),
    (GeoSample(3, "1/2"), 4096),
    (GeoSample(2, 1, noise="tight"), 4096),
    (RANDOMIZED_RESPONSE, 4),
    (DIVIDES, 64),
]


@pytest.mark.parametrize(("sampler", "d0"), EMPTY_CASES)
def test_lemma_8_4(sampler: CountingSampler, d0: int) -> None:
    empty = EmptyBinSampler(sampler, d0)
    d = sampler.d
    # Alg 8.5: f is non-decreasing and every u has q or q + 1 preimages (q + 1 iff u <= r).
    images = [empty.f(u0) for u0 in range(1, d0 + 1)]
    assert images == sorted(images)
    sizes = Counter(images)
    assert all(sizes[u] == empty.q + (u <= empty.r) for u in range(1, d + 1))
    # i: M0 non-decreasing; the bisection equals the literal M(0, f(u0)).
    outputs = [empty(u0) for u0 in range(1, d0 + 1)]
    assert outputs == sorted(outputs)
    assert outputs == [empty.search(u0) for u0 in range(1, d0 + 1)]
    m0, m = empty.pmf(), pmf_of(sampler, 0)
    assert m0 == brute_m0(empty)
    assert exact_distribution(lambda rng: empty.search(rng.uniform(d0))) == m0
    # ii: e^(-2d/d0) Pr[M(0,U) = c] <= Pr[M0(U0) = c] <= e^(d/d0) Pr[M(0,U) = c].
    for c, p in m.items():
        assert compare_exp(m0[c] / p, F(d, d0)) <= 0
        assert compare_exp(p / m0[c], F(2 * d, d0)) <= 0
    assert set(m0) == set(m)
    if d0 % d == 0:
        assert m0 == m
    # iii: Pr[M0(U0) <= a] >= Pr[M(0,U) <= a].
    for a in range(sampler.n + 1):
        assert sum(p for c, p in m0.items() if c <= a) >= sum(p for c, p in m.items() if c <= a)
    # v: S_v is uniform on the preimage of v.
    for v in m0:
        low, high = empty.preimage(v)
        assert [u0 for u0 in range(1, d0 + 1) if empty(u0) == v] == list(range(low, high + 1))
        dist = exact_distribution(lambda rng, v=v: int(empty.sample_preimage(v, rng)))
        assert dist == {u0: F(1, high - low + 1) for u0 in range(low, high + 1)}


def test_lemma_8_4_equality_fails_when_d_does_not_divide_d0() -> None:
    empty = EmptyBinSampler(GeoSample(1, 1), 64)  # d = 5 does not divide 64
    assert empty.pmf() != GeoSample(1, 1).pmf(0)


def test_lemma_8_4_for_fastsample_at_the_size_of_thm_8_6() -> None:
    mech = CompactHistogram(3, 10, "1/2", "1/4")
    empty, sampler = mech.empty_bin, mech.sampler
    d, d0 = sampler.d, empty.d0
    assert 30 * d * 2 <= d0  # d/d0 <= eps/30
    m0 = exact_distribution(lambda rng: empty.search(rng.uniform(d0)))
    assert m0 == empty.pmf()
    m = sampler.pmf(0)
    for c, p in m.items():
        assert compare_exp(m0[c] / p, F(d, d0)) <= 0
        assert compare_exp(p / m0[c], F(2 * d, d0)) <= 0
    for a in range(sampler.n + 1):
        assert sum(p for c, p in m0.items() if c <= a) >= sum(p for c, p in m.items() if c <= a)
    assert all(empty(u0) == empty.search(u0) for u0 in (1, 2, d0 // 3, d0 - 1, d0))


def test_empty_bin_sampler_refuses_small_d0() -> None:
    with pytest.raises(ParameterError, match=r"d0 >= \(4/3\) d"):
        EmptyBinSampler(GeoSample(2, 1), 16)  # d = 15
    with pytest.raises(ParameterError, match="never outputs"):
        EmptyBinSampler(TableSampler([[1, 1, 2], [1, 1, 2], [1, 1, 2]]), 4).preimage(1)


# -- Lemma 8.1: the family ------------------------------------------------------------------


def all_histograms(empty: EmptyBinSampler, level: int, m: int) -> list[tuple[int, ...]]:
    n = empty.sampler.n
    field = GF2Field(level)
    result = []
    for coefficients in itertools.product(range(field.order), repeat=n + 1):
        release = CompactRelease(level, m, coefficients, empty)
        result.append(tuple(release.count(x) for x in range(1, m + 1)))
    return result


@pytest.mark.parametrize(
    ("sampler", "level", "m"),
    [(UNIFORM3, 0, 4), (RANDOMIZED_RESPONSE, 0, 4), (GeoSample(1, 1), 1, 8)],
)
def test_lemma_8_1_i_ii(sampler: CountingSampler, level: int, m: int) -> None:
    empty = EmptyBinSampler(sampler, 1 << (2 * 3**level))
    n = sampler.n
    family = all_histograms(empty, level, m)
    total = len(family)
    marginal = empty.pmf()
    for x in range(m):  # i: every bin's marginal is M0(U0)
        counts = Counter(g[x] for g in family)
        assert {v: F(k, total) for v, k in counts.items()} == marginal
    for bins in itertools.combinations(range(m), n + 1):  # ii: (n+1)-wise independence
        joint = Counter(tuple(g[x] for x in bins) for g in family)
        for values in itertools.product(marginal, repeat=n + 1):
            product = F(1)
            for v in values:
                product *= marginal[v]
            assert F(joint.get(values, 0), total) == product


def test_lemma_8_1_family_is_not_n_plus_2_wise_independent() -> None:
    # The check above can fail: the field values at n + 2 points are dependent.
    field, n = GF2Field(0), 1
    points = [0, 1, 2]
    joint = Counter(
        tuple(horner(field, c, x) for x in points)
        for c in itertools.product(range(field.order), repeat=n + 1)
    )
    assert len(joint) == field.order ** (n + 1) < field.order ** len(points)


@pytest.mark.parametrize("method", ["blocks", "points"])
@pytest.mark.parametrize(
    ("sampler", "level", "m", "constraints"),
    [
        (UNIFORM3, 0, 3, {1: 2}),
        (UNIFORM3, 0, 4, {2: 0, 4: 1}),
        (RANDOMIZED_RESPONSE, 0, 3, {3: 1}),
        (GeoSample(1, 1), 1, 5, {2: 0}),
        (GeoSample(1, 1), 1, 5, {5: 1}),
        # |X| <= 4: the points lie in GF(4), so the blocks method splits GF(64) into 3 coordinates.
        (GeoSample(1, 1), 1, 4, {2: 0}),
        (GeoSample(1, 1), 1, 4, {4: 1}),
    ],
)
def test_lemma_8_1_iv(
    sampler: CountingSampler, level: int, m: int, constraints: dict[int, int], method: str
) -> None:
    empty = EmptyBinSampler(sampler, 1 << (2 * 3**level))
    field = GF2Field(level)
    consistent = []
    for coefficients in itertools.product(range(field.order), repeat=sampler.n + 1):
        release = CompactRelease(level, m, coefficients, empty)
        if all(release.count(x) == c for x, c in constraints.items()):
            consistent.append(coefficients)
    dist = exact_distribution(sample_consistent, empty, m, constraints, method=method)
    assert dist == {c: F(1, len(consistent)) for c in consistent}


@pytest.mark.parametrize(
    ("sampler", "level", "m", "constraints"),
    [
        # 3 coordinates over GF(4), two occupied bins (about 10^4 paths); larger cases
        # take minutes and are covered by test_lemma_8_1_iv (n = 1) and the vectors.
        (GeoSample(2, 1), 1, 3, {1: 1, 3: 0}),
    ],
)
def test_blocks_and_points_have_the_same_distribution(
    sampler: CountingSampler, level: int, m: int, constraints: dict[int, int]
) -> None:
    # Exactly, over every draw: the blocks method's shortcut changes no probability.
    empty = EmptyBinSampler(sampler, 1 << (2 * 3**level))
    blocks = exact_distribution(sample_consistent, empty, m, constraints, method="blocks")
    points = exact_distribution(sample_consistent, empty, m, constraints, method="points")
    assert blocks == points
    assert len(blocks) > 1


@settings(max_examples=200)
@given(data=st.data())
def test_dyadic_blocks_partition_an_interval(data: st.DataObject) -> None:
    low = data.draw(st.integers(0, 200))
    high = data.draw(st.integers(low, 260))
    blocks = {}
    for y in range(low, high + 1):
        w = dyadic_block(y, low, high)
        start = y >> w << w
        assert low <= start and start + (1 << w) - 1 <= high  # inside
        bigger = y >> (w + 1) << (w + 1)
        assert bigger < low or bigger + (1 << (w + 1)) - 1 > high  # maximal
        blocks.setdefault((start, w), []).append(y)
    # The maximal blocks partition [low, high]: each y sits in the block it names.
    assert all(ys == list(range(s, s + (1 << w))) for (s, w), ys in blocks.items())
    with pytest.raises(ParameterError, match="must lie"):
        dyadic_block(high + 1, low, high)


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_blocks_method_keeps_the_counts_of_occupied_bins(data: st.DataObject) -> None:
    level, m, n = data.draw(st.sampled_from([(3, 1000, 12), (4, 2**40, 30), (4, 5, 30)]))
    sampler = GeoSample(n, F(1, 2))
    empty = EmptyBinSampler(sampler, 1 << (2 * 3**level))
    size = data.draw(st.integers(0, min(n, m)))
    bins = data.draw(st.lists(st.integers(1, m), min_size=size, max_size=size, unique=True))
    constraints = {x: data.draw(st.sampled_from(sorted(empty.pmf()))) for x in bins}
    seed = data.draw(st.binary(min_size=1, max_size=8))
    coefficients = sample_consistent(empty, m, constraints, SeededSource(seed))
    release = CompactRelease(level, m, coefficients, empty)
    assert {x: release.count(x) for x in bins} == constraints
    again = sample_consistent(empty, m, constraints, SeededSource(seed), workers=2)
    assert again == coefficients


def test_parallel_blocks_equal_serial() -> None:
    sampler = GeoSample(40, F(1, 2))
    empty = EmptyBinSampler(sampler, 1 << (2 * 3**5))
    constraints = {x: (x * 7) % 5 for x in range(1, 160, 4)}
    serial = sample_consistent(empty, 2**40, constraints, SeededSource(b"p"), workers=1)
    assert sample_consistent(empty, 2**40, constraints, SeededSource(b"p"), workers=2) == serial


def test_unknown_method_is_refused() -> None:
    empty = EmptyBinSampler(GeoSample(1, 1), 64)
    with pytest.raises(ParameterError, match="method"):
        sample_consistent(empty, 4, {1: 0}, SeededSource(b"m"), method="lagrange")
    with pytest.raises(ParameterError, match="workers"):
        sample_consistent(empty, 4, {}, SeededSource(b"m"), workers=0)


# -- Thm 8.3 ---------------------------------------------------------------------------


def neighbours(n: int, m: int) -> tuple[list[tuple[int, ...]], list[tuple[int, int]]]:
    datasets = list(itertools.product(range(1, m + 1), repeat=n))
    pairs = [
        (i, j)
        for i, a in enumerate(datasets)
        for j, b in enumerate(datasets)
        if i < j and sum(x != y for x, y in zip(a, b, strict=True)) == 1
    ]
    return datasets, pairs


THM_8_3_CASES = [(RANDOMIZED_RESPONSE, 0, 3), (UNIFORM3, 0, 3), (GeoSample(1, 1), 1, 3)]


@pytest.mark.parametrize(("sampler", "level", "m"), THM_8_3_CASES)
def test_thm_8_3(sampler: CountingSampler, level: int, m: int) -> None:
    d0 = 1 << (2 * 3**level)
    empty = EmptyBinSampler(sampler, d0)
    datasets, pairs = neighbours(sampler.n, m)
    dists = [exact_distribution(compact_histogram, sampler, empty, data, m) for data in datasets]
    # The budgets of Thm 8.3 as exact ratios: R1 = e^(eps1/2), and the tightest
    # e^eps2 = max Pr[M0 = c] / Pr[M(0,U) = c], e^eps3 = max Pr[M(0,U) = c] / Pr[M0 = c].
    r1 = audit_counting(sampler).privacy_ratio
    m0, m_zero = empty.pmf(), sampler.pmf(0)
    r2 = max(m0[c] / m_zero[c] for c in m_zero)
    r3 = max(m_zero[c] / m0[c] for c in m_zero)
    ratio, _ = max_privacy_ratio(dists, pairs)
    assert isinstance(ratio, Fraction) and isinstance(r1, Fraction)
    assert ratio <= r1 * r1 * r2 * r3  # i, with the exact budgets
    # i with Lemma 8.4's eps2 = d/d0 and eps3 = 2 d/d0:
    assert compare_exp(ratio / (r1 * r1), F(3 * sampler.d, d0)) <= 0
    # ii: per-query accuracy for every bin of every dataset and every a.
    for data, dist in zip(datasets, dists, strict=True):
        true = Counter(data)
        for x in range(1, m + 1):
            h = Counter()
            for release, p in dist.items():
                h[release[x]] += p
            for a in range(sampler.n + 1):
                beta_m = max(
                    sum(p for z, p in sampler.pmf(c).items() if abs(z - c) > a)
                    for c in range(sampler.n + 1)
                )
                beta_0 = sum(p for v, p in m0.items() if v > a)
                achieved = sum(p for v, p in h.items() if abs(v - true[x]) <= a)
                assert achieved >= 1 - max(beta_m, beta_0)
        # The occupied bins' counts follow M(c, .) exactly.
        for x, c in true.items():
            h = Counter()
            for release, p in dist.items():
                h[release[x]] += p
            assert dict(h) == sampler.pmf(c)


# -- the user-level mechanism ---------------------------------------------------------------


def test_thm_8_6_parameters_of_the_issue() -> None:
    mech = CompactHistogram(1000, 2**64, "1/2", F(1, 2**20))
    assert isinstance(mech.sampler, FastSample)
    assert mech.sampler.epsilon == F(1, 3)  # 1/ceil(10/(9 * 1/2)) = 1/3
    assert mech.sampler.gamma == F(1, 2**85)
    assert mech.level == 8 and mech.d0 == 2**13122
    bits = (60 * mech.sampler.d - 1).bit_length()  # ceil(log2(30 d / eps))
    assert 2 * 3 ** (mech.level - 1) < bits <= 2 * 3**mech.level
    assert 60 * mech.sampler.d <= mech.d0
    # The exact budget eps' + 3 d/d0 of Thm 8.3 i stays within eps.
    assert mech.sampler.epsilon + F(3 * mech.sampler.d, mech.d0) <= mech.privacy.epsilon
    assert mech.max_oracle_calls == 2001


@pytest.mark.parametrize("counter", ["fast", "geo"])
def test_accuracy_of_fig_6_is_exact_and_no_better_than_thm_8_3(counter: str) -> None:
    for m_eps in (1, 2, 3, 5, 8, 15, 40):
        eps = F(1, m_eps)
        mech = CompactHistogram(5, 100, eps, "1/1000", counter=counter)
        for beta in (F(1, 10), F(1, 100), F(1, 1000)):
            acc = mech.accuracy(beta)
            per = 2 / beta if counter == "fast" else 1 / beta
            assert acc.per_query == ceil_ln(5 / eps, per)
            a = acc.per_query
            assert a is not None
            assert compare_exp(per, a * eps / 5) <= 0 < compare_exp(per, (a - 1) * eps / 5)
            # Thm 8.3 ii gives the sampler's own accuracy; Fig 6 must not claim more.
            assert a >= mech.sampler.accuracy(beta)
            assert acc.simultaneous is not None
            assert acc.simultaneous >= mech.sampler.accuracy(beta / 100)


def test_accuracy_ranges() -> None:
    mech = CompactHistogram(5, 100, "1/2", "1/10")
    assert mech.accuracy("1/20").simultaneous is None  # below beta0
    assert mech.accuracy(F(1, 10**4)).per_query is None  # below 2 gamma = 1/1000
    with pytest.raises(ParameterError, match=r"beta: got 1; it must lie in \(0, 1\)"):
        mech.accuracy(1)


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(1, 24),
    m=st.sampled_from([3, 1000, 2**64]),
    eps=st.sampled_from(["1", "1/2", "1/3"]),
    counter=st.sampled_from(["fast", "geo"]),
    seed=st.binary(min_size=1, max_size=8),
    data=st.data(),
)
def test_release_properties(
    n: int, m: int, eps: str, counter: str, seed: bytes, data: st.DataObject
) -> None:
    mech = CompactHistogram(n, m, eps, F(1, 2**20), counter=counter)
    rows = data.draw(st.lists(st.integers(1, min(m, 50)), min_size=n, max_size=n))
    rng = RecordingSource(SeededSource(seed))
    release = mech.release(rows, rng)
    occupied = sorted(set(rows))
    tape = rng.tape
    # Oracle calls: uniform(d) per occupied bin, padded with uniform(d) to n draws,
    # uniform(|S_v|) per occupied bin, uniform(d0) per filler point: 2n + 1 in all.
    assert len(tape) == 2 * n + 1 == mech.max_oracle_calls
    assert [d for d, _ in tape[:n]] == [mech.sampler.d] * n
    assert [d for d, _ in tape[n + len(occupied) :]] == [mech.d0] * (n + 1 - len(occupied))
    counts = Counter(rows)
    # The data's own bins get exactly M(c_x, u_x).
    for (_, u), x in zip(tape, occupied, strict=False):
        assert release[x] == mech.sampler(counts[x], u)
    probes = [1, m, *occupied[:3], (m + 1) // 2]
    assert all(0 <= release.count(x) <= n for x in probes)
    assert release.counts(probes) == [release[x] for x in probes]
    loaded = CompactRelease.from_json(release.to_json())
    assert loaded == release and hash(loaded) == hash(release)
    assert loaded.counts(probes) == release.counts(probes)


def test_release_from_json_in_a_fresh_process() -> None:
    mech = CompactHistogram(20, 2**64, "1/2", "1/1000")
    rows = [5, 5, 7, 2**64, *range(100, 116)]
    release = mech.release(rows, SeededSource(b"fresh"))
    probes = [1, 5, 7, 2**64, 100, 12345678901234567]
    code = (
        "import sys, json; from finitedp.compact import CompactRelease;"
        "r = CompactRelease.from_json(sys.stdin.read());"
        f"print(json.dumps(r.counts({probes!r})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=release.to_json(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == release.counts(probes)
    many = [*probes, *range(2, 80)]
    assert release.counts(many, workers=2) == release.counts(many, workers=1)


def test_bad_json_is_refused() -> None:
    release = CompactHistogram(3, 100, 1, "1/10").release([1, 2, 2], SeededSource(b"j"))
    good = release.to_json_dict()

    def broken(**changes: object) -> dict[str, object]:
        return {**good, **changes}

    cases = [
        (broken(version=2), "version: got 2"),
        (broken(type="partial_histogram"), "type"),
        (broken(coefficients=good["coefficients"][:-1]), "n \\+ 1 hex strings"),
        (broken(coefficients=["f" * len(good["coefficients"][0])] * 4), "not an element"),
        (broken(coefficients=["0"] * 4), "exactly"),
        (broken(coefficients=["z" * len(good["coefficients"][0])] * 4), "not hex"),
        (broken(l=13), "l: got 13"),
        (broken(n=4), "n: got 4"),
        (broken(counter={**good["counter"], "d": "7"}), "does not match"),
        (broken(counter={**good["counter"], "kind": "laplace"}), "kind"),
        (broken(universe_map={"subfield_level": 9, "order": "weight-colex"}), "universe_map"),
    ]
    for payload, message in cases:
        with pytest.raises(ParameterError, match=message):
            CompactRelease.from_json(json.dumps(payload))
    with pytest.raises(ParameterError, match="not JSON"):
        CompactRelease.from_json("{")
    custom = CompactRelease(0, 3, (0, 1), EmptyBinSampler(RANDOMIZED_RESPONSE, 4))
    with pytest.raises(ParameterError, match="no JSON description"):
        custom.to_json()


def test_bad_inputs_are_refused() -> None:
    mech = CompactHistogram(3, 10, "1/2", "1/10")
    with pytest.raises(ParameterError, match="data: got 2 rows"):
        mech.release([1, 2])
    with pytest.raises(ParameterError, match=r"data\[1\]: got 11"):
        mech.release([1, 11, 2])
    with pytest.raises(FloatParameterError):
        CompactHistogram(3, 10, 0.5, "1/10")
    with pytest.raises(ParameterError, match="epsilon"):
        CompactHistogram(3, 10, "2/3", "1/10")
    with pytest.raises(ParameterError, match="beta0"):
        CompactHistogram(3, 10, "1/2")
    with pytest.raises(ParameterError, match="counter"):
        CompactHistogram(3, 10, "1/2", "1/10", counter="laplace")
    release = mech.release([1, 2, 3], SeededSource(b"x"))
    with pytest.raises(ParameterError, match=r"x: got 0; bins are ints in \[1, 10\]"):
        release.count(0)
    with pytest.raises(ParameterError, match="same sampler"):
        compact_histogram(GeoSample(3, 1), mech.empty_bin, [1, 2, 3], 10)
    geo = GeoSample(1, 1)
    with pytest.raises(ParameterError, match="2\\^\\(2\\*3\\^l\\)"):
        compact_histogram(geo, EmptyBinSampler(geo, 100), [1], 3)
    with pytest.raises(ParameterError, match=r"at least \|X\| = 65"):
        compact_histogram(geo, EmptyBinSampler(geo, 2**6), [1], 65)
