"""BasicHistogram and StabilityHistogram (BV Section 5), proven exactly on tiny universes."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finitedp import FastSample, GeoSample, ParameterError, RecordingSource, ReplaySource
from finitedp.checker import exact_distribution
from finitedp.checker.histogram import (
    all_datasets,
    all_multisets,
    hockey_stick_upper_bound,
    max_hockey_stick,
    neighbouring_pairs,
    oracle_domains,
    release_distributions,
    worst_privacy_ratio,
)
from finitedp.exactmath import compare_exp
from finitedp.histograms.basic import basic_histogram
from finitedp.histograms.mechanisms import BoundedGeometricHistogram, StabilityHistogram
from finitedp.histograms.release import PartialHistogram
from finitedp.histograms.stability import stability_histogram

N, M = 2, 5  # the tiny instance: every dataset of X^2 with |X| = 5


def test_thm_5_2_i_basic_histogram_privacy_every_neighbouring_pair() -> None:
    sampler = GeoSample(N, 1)
    mechanism = partial(_basic, sampler, M)
    datasets = all_datasets(N, M)
    dists = release_distributions(mechanism, datasets)
    ratio, _ = worst_privacy_ratio(dists, neighbouring_pairs(datasets))
    # Two bins change by one count each: the worst ratio is exactly (b/a)^2 = e^(eps~).
    assert ratio == sampler.privacy_ratio**2
    assert compare_exp(Fraction(ratio), 1) <= 0  # type: ignore[arg-type]


def _basic(sampler: GeoSample | FastSample, m: int, data: tuple[int, ...], rng: object) -> object:
    return basic_histogram(sampler, data, m, rng=rng)  # type: ignore[arg-type]


def test_thm_5_2_ii_iii_accuracy_exactly() -> None:
    sampler = GeoSample(N, 1)
    beta = Fraction(1, 4)
    a = sampler.accuracy(beta)
    for data in [(1, 1), (1, 2), (3, 5)]:
        dist = exact_distribution(_basic, sampler, M, data)
        counts = {x: data.count(x) for x in range(1, M + 1)}
        for x in range(1, M + 1):  # ii: per bin
            good = sum(p for h, p in dist.items() if abs(h[x] - counts[x]) <= a)
            assert good >= 1 - beta
        # iii: simultaneous, with beta' = 1 - (1 - beta)^|X|
        good_all = sum(
            p for h, p in dist.items() if all(abs(h[x] - counts[x]) <= a for x in counts)
        )
        assert good_all >= (1 - beta) ** M


def test_thm_5_5_i_stability_delta_is_at_most_twice_the_tail() -> None:
    """The exact hockey-stick delta at e^eps = (1 + 2^-k)^2 is <= 2 Pr[M(1, U) > b]."""
    n, m = 3, 3
    sampler = GeoSample(n, 1)
    exp_eps = sampler.privacy_ratio**2
    datasets = all_datasets(n, m)
    pairs = neighbouring_pairs(datasets)
    for b in range(n + 1):
        mechanism = partial(_stability, sampler, b, m)
        delta, _ = max_hockey_stick(release_distributions(mechanism, datasets), pairs, exp_eps)
        tail = sum(p for z, p in sampler.pmf(1).items() if z > b)
        assert delta <= 2 * tail, (b, delta, tail)
        if b < n:
            assert delta > 0  # the threshold is what makes delta necessary


def _stability(sampler: GeoSample, b: int, m: int, data: tuple[int, ...], rng: object) -> object:
    return stability_histogram(sampler, b, data, m, rng)  # type: ignore[arg-type]


def test_thm_5_6_user_level_stability_is_eps_delta_dp() -> None:
    # The smallest user-level instance: Thm 5.6 needs n >= b = 1 + ceil(9/2 ln(4/delta)).
    # n = 10 > b = 8, so some releases are non-empty and the check has something to catch.
    mech = StabilityHistogram(10, 2, 1, "1/2", "1/2", counter="geo")
    assert mech.threshold == 8
    datasets = all_multisets(10, 2)
    dists = release_distributions(lambda d, rng: mech.release(d, rng), datasets)
    pairs = neighbouring_pairs(datasets)
    assert hockey_stick_upper_bound(dists, pairs, mech.privacy.epsilon) <= mech.privacy.delta
    assert any(len(release) > 0 for dist in dists.values() for release in dist)
    # The release only depends on the counts: a reordered dataset gives the same distribution.
    mixed = (1, 2, 2, 2, 1, 1, 2, 2, 2, 2)
    assert exact_distribution(mech.release, mixed) == dists[tuple(sorted(mixed))]


def test_bounded_geometric_user_level_privacy_and_pad_traces() -> None:
    mech = BoundedGeometricHistogram(N, M, 1, "1/2")
    sampler = mech.sampler
    assert isinstance(sampler, FastSample) and sampler.gamma == Fraction(1, 20)
    datasets = all_datasets(N, M)
    dists = release_distributions(lambda d, rng: mech.release(d, rng), datasets)
    ratio, _ = worst_privacy_ratio(dists, neighbouring_pairs(datasets))
    assert compare_exp(Fraction(ratio), 1) <= 0  # type: ignore[arg-type]
    # Every dataset makes the same oracle calls: |X| draws of the same domain.
    traces = {oracle_domains(mech.release, d).pop() for d in datasets}
    assert traces == {(sampler.d,) * M}


def test_stability_pad_makes_traces_data_independent() -> None:
    sampler = GeoSample(3, 1)
    datasets = all_datasets(3, 3)
    padded = {frozenset(oracle_domains(partial(_padded, sampler, True), d)) for d in datasets}
    assert padded == {frozenset({(sampler.d,) * 3})}
    unpadded = {frozenset(oracle_domains(partial(_padded, sampler, False), d)) for d in datasets}
    assert len(unpadded) == 3  # without padding the number of draws reveals |A|


def _padded(sampler: GeoSample, pad: bool, data: tuple[int, ...], rng: object) -> object:
    return stability_histogram(sampler, 1, data, 3, rng, pad=pad)  # type: ignore[arg-type]


@given(
    st.integers(1, 40),
    st.integers(1, 2**64),
    st.data(),
)
def test_stability_release_properties(n: int, m: int, data: st.DataObject) -> None:
    mech = StabilityHistogram(max(n, 30), m, 1, "1/4", "1/8")
    rows = data.draw(st.lists(st.integers(1, m), min_size=mech.n, max_size=mech.n))
    recorder = RecordingSource()
    release = mech.release(rows, recorder)
    assert isinstance(release, PartialHistogram) and len(release) <= mech.n
    assert all(x in rows for x in release)  # only occupied bins can be released
    assert all(mech.threshold < release[x] <= mech.n for x in release)
    assert list(release) == sorted(release)
    assert len(recorder.tape) == mech.max_oracle_calls
    assert mech.release(rows, ReplaySource(recorder.tape)) == release  # deterministic given tape


@given(st.permutations([1, 1, 2, 3]))
def test_release_depends_on_counts_only(rows: list[int]) -> None:
    mech = BoundedGeometricHistogram(4, 3, 1, "1/2", counter="geo")
    assert exact_distribution(mech.release, tuple(rows)) == exact_distribution(
        mech.release, (1, 1, 2, 3)
    )


def test_user_level_accuracy_statements() -> None:
    mech = BoundedGeometricHistogram(1000, 10**5, "1/2", "1/10")
    acc = mech.accuracy("1/10")
    assert (acc.per_query, acc.simultaneous, acc.source) == (27, 131, "BV Fig 3")
    assert mech.accuracy("1/20").simultaneous is None  # below beta0: no claim
    stab = StabilityHistogram(1000, 2**64, "1/2", "1/1000000", "1/10")
    acc = stab.accuracy("1/10")
    assert acc.threshold is not None and acc.per_query is not None
    assert stab.privacy.delta == Fraction(1, 10**6)


def test_bad_inputs() -> None:
    mech = BoundedGeometricHistogram(2, 5, 1, "1/2")
    with pytest.raises(ParameterError, match=r"data\[1\]: got 6"):
        mech.release([1, 6])
    with pytest.raises(ParameterError, match="got 3 rows"):
        mech.release([1, 2, 3])
    with pytest.raises(ParameterError, match="PureSparseHistogram"):
        BoundedGeometricHistogram(2, 2**64, 1, "1/2")
    with pytest.raises(ParameterError, match="threshold b"):
        StabilityHistogram(5, 10, 1, "1/2", "1/2")
    with pytest.raises(ParameterError, match="beta0"):
        BoundedGeometricHistogram(2, 5, 1)


def test_padding_is_discarded_in_bulk_by_a_bulk_source() -> None:
    """Issue 25 item 2: the padded, discarded calls go to ``discard_many`` in one call
    when the source has it; every dataset still makes ``n`` calls of domain ``d``, and
    a call-by-call source sees the same calls in the same order."""
    from finitedp.oracle import SeededSource

    class Bulk(SeededSource):
        def __init__(self) -> None:
            super().__init__(b"bulk")
            self.single: list[int] = []
            self.discarded: list[tuple[int, int]] = []

        def uniform(self, d: int) -> int:
            self.single.append(d)
            return super().uniform(d)

        def discard_many(self, d: int, count: int) -> None:
            self.discarded.append((d, count))

    sampler = GeoSample(11, 1)
    source = Bulk()
    stability_histogram(sampler, 3, [1, 1, 2] + [2] * 8, 5, source, pad=True)
    assert source.single == [sampler.d] * 2  # the two occupied bins' noise
    assert source.discarded == [(sampler.d, 9)]  # 11 - 2 pads
    recorder = RecordingSource(SeededSource(b"bulk"))
    stability_histogram(sampler, 3, [1, 1, 2] + [2] * 8, 5, recorder, pad=True)
    assert [d for d, _ in recorder.tape] == [sampler.d] * 11
