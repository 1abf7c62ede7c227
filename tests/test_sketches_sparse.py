"""The pure releases of Sections 3.6-3.7 over universes too large to touch, proven exactly.

Laws, stated as the proof note states them (``proofs_notes/pmg.md``, "Sparse top k"):

* ApproxTopSample is within ``r^2 (r + 2)(U + 1) m / s`` of the exact top ``r``
  order statistics (brute force over every ``m``-tuple);
* the sparse KeepHeavy (KH' with ApproxTopSample) is within the same distance
  of the dense KeepHeavy over every element (BV Prop 6.5, generalised);
* the mixture with the fallback is pure ``eps``-DP: the worst ratio over every
  pair of neighbouring streams is at most ``e^eps``, decided exactly;
* every release makes exactly ``5k + 4`` oracle calls.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from finitedp.checker.histogram import all_streams, stream_pairs
from finitedp.checker.measures import max_ratio, statistical_distance
from finitedp.checker.symbolic import exact_distribution
from finitedp.counting.geosample import GeoSample
from finitedp.errors import FloatParameterError, ParameterError
from finitedp.exactmath import compare_exp
from finitedp.oracle import RecordingSource, SeededSource
from finitedp.sketches import misra_gries
from finitedp.sketches.merge import merge_all
from finitedp.sketches.pure import (
    PureMergedMG,
    PureMisraGries,
    PureSparseMergedMG,
    PureSparseMisraGries,
    shifted_counts,
)
from finitedp.sketches.sparsetop import (
    approx_top_sample,
    dense_keep_heavy,
    fallback_min_probability,
    sparse_keep_heavy,
    top_fallback,
    top_precision,
)

F = Fraction


def _exact_top(sampler: GeoSample, r: int, m: int) -> dict[object, Fraction]:
    """The top ``r`` order statistics of ``m`` i.i.d. ``M(0)``, by brute force."""
    pmf = sampler.pmf(0)
    law: dict[object, Fraction] = {}
    for values in itertools.product(sorted(pmf), repeat=m):
        p = F(1)
        for v in values:
            p *= pmf[v]
        key = tuple(sorted(values, reverse=True)[:r])
        law[key] = law.get(key, F(0)) + p
    return law


@pytest.mark.parametrize(
    ("top", "r", "m", "eps"),
    [(2, 2, 3, F(1)), (3, 3, 4, F(1, 2)), (3, 1, 4, F(1)), (4, 2, 5, F(1)), (2, 3, 4, F(2))],
)
def test_approx_top_sample_within_its_bound(top: int, r: int, m: int, eps: Fraction) -> None:
    sampler = GeoSample(top, eps, noise="tight")
    exact = _exact_top(sampler, r, m)
    for delta in (F(1, 10), F(1, 10**6)):
        s = top_precision(top, r, m, delta)
        law = exact_distribution(approx_top_sample, sampler.scaled_cdf_at_zero, top, r, m, s)
        distance = statistical_distance(law, exact)
        assert 0 < distance <= delta  # not exact (floors), but within the bound
        assert set(law) == set(exact)


def test_approx_top_sample_draws_and_refusals() -> None:
    sampler = GeoSample(5, 1, noise="tight")
    s = top_precision(5, 3, 10, F(1, 100))
    recorder = RecordingSource(SeededSource(b"top"))
    out = approx_top_sample(sampler.scaled_cdf_at_zero, 5, 3, 10, s, recorder)
    assert list(out) == sorted(out, reverse=True) and len(out) == 3
    assert 1 <= len(recorder.tape) <= 3 and all(d == s for d, _ in recorder.tape)
    with pytest.raises(ParameterError, match="m: got 2"):
        approx_top_sample(sampler.scaled_cdf_at_zero, 5, 3, 2, s, recorder)
    with pytest.raises(ParameterError, match="s: got 5"):
        approx_top_sample(sampler.scaled_cdf_at_zero, 5, 3, 10, 5, recorder)
    with pytest.raises(ParameterError, match="cdf"):
        approx_top_sample(lambda v: 0, 5, 3, 10, s, recorder)


@pytest.mark.parametrize(
    ("values", "d", "k", "top"),
    [({}, 4, 1, 3), ({2: 3}, 4, 1, 3), ({1: 2, 3: 1}, 5, 2, 2), ({5: 4}, 5, 2, 4)],
)
def test_sparse_keep_heavy_is_the_dense_release(
    values: dict[int, int], d: int, k: int, top: int
) -> None:
    """BV Prop 6.5 for values in [0, U] and k kept: equal laws up to ApproxTopSample's bound."""
    sampler = GeoSample(top, 1, noise="tight")
    delta = F(1, 10**9)
    s = top_precision(top, k + 1, d, delta)
    dense = exact_distribution(lambda rng: dense_keep_heavy(values, sampler, d, k, rng))
    sparse = exact_distribution(lambda rng: sparse_keep_heavy(values, sampler, d, k, s, rng))
    assert set(sparse) == set(dense)
    assert statistical_distance(sparse, dense) <= delta


def test_fallback_law_and_least_probability() -> None:
    k, d, top = 2, 5, 2
    law = exact_distribution(lambda rng: top_fallback(k, d, top, rng))
    least = fallback_min_probability(k, d, top)
    assert min(law.values()) == least == F(1, 3 * 10 * 4)
    assert sum(law.values()) == 1 and len(law) == 1 + d * top + 10 * top**2


def _stream_laws(mech: PureMisraGries, d: int, length: int) -> dict[object, object]:
    laws: dict[object, object] = {}
    by_sketch: dict[object, object] = {}  # streams with one sketch have one law: computed once
    for stream in all_streams(length, d):
        sketch = misra_gries(mech.k, d, stream)
        if sketch not in by_sketch:
            by_sketch[sketch] = exact_distribution(
                lambda rng, s=sketch: mech.release_sketch(s, rng).heavy
            )
        laws[stream] = by_sketch[sketch]
    return laws


@pytest.mark.parametrize(("k", "d", "length"), [(1, 3, 3), (1, 4, 2)])
def test_pure_sparse_misra_gries_is_pure_exactly(k: int, d: int, length: int) -> None:
    """Every pair of streams one element apart: the worst ratio is at most e^eps, exactly."""
    mech = PureSparseMisraGries(k, d, 1, max_length=length, beta=F(1, 4))
    laws = _stream_laws(mech, d, length)
    worst = F(0)
    for s, s2 in stream_pairs(all_streams(length, d)):
        a, b = laws[s], laws[s2]
        worst = max(worst, max_ratio(a, b), max_ratio(b, a))  # type: ignore[arg-type]
    assert worst > 1 and compare_exp(worst, 1) <= 0
    # Without the fallback the release has the dense release's support only, and is
    # within mech.delta of it; the ratio then exceeds e^eps nowhere either.
    dense = PureMisraGries(k, d, 1, max_length=length)
    for stream in ((1, 1, 2), (2,)):
        sketch = misra_gries(k, d, stream[:length])
        values = shifted_counts(sketch)
        law = exact_distribution(
            lambda rng, v=values: sparse_keep_heavy(v, mech.sampler, d, k, mech.precision, rng)
        )
        reference = exact_distribution(lambda rng, s=sketch: dense.release_sketch(s, rng).heavy)
        assert statistical_distance(law, reference) <= mech.delta


def test_pure_sparse_merged_is_pure_exactly() -> None:
    k, d, eps = 1, 3, F(1)
    mech = PureSparseMergedMG(k, d, eps, max_length=4, beta=F(1, 4))
    others = ((), (3, 1))
    laws: dict[object, dict[object, Fraction]] = {}

    def law(parts: tuple[tuple[int, ...], ...]) -> dict[object, Fraction]:
        sketch = merge_all([misra_gries(k, d, p) for p in parts])
        if sketch not in laws:
            laws[sketch] = exact_distribution(lambda rng: mech.release_sketch(sketch, rng).heavy)
        return laws[sketch]

    worst = F(0)
    for other in others:
        for s, s2 in stream_pairs(all_streams(2, d)):
            for a, b in (((s, other), (s2, other)), ((other, s), (other, s2))):
                pa, pb = law(a), law(b)
                worst = max(worst, max_ratio(pa, pb), max_ratio(pb, pa))
    assert worst > 1 and compare_exp(worst, eps) <= 0
    dense = PureMergedMG(k, d, eps, max_length=4)
    sketch = merge_all([misra_gries(k, d, (1, 1)), misra_gries(k, d, (3,))])
    reference = exact_distribution(lambda rng: dense.release_sketch(sketch, rng).heavy)
    approx = exact_distribution(
        lambda rng: sparse_keep_heavy(sketch.positive(), mech.sampler, d, k, mech.precision, rng)
    )
    assert statistical_distance(approx, reference) <= mech.delta


@pytest.mark.parametrize("stream", [(), (7,), (7, 7, 9) * 30, tuple(range(1, 90))])
def test_every_release_makes_5k_plus_4_calls(stream: tuple[int, ...]) -> None:
    mech = PureSparseMisraGries(3, 2**40, F(1, 2), max_length=100, beta=F(1, 10))
    recorder = RecordingSource(SeededSource(b"calls"))
    release = mech.release(stream, recorder)
    assert len(recorder.tape) == mech.max_oracle_calls == 5 * 3 + 4
    assert len(release.heavy) <= 3 and release.denominator == 4
    assert dict(release.parameters)["beta"] == "1/10"


def test_sparse_release_finds_the_heavy_hitter_in_a_huge_universe() -> None:
    mech = PureSparseMisraGries(2, 2**64, 1, max_length=10**4, beta=F(1, 100))
    stream = [5] * 6000 + [9] * 1000
    exact = shifted_counts(misra_gries(2, 2**64, stream))[5]  # 3 (c + gamma) - n >= 11000
    assert exact >= 3 * 6000 - 7000
    for seed in range(3):
        release = mech.release(stream, SeededSource(bytes([seed])))
        assert abs(dict(release.heavy)[5] - exact) <= 100  # noise of scale (2k+1)/eps = 5


def test_refusals() -> None:
    with pytest.raises(ParameterError, match="d >= 2k \\+ 1 = 5"):
        PureSparseMisraGries(2, 4, 1, max_length=10, beta=F(1, 10))
    with pytest.raises(ParameterError, match="beta"):
        PureSparseMisraGries(2, 10, 1, max_length=10, beta=F(2, 3))
    with pytest.raises(FloatParameterError):
        PureSparseMisraGries(2, 10, 1, max_length=10, beta=0.1)
    with pytest.raises(ParameterError, match="limited to"):
        PureMisraGries(2, 2**64, 1, max_length=10)
    mech = PureSparseMisraGries(2, 10, 1, max_length=10, beta=F(1, 10))
    with pytest.raises(ParameterError, match="max_length = 10"):
        mech.release([1] * 11)
    with pytest.raises(ParameterError, match="standard"):
        mech.release_sketch(misra_gries(2, 10, [1, 2]).to_standard())


def test_accuracy_statement_holds_exactly() -> None:
    """Pr[max_x |estimate - shifted value| > bound] <= beta over every stream, exactly.

    ``N = 12`` keeps the bound below the clamp, so it is reached (worst 0.045 at
    ``beta = 1/2``); the sparse release is within ``delta`` of this one (above).
    """
    k, d, length, beta = 1, 3, 3, F(1, 2)
    mech = PureMisraGries(k, d, 1, max_length=12)
    bound = mech.accuracy(beta).simultaneous
    assert bound == 5
    worst = F(0)
    for stream in all_streams(length, d):
        sketch = misra_gries(k, d, stream)
        truth = shifted_counts(sketch)

        def error(heavy: object, truth: dict[int, int] = truth) -> Fraction:
            found = dict(heavy)  # type: ignore[call-overload]
            return max(abs(F(found.get(x, 0) - truth.get(x, 0), k + 1)) for x in range(1, d + 1))

        law = exact_distribution(lambda rng, s=sketch: mech.release_sketch(s, rng).heavy)
        worst = max(worst, sum((p for h, p in law.items() if error(h) > bound), F(0)))
    assert 0 < worst <= beta
    sparse = PureSparseMisraGries(k, d, 1, max_length=12, beta=F(1, 8))
    assert sparse.accuracy(beta).simultaneous == bound + 1  # beta' = 1/2 - 1/8 - delta
    assert sparse.accuracy(F(1, 8)).simultaneous is None
