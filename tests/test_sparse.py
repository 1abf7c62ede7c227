"""KeepHeavy, KH', OrdSample, SparseHistogram, PureSparseHistogram (BV Section 6), exactly.

Every distribution below is computed by the exact checker from the real code, on tiny
universes (n = 1 or 2 with |X| = 3 or 5; n = 3 with |X| = 4 for KeepHeavy's accuracy).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import cache, partial
from itertools import combinations, product
from math import factorial, prod
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp import (
    FastSample,
    FloatParameterError,
    GeoSample,
    ParameterError,
    RecordingSource,
    ReplaySource,
    SeededSource,
    satisfies_condition_1,
)
from finitedp.checker import exact_distribution, explore, statistical_distance
from finitedp.checker.histogram import (
    all_datasets,
    all_multisets,
    max_hockey_stick,
    neighbouring_pairs,
    oracle_domains,
    release_distributions,
    worst_privacy_ratio,
)
from finitedp.counting.base import CountingSampler
from finitedp.exactmath import compare_exp, exp_bounds
from finitedp.guarantees import Privacy
from finitedp.histograms.basic import noisy_counts
from finitedp.histograms.bounds import pure_sparse_accuracy
from finitedp.histograms.keepheavy import heavy_threshold, keep_heavy, kh_prime, ord_sample
from finitedp.histograms.release import PartialHistogram
from finitedp.histograms.sparse import (
    PureSparseHistogram,
    fallback_min_probability,
    pure_sparse_delta,
    pure_sparse_fallback,
    pure_sparse_histogram,
    sparse_histogram,
    sparse_precision,
)

Dist = dict[Any, Fraction]


def _counts(data: tuple[int, ...], m: int) -> dict[int, int]:
    return {x: data.count(x) for x in range(1, m + 1)}


# -- Prop 6.6: OrdSample ------------------------------------------------------------------


def brute_force_order_statistics(table: list[int], m: int) -> Dist:
    """The law of the top n + 1 of m i.i.d. values with CDF table[z]/table[n], by enumeration."""
    n, d = len(table) - 1, table[-1]
    pmf = [Fraction(table[z] - (table[z - 1] if z else 0), d) for z in range(n + 1)]
    dist: Dist = {}
    for values in product(range(n + 1), repeat=m):
        p = prod((pmf[z] for z in values), start=Fraction(1))
        if p:
            top = tuple(sorted(values, reverse=True)[: n + 1])
            dist[top] = dist.get(top, Fraction(0)) + p
    return dist


ORDER_CASES = [
    ([1, 5], 2),  # n = 1
    ([1, 5], 4),
    ([GeoSample(2, 1).scaled_cdf_at_zero(z) for z in range(3)], 3),
    ([GeoSample(2, 1).scaled_cdf_at_zero(z) for z in range(3)], 6),
    ([1, 1, 3], 4),  # Pr[Z = 1] = 0: p_1 = 0
    ([2, 5, 5, 9], 5),  # n = 3, a zero level in the middle
    ([3, 3, 3, 7], 4),  # two zero levels
    ([FastSample(3, 1, "1/2").scaled_cdf_at_zero(z) for z in range(4)], 6),
]


@pytest.mark.parametrize(("table", "m"), ORDER_CASES)
def test_prop_6_6_ord_sample_is_the_top_order_statistics(table: list[int], m: int) -> None:
    n = len(table) - 1
    dist = exact_distribution(ord_sample, table.__getitem__, n, m)
    assert dist == brute_force_order_statistics(table, m)
    assert all(len(c) == n + 1 and list(c) == sorted(c, reverse=True) for c in dist)


def test_alg_6_7_oracle_calls_are_exact_binomials() -> None:
    # Each level v draws once from [1, F(v)^(m - L_{v+1})]: the domain shrinks with L.
    table, m = [1, 1, 3], 4
    for path in explore(ord_sample, table.__getitem__, 2, m):
        assigned = 0
        levels = {v: path.output.count(v) for v in range(3)}
        domains = [record.d for record in path.draws]
        expected = []
        for v in (2, 1):
            expected.append(table[v] ** (m - assigned))
            assigned += levels[v]
        assert domains[: len(expected)] == expected[: len(domains)]


# -- Prop 6.5: KH' simulates KeepHeavy exactly ------------------------------------------


@pytest.mark.parametrize(
    ("sampler", "m", "ordered"),
    [
        (GeoSample(1, 1), 3, True),
        (GeoSample(1, 1), 5, True),
        (FastSample(1, 1, "1/2"), 3, True),
        (GeoSample(2, 1), 5, True),  # every dataset of X^2, |X| = 5
        (FastSample(2, 1, "1/2"), 5, False),  # every multiset (both reduce D to its counts)
    ],
)
def test_prop_6_5_kh_prime_equals_keep_heavy(
    sampler: CountingSampler, m: int, ordered: bool
) -> None:
    n = sampler.n
    datasets = all_datasets(n, m) if ordered else all_multisets(n, m)
    for data in datasets:
        reference = exact_distribution(keep_heavy, sampler, data, m)
        assert exact_distribution(kh_prime, sampler, data, m) == reference, data
        assert all(len(h) <= n for h in reference)


def test_thm_6_2_i_keep_heavy_privacy() -> None:
    sampler, m = GeoSample(2, 1), 5
    datasets = all_datasets(2, m)
    dists = release_distributions(partial(_keep_heavy, sampler, m), datasets)
    ratio, _ = worst_privacy_ratio(dists, neighbouring_pairs(datasets))
    assert ratio <= sampler.privacy_ratio**2  # post-processing of BasicHistogram (Thm 5.2 i)
    assert compare_exp(Fraction(ratio), 1) <= 0  # type: ignore[arg-type]


def _keep_heavy(sampler: CountingSampler, m: int, data: tuple[int, ...], rng: Any) -> Any:
    return keep_heavy(sampler, data, m, rng)


# -- Thm 6.2 ii-iii and Lemma 6.3: KeepHeavy's accuracy -----------------------------------


def _minimal_accuracies(
    sampler: CountingSampler, m: int, beta: Fraction
) -> tuple[int, int, Fraction]:
    """The least a1, a2 with which BasicHistogram_{M,X} is (a1, beta)-per-query and
    (a2, beta)-simultaneously accurate, computed exactly over every dataset."""
    n = sampler.n
    pmfs = [sampler.pmf(c) for c in range(n + 1)]

    def within(c: int, a: int) -> Fraction:
        return sum((p for z, p in pmfs[c].items() if abs(z - c) <= a), Fraction(0))

    a1 = min(a for a in range(n + 1) if all(within(c, a) >= 1 - beta for c in range(n + 1)))

    def worst_all(a: int) -> Fraction:
        return min(
            prod((within(data.count(x), a) for x in range(1, m + 1)), start=Fraction(1))
            for data in all_multisets(n, m)
        )

    a2 = min(a for a in range(n + 1) if worst_all(a) >= 1 - beta)
    return a1, a2, worst_all(a2)


@pytest.mark.parametrize("eps", ["2", "4"])
def test_thm_6_2_ii_iii_and_lemma_6_3_exactly(eps: str) -> None:
    # A strong tight-mode GeoSample, so that counts above 2 a2 exist at n = 3.
    sampler, m = GeoSample(3, eps, noise="tight"), 4
    n = sampler.n
    datasets = all_multisets(n, m)
    dists = release_distributions(partial(_keep_heavy, sampler, m), datasets)
    checked_per_query = 0
    for beta in (Fraction(1, 2), Fraction(1, 4), Fraction(1, 8)):
        a1, a2, _ = _minimal_accuracies(sampler, m, beta)
        assert a1 <= a2
        for data in datasets:
            counts, dist = _counts(data, m), dists[data]
            for x, c in counts.items():  # ii: (a1, 2 beta) per query on counts above 2 a2
                if c > 2 * a2:
                    bad = sum((p for h, p in dist.items() if abs(h[x] - c) > a1), Fraction(0))
                    assert bad <= 2 * beta, (beta, data, x)
                    checked_per_query += 1
            # iii: (2 a2, beta) simultaneously
            bad_all = sum(
                (
                    p
                    for h, p in dist.items()
                    if any(abs(h[x] - c) > 2 * a2 for x, c in counts.items())
                ),
                Fraction(0),
            )
            assert bad_all <= beta, (beta, data)
        _check_lemma_6_3(sampler, m, beta, a2)
    assert checked_per_query > 0  # the per-query statement was not vacuous


def _check_lemma_6_3(sampler: CountingSampler, m: int, beta: Fraction, a2: int) -> None:
    """E = {all |c~_x - c_x| <= a2}: Pr[E] >= 1 - beta, and E keeps every count above 2 a2."""
    n = sampler.n
    for data in all_multisets(n, m):
        counts = _counts(data, m)

        def all_noisy(rng: Any, counts: Mapping[int, int] = counts) -> tuple[int, ...]:
            return tuple(c for _, c in noisy_counts(sampler, counts, range(1, m + 1), rng))

        good = Fraction(0)
        for noisy, p in exact_distribution(all_noisy).items():
            if all(abs(noisy[x - 1] - c) <= a2 for x, c in counts.items()):
                good += p
                threshold = heavy_threshold(noisy, n)
                assert all(noisy[x - 1] > threshold for x, c in counts.items() if c > 2 * a2)
        assert good >= 1 - beta


def test_keep_heavy_threshold_uses_the_multiset() -> None:
    # Ties at the (n+1)-th place: the value is what matters, not which bin is "x_{n+1}".
    assert heavy_threshold([2, 2, 2, 1], 1) == 2
    assert heavy_threshold([3, 2, 2, 0], 1) == 2
    assert heavy_threshold([3, 2, 2, 0], 2) == 2
    assert heavy_threshold([3, 2, 1, 0], 2) == 1


# -- Thm 6.8: SparseHistogram ------------------------------------------------------------

N, M = 2, 5
GEO = GeoSample(N, 1)
EXP_EPS = GEO.privacy_ratio**2  # e^(eps~) = (b/a)^2 = 9/4: GeoSample is (eps~/2)-DP exactly
PAPER_BETA1 = Fraction(1, 4)
PAPER_DELTA = pure_sparse_delta(Fraction(1), PAPER_BETA1, N, M)  # Alg 6.9's delta: 1/2700


def _sparse(sampler: CountingSampler, delta: Fraction, m: int, data: Any, rng: Any) -> Any:
    return sparse_histogram(sampler, delta, data, m, rng)


def _kh(sampler: CountingSampler, m: int, data: Any, rng: Any) -> Any:
    return kh_prime(sampler, data, m, rng)


@cache
def _tiny_distributions(delta: Fraction | None) -> dict[tuple[int, ...], Dist]:
    """KH' (delta None) or SparseHistogram_{GEO,delta} on every multiset of X^2, |X| = 5."""
    mechanism = partial(_kh, GEO, M) if delta is None else partial(_sparse, GEO, delta, M)
    return release_distributions(mechanism, all_multisets(N, M))


@pytest.mark.parametrize("delta", [Fraction(1, 10), Fraction(1, 1000), PAPER_DELTA])
def test_thm_6_8_i_statistical_distance_to_kh_prime(delta: Fraction) -> None:
    assert sparse_precision(N, M, delta) == (N * N + 2 * N) * M * delta.denominator
    reference, approximate = _tiny_distributions(None), _tiny_distributions(delta)
    worst = Fraction(0)
    for data, dist in reference.items():
        distance = statistical_distance(dist, approximate[data])
        assert distance <= delta, (data, distance)
        worst = max(worst, distance)
    assert worst > 0  # the approximation is visible, so the bound is not vacuous


@pytest.mark.parametrize("delta", [Fraction(1, 10), PAPER_DELTA])
def test_thm_6_8_ii_sparse_histogram_is_eps_delta_dp(delta: Fraction) -> None:
    pairs = neighbouring_pairs(all_multisets(N, M))
    dists = _tiny_distributions(delta)
    # At the rational e^(eps~) = 9/4 for which GeoSample is exactly (eps~/2)-DP:
    hockey, _ = max_hockey_stick(dists, pairs, EXP_EPS)
    assert hockey <= (EXP_EPS + 1) * delta
    # At eps = 1 itself (e irrational): delta(e) <= delta(lower bound of e) <= (e + 1) delta.
    e_low, _ = exp_bounds(Fraction(1), 128)
    assert max_hockey_stick(dists, pairs, e_low)[0] <= (e_low + 1) * delta
    # The release depends on the counts only: a reordered dataset gives the same law.
    assert exact_distribution(_sparse, GEO, delta, M, (3, 1)) == dists[(1, 3)]


# -- Thm 6.10 i: PureSparseHistogram is exactly eps-DP -----------------------------------


def _pure(sampler: CountingSampler, beta1: Fraction, m: int, data: Any, rng: Any) -> Any:
    return pure_sparse_histogram(sampler, 1, beta1, data, m, rng)


def _mixed(sparse: Dist, fallback: Dist, beta1: Fraction) -> Dist:
    """Alg 3.1's law (1 - beta1) sparse + beta1 fallback (the two branches are independent)."""
    out: Dist = {h: (1 - beta1) * p for h, p in sparse.items()}
    for h, p in fallback.items():
        out[h] = out.get(h, Fraction(0)) + beta1 * p
    return out


def _assert_pure(dists: Mapping[Any, Dist], datasets: list[tuple[int, ...]]) -> Fraction:
    ratio, pair = worst_privacy_ratio(dists, neighbouring_pairs(datasets))
    assert compare_exp(Fraction(ratio), 1) <= 0, (ratio, pair)  # type: ignore[arg-type]
    return Fraction(ratio)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("sampler", "m", "beta1"),
    [
        (GeoSample(1, 1), 3, Fraction(1, 2)),
        (GeoSample(1, 1), 5, Fraction(1, 4)),
        (FastSample(1, 1, "1/2"), 3, Fraction(1, 2)),
    ],
)
def test_thm_6_10_i_end_to_end_n_1(sampler: CountingSampler, m: int, beta1: Fraction) -> None:
    datasets = all_datasets(1, m)
    dists = release_distributions(partial(_pure, sampler, beta1, m), datasets)
    _assert_pure(dists, datasets)
    # The real mixture is exactly (1 - beta1) SparseHistogram + beta1 fallback.
    delta = pure_sparse_delta(Fraction(1), beta1, 1, m)
    fallback = exact_distribution(pure_sparse_fallback, 1, m)
    for data in datasets:
        sparse = exact_distribution(_sparse, sampler, delta, m, data)
        assert dists[data] == _mixed(sparse, fallback, beta1)


def test_thm_6_10_i_n_2_universe_5() -> None:
    """n = 2, |X| = 5, eps = 1, beta1 = 1/4, GeoSample, Alg 6.9's delta = 1/2700 (s = 108000).

    The mixture's two branches are independent and both always run, so its law is
    (1 - beta1) SparseHistogram + beta1 fallback (checked end to end at n = 1 above);
    enumerating the product of the branches' paths directly would take ~10^6 leaves per
    dataset.
    """
    datasets = all_multisets(N, M)
    fallback = exact_distribution(pure_sparse_fallback, N, M)
    sparse = _tiny_distributions(PAPER_DELTA)
    dists = {data: _mixed(sparse[data], fallback, PAPER_BETA1) for data in datasets}
    ratio = _assert_pure(dists, datasets)
    print(f"Thm 6.10 i, n = 2, |X| = 5: worst ratio {ratio} (e = 2.718...)")


def histograms_h_n_n(n: int, m: int) -> list[PartialHistogram]:
    """Every element of H_{n,n}(X): at most n bins, counts in [1, n]."""
    out = []
    for k in range(n + 1):
        for bins in combinations(range(1, m + 1), k):
            for values in product(range(1, n + 1), repeat=k):
                out.append(PartialHistogram(m, tuple(zip(bins, values, strict=True))))
    return out


@pytest.mark.parametrize(("n", "m"), [(1, 3), (2, 5), (3, 7)])
def test_thm_6_10_i_fallback_has_full_support_and_bv_min(n: int, m: int) -> None:
    dist = exact_distribution(pure_sparse_fallback, n, m)
    assert set(dist) == set(histograms_h_n_n(n, m))
    smallest = min(dist.values())
    assert smallest >= Fraction(factorial(n), (n + 1) ** n * m**n) >= fallback_min_probability(n, m)


def test_thm_6_10_i_bv_lower_bound_and_condition_1() -> None:
    # n! / (n+1)^n >= 3^-n for every n (the ratio grows by 3 ((n+1)/(n+2))^(n+1) >= 3/e).
    assert all(factorial(n) * 3**n >= (n + 1) ** n for n in range(1, 400))
    for n, m, eps, beta1 in [
        (2, 5, 1, Fraction(1, 4)),
        (1000, 2**64, Fraction(1, 2), Fraction(1, 4096)),
    ]:
        assert satisfies_condition_1(
            delta=pure_sparse_delta(Fraction(eps), beta1, n, m),
            gamma=beta1,
            min_probability=fallback_min_probability(n, m),
            epsilon=eps,
        )


def test_user_level_pure_sparse_is_eps_dp_n_1() -> None:
    for counter in ("geo", "fast"):
        mech = PureSparseHistogram(1, 3, 1, "1/2", counter=counter)
        datasets = all_datasets(1, 3)
        dists = release_distributions(lambda d, rng, mech=mech: mech.release(d, rng), datasets)
        _assert_pure(dists, datasets)
        assert mech.privacy == Privacy(Fraction(1))


# -- Oracle calls and padding ---------------------------------------------------------------


def expected_trace(mech: PureSparseHistogram, distinct: int) -> tuple[int, ...]:
    """Alg 6.9 with pad: branch, noisy counts, DistinctSample, ApproxOrdSample, fallback."""
    n, m = mech.n, mech.universe_size
    return (
        (mech.beta1.denominator,)
        + (mech.sampler.d,) * n
        + tuple(m - distinct - i for i in range(n + 1))
        + (mech.precision,) * n
        + (m,) * n
        + (n + 1,) * n
    )


def test_pad_makes_the_number_of_calls_public_and_names_the_data_dependent_domains() -> None:
    mech = PureSparseHistogram(1, 5, 1, "1/2", counter="geo")
    traces = {data: oracle_domains(mech.release, data) for data in all_datasets(1, 5)}
    for traces_of_data in traces.values():  # every path of every dataset: the same trace
        assert traces_of_data == {expected_trace(mech, 1)}
        assert len(next(iter(traces_of_data))) == mech.max_oracle_calls == 5 * mech.n + 2
    # n = 2 over random tapes: every dataset makes 5n + 2 calls; only DistinctSample's n + 1
    # domains |X| - |A| - i (positions n + 1 .. 2n + 1) depend on the data, through |A|.
    mech2 = PureSparseHistogram(2, 5, 1, "1/2", counter="geo")
    seen: dict[int, set[tuple[int, ...]]] = {}
    for i, data in enumerate(all_datasets(2, 5)):
        rng = RecordingSource(SeededSource(bytes([i])))
        mech2.release(data, rng)
        seen.setdefault(len(set(data)), set()).add(tuple(d for d, _ in rng.tape))
    assert seen == {a: {expected_trace(mech2, a)} for a in (1, 2)}
    first, second = (next(iter(s)) for s in seen.values())
    varying = [i for i, (x, y) in enumerate(zip(first, second, strict=True)) if x != y]
    print(f"data-dependent draw domains (n = 2): positions {varying} = DistinctSample's")
    assert varying == list(range(1 + mech2.n, 2 + 2 * mech2.n))


def test_without_pad_the_number_of_calls_varies() -> None:
    sampler = GeoSample(2, 1)
    lengths = set()
    for data in [(1, 1), (1, 2), (4, 5)]:
        for trace in oracle_domains(partial(_sparse_pad, sampler, False), data):
            lengths.add(len(trace))
        padded = oracle_domains(partial(_sparse_pad, sampler, True), data)
        assert {len(t) for t in padded} == {3 * sampler.n + 1}
    assert len(lengths) > 1


def _sparse_pad(sampler: CountingSampler, pad: bool, data: Any, rng: Any) -> Any:
    return sparse_histogram(sampler, "1/10", data, 5, rng, pad=pad)


# -- Large instances --------------------------------------------------------------------------


@settings(max_examples=25)
@given(
    st.integers(1, 30),
    st.integers(0, 2**64),
    st.sampled_from(["geo", "fast"]),
    st.binary(max_size=8),
    st.data(),
)
def test_release_properties_on_large_universes(
    n: int, extra: int, counter: str, seed: bytes, data: st.DataObject
) -> None:
    m = min(2 * n + 1 + extra, 2**64)
    mech = PureSparseHistogram(n, m, "1/2", "1/1024", counter=counter)
    rows = data.draw(
        st.lists(
            st.one_of(st.integers(1, min(m, 3 * n)), st.integers(1, m)), min_size=n, max_size=n
        )
    )
    recorder = RecordingSource(SeededSource(seed))
    release = mech.release(rows, recorder)
    assert isinstance(release, PartialHistogram) and len(release) <= n
    assert list(release) == sorted(release)
    assert all(1 <= x <= m and 1 <= release[x] <= n for x in release)
    assert len(recorder.tape) == mech.max_oracle_calls
    replay = ReplaySource(recorder.tape)
    assert mech.release(rows, replay) == release  # deterministic given the tape
    replay.assert_exhausted()


@settings(max_examples=25)
@given(st.integers(1, 8), st.integers(0, 50), st.binary(max_size=8), st.data())
def test_kh_prime_and_sparse_outputs(n: int, extra: int, seed: bytes, data: st.DataObject) -> None:
    m = 2 * n + 1 + extra
    rows = data.draw(st.lists(st.integers(1, m), min_size=n, max_size=n))
    sampler = GeoSample(n, "1/2")
    for release in (
        kh_prime(sampler, rows, m, SeededSource(seed)),
        sparse_histogram(sampler, "1/1000", rows, m, SeededSource(seed)),
        keep_heavy(sampler, rows, m, SeededSource(seed)),
    ):
        assert len(release) <= n and list(release) == sorted(release)
        assert all(1 <= release[x] <= n for x in release)


# -- Accuracy statements and errors ------------------------------------------------------------


def test_user_level_accuracy_is_fig_5() -> None:
    for counter in ("geo", "fast"):
        mech = PureSparseHistogram(100, 2**64, "1/2", "1/1024", counter=counter)
        for beta in (Fraction(1, 1024), Fraction(1, 10)):
            assert mech.accuracy(beta) == pure_sparse_accuracy(counter, Fraction(1, 2), beta, 2**64)
        below = mech.accuracy(Fraction(1, 2048))
        assert (below.per_query, below.threshold, below.simultaneous) == (None, None, None)
        assert mech.beta1 == Fraction(1, 4096)
        assert mech.privacy == Privacy(Fraction(1, 2), Fraction(0))
    fast = PureSparseHistogram(100, 2**64, "1/2", "1/1024")
    assert isinstance(fast.sampler, FastSample)
    assert fast.sampler.gamma == Fraction(1, 1024 * 8 * 2**64)  # Fig 5: gamma = beta/(8|X|)


def _no_calls(action: Callable[[RecordingSource], object]) -> None:
    recorder = RecordingSource(SeededSource(b"x"))
    with pytest.raises(ParameterError):
        action(recorder)
    assert recorder.tape == ()  # nothing drawn, nothing released


def test_errors() -> None:
    geo = GeoSample(2, 1)
    for call in (
        lambda r: kh_prime(geo, [1, 2], 4, r),
        lambda r: sparse_histogram(geo, "1/2", [1, 2], 4, r),
        lambda r: pure_sparse_histogram(geo, 1, "1/2", [1, 2], 4, r),
    ):
        with pytest.raises(ParameterError, match=r"2n \+ 1 = 5.*BasicHistogram"):
            call(None)
        _no_calls(call)
    with pytest.raises(ParameterError, match=r"2n \+ 1 = 5.*BasicHistogram"):
        PureSparseHistogram(2, 4, 1, "1/2")
    with pytest.raises(ParameterError, match=r"n \+ 1 = 3.*BasicHistogram"):
        keep_heavy(geo, [1, 2], 2)
    for call in (
        lambda r: keep_heavy(geo, [1, 6], 5, r),
        lambda r: kh_prime(geo, [1, 6], 5, r),
        lambda r: sparse_histogram(geo, "1/2", [1, 6], 5, r),
        lambda r: pure_sparse_histogram(geo, 1, "1/2", [1, 6], 5, r),
        lambda r: PureSparseHistogram(2, 5, 1, "1/2").release([1, 6], r),
    ):
        with pytest.raises(ParameterError, match=r"data\[1\]: got 6"):
            call(None)
        _no_calls(call)
    with pytest.raises(FloatParameterError, match="epsilon"):
        PureSparseHistogram(2, 5, 0.5, "1/2")
    with pytest.raises(FloatParameterError, match="epsilon"):
        pure_sparse_histogram(geo, 0.5, "1/2", [1, 2], 5)
    with pytest.raises(FloatParameterError, match="delta"):
        sparse_histogram(geo, 0.1, [1, 2], 5)
    with pytest.raises(ParameterError, match="beta1"):
        pure_sparse_histogram(geo, 1, 1, [1, 2], 5)
    with pytest.raises(ParameterError, match="sampler: its epsilon"):
        pure_sparse_histogram(geo, "1/2", "1/2", [1, 2], 5)
    with pytest.raises(ParameterError, match="counter"):
        PureSparseHistogram(2, 5, 1, "1/2", counter="laplace")
    with pytest.raises(ParameterError, match=r"m: got 2; OrdSample needs m >= n \+ 1 = 3"):
        ord_sample([1, 2, 3].__getitem__, 2, 2)
    with pytest.raises(ParameterError, match="non-decreasing"):
        ord_sample([1, 3, 2].__getitem__, 2, 4)
    # Exact OrdSample's integers have about |X| log2(d) bits: refused up front, before any draw.
    _no_calls(lambda r: kh_prime(geo, [1, 2], 2**40, r))
    with pytest.raises(ParameterError, match="ApproxOrdSample"):
        kh_prime(geo, [1, 2], 2**40)
