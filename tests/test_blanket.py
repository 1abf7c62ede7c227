"""BlanketHistogram: a thresholded BasicHistogram in linear time (proofs_notes/blanket_histogram).

Laws checked exactly:
- the chain's law of ``|B|`` is ``Bin(N, p)`` within ``(1 + 2^-h)^(k + 1)`` on every outcome,
  and every threshold brackets its ``r_j`` from the stated sides;
- the whole release's law, enumerated from the real code, is the thresholded
  BasicHistogram's (computed here key by key from the sampler's pmf) within the chain's
  factor, and its worst ratio between neighbours (replace one row) is at most ``e^eps``;
- every path makes the same ``6n + 1`` oracle calls with the same domains.
"""

from __future__ import annotations

import re
from fractions import Fraction
from itertools import product
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp.checker.histogram import (
    all_multisets,
    neighbouring_pairs,
    oracle_domains,
    release_distributions,
    worst_privacy_ratio,
)
from finitedp.checker.symbolic import exact_distribution
from finitedp.counting.base import CountingSampler
from finitedp.counting.fastsample import FastSample
from finitedp.counting.geosample import GeoSample
from finitedp.errors import FloatParameterError, ParameterError
from finitedp.exactmath import compare_exp
from finitedp.guarantees import Privacy
from finitedp.histograms.blanket import BlanketHistogram, blanket_histogram, blanket_threshold
from finitedp.histograms.blanketchain import (
    BLOCK,
    BlanketChain,
    CertificationError,
    slack_bits,
    uniform_keys,
)
from finitedp.histograms.dataset import dataset_counts
from finitedp.histograms.release import PartialHistogram
from finitedp.oracle import RecordingSource, ReplaySource, SeededSource

# -- The chain --------------------------------------------------------------------------------


def binomial_law(universe: int, p: Fraction, last: int) -> dict[int | None, Fraction]:
    law: dict[int | None, Fraction] = {
        k: comb(universe, k) * p**k * (1 - p) ** (universe - k) for k in range(last + 1)
    }
    law[None] = 1 - sum(law.values())
    return law


@pytest.mark.parametrize(
    ("universe", "tail", "d", "last", "h"),
    [(5, 1, 40, 4, 20), (7, 3, 100, 6, 18), (9, 1, 11, 8, 24), (5, 2, 13, 4, 17), (3, 2, 9, 0, 20)],
)
def test_the_chain_samples_the_binomial_within_its_factor_on_every_outcome(
    universe: int, tail: int, d: int, last: int, h: int
) -> None:
    chain = BlanketChain(universe, tail, d, last, h)
    law = exact_distribution(chain.sample)
    ideal = binomial_law(universe, Fraction(tail, d), last)
    assert set(law) == set(ideal)
    factor = 1 + Fraction(1, 2**h)
    for k, q in law.items():
        steps = last + 1 if k is None else k + 1
        assert ideal[k] / factor**steps <= q <= ideal[k] * factor**steps, k
    # Never above the ideal chance of a blanket at all: Pr[|B| >= 1] <= N p.
    assert 1 - law[0] <= 1 - ideal[0] <= universe * Fraction(tail, d)


def test_each_threshold_brackets_its_conditional_probability_from_the_stated_sides() -> None:
    universe, tail, d, last, h = 6, 2, 45, 5, 16
    chain = BlanketChain(universe, tail, d, last, h)
    p = Fraction(tail, d)
    pmf = [comb(universe, k) * p**k * (1 - p) ** (universe - k) for k in range(universe + 1)]
    factor, top = 1 + Fraction(1, 2**h), 2**chain.g
    for j, a in enumerate(chain.thresholds(0, last + 1)):
        r = sum(pmf[j + 1 :]) / sum(pmf[j:])
        q = Fraction(a, top)
        assert r / factor <= q <= r  # continue: never more likely than the ideal
        assert 1 - r <= 1 - q <= (1 - r) * factor  # stop: never less likely
    assert chain.steps == last + 1 and chain.domain == top


@pytest.mark.parametrize(
    ("universe", "tail", "d", "last", "h", "low"),
    [(3, 2, 9, 0, 20, 2), (9, 1, 11, 8, 24, 8), (2**64, 3, 2**70, 20, 40, 11)],
)
def test_the_precision_is_specs(
    universe: int, tail: int, d: int, last: int, h: int, low: int
) -> None:
    """SPEC.md 2g: G = h + low + 4 with low = max(0, bits(den) - bits(num)) + 2, W = G + 32;
    the first case has bits(num) = bits(den) (rho_0 = 6/7), where the max decides."""
    chain = BlanketChain(universe, tail, d, last, h)
    assert (chain.g, chain.w) == (h + low + 4, h + low + 36)
    rho_last = Fraction((universe - last) * tail, (last + 1) * (d - tail))
    assert Fraction(1, 2**low) < rho_last / 2  # every r_j is at least rho_last / 2


def test_a_bracket_too_wide_is_refused_not_used() -> None:
    chain = BlanketChain(5, 1, 40, 4, 20)
    chain.w = chain.g + 1  # one guard bit: the brackets cannot be certified at h
    with pytest.raises(CertificationError, match="not certified"):
        chain.thresholds(0, 5)


def test_the_chain_refuses_an_expected_blanket_of_one_or_more() -> None:
    with pytest.raises(ParameterError, match="N A < d - A"):
        BlanketChain(5, 1, 6, 4, 20)  # N p = 5/6 > 1 - p
    with pytest.raises(ParameterError, match="0 < A"):
        BlanketChain(5, 0, 6, 4, 20)


def test_slack_bits_is_the_first_rung_that_fits_and_refuses_a_ratio_without_slack() -> None:
    ratio, eps = Fraction(5, 4), Fraction(1, 2)  # (5/4)^2 < e^(1/2)
    h = slack_bits(ratio, eps, 9)
    m = 18
    assert compare_exp(ratio**2 * Fraction(2**h, 2**h - m), eps) <= 0
    assert h == m.bit_length() + 16  # plenty of slack: the first rung
    with pytest.raises(ParameterError, match="unused"):
        slack_bits(Fraction(5, 4), 2 * Fraction(223143551314209755, 10**18), 9)  # ln(5/4)


def test_uniform_keys_is_a_uniform_ordering_of_distinct_keys_with_fixed_calls() -> None:
    law = exact_distribution(lambda rng: tuple(uniform_keys(rng, 4, 2, 3)))
    assert len(law) == 12 and set(law.values()) == {Fraction(1, 12)}
    assert all(len(set(keys)) == 2 for keys in law)
    assert oracle_domains(lambda data, rng: uniform_keys(rng, 4, 1, 3), ()) == {(4, 3, 2)}


# -- The whole release against the thresholded BasicHistogram -----------------------------------


def ideal_law(
    sampler: CountingSampler, threshold: int, data: tuple[int, ...], universe: int
) -> dict[PartialHistogram, Fraction]:
    """Every bin gets M(c_x); keep those above b; more than n bins -> the empty release."""
    counts = dataset_counts(data, sampler.n, universe)
    laws = [sampler.pmf(counts.get(x, 0)) for x in range(1, universe + 1)]
    out: dict[PartialHistogram, Fraction] = {}
    for values in product(*(law.items() for law in laws)):
        pairs = [(x, v) for x, (v, _) in enumerate(values, 1) if v > threshold]
        if len(pairs) > sampler.n:
            pairs = []
        release = PartialHistogram.from_pairs(universe, pairs)
        weight = Fraction(1)
        for _, w in values:
            weight *= w
        out[release] = out.get(release, Fraction(0)) + weight
    return out


def tiny(sampler: CountingSampler, threshold: int, universe: int, h: int) -> BlanketChain:
    tail = sampler.d - sampler.cdf(0, threshold)
    return BlanketChain(universe, tail, sampler.d, 2 * sampler.n, h)


@pytest.mark.parametrize(
    ("sampler", "threshold", "universe"),
    [
        (GeoSample(1, 4, noise="tight"), 0, 3),
        (FastSample(1, 4, "1/20", noise="tight"), 0, 3),
        (GeoSample(2, 4, noise="tight"), 1, 5),
    ],
)
def test_the_release_is_the_thresholded_basic_histogram_within_the_chain_factor(
    sampler: CountingSampler, threshold: int, universe: int
) -> None:
    h = slack_bits(sampler.privacy_ratio, sampler.epsilon, 2 * sampler.n + 1)  # type: ignore[attr-defined]
    chain = tiny(sampler, threshold, universe, h)

    def mechanism(data: tuple[int, ...], rng: object) -> PartialHistogram:
        counts = dataset_counts(data, sampler.n, universe)
        return blanket_histogram(sampler, threshold, chain, counts, universe, rng)  # type: ignore[arg-type]

    datasets = all_multisets(sampler.n, universe)
    laws = release_distributions(mechanism, datasets)
    factor = (1 + Fraction(1, 2**h)) ** chain.steps
    for data, law in laws.items():
        ideal = ideal_law(sampler, threshold, data, universe)
        assert set(law) == set(ideal), data
        for release, q in law.items():
            assert ideal[release] / factor <= q <= ideal[release] * factor
        assert sum(law.values()) == 1
    ratio, _ = worst_privacy_ratio(laws, neighbouring_pairs(datasets))
    assert isinstance(ratio, Fraction)
    ideal_laws = {data: ideal_law(sampler, threshold, data, universe) for data in datasets}
    ideal_ratio, _ = worst_privacy_ratio(ideal_laws, neighbouring_pairs(datasets))
    assert ideal_ratio <= sampler.privacy_ratio**2  # type: ignore[attr-defined,operator]
    assert ratio <= ideal_ratio * factor**2  # type: ignore[operator]
    assert compare_exp(ratio, sampler.epsilon) <= 0
    assert ratio != ideal_ratio  # the chain is not exact, and the check sees it


def test_every_path_makes_6n_plus_1_calls_with_public_domains() -> None:
    sampler = GeoSample(2, 4, noise="tight")
    chain = tiny(sampler, 1, 5, 20)
    floor = sampler.cdf(0, 1)
    expected = (sampler.d,) * 2 + (chain.domain,) * 5 + (5, 4, 3, 2) + (sampler.d - floor,) * 2
    for data in all_multisets(2, 5):
        counts = dataset_counts(data, 2, 5)
        traces = oracle_domains(
            lambda d, rng, c=counts: blanket_histogram(sampler, 1, chain, c, 5, rng), data
        )
        assert traces == {expected}, data
        assert len(expected) == 6 * 2 + 1


# -- The user-level class ---------------------------------------------------------------------


def test_user_level_parameters_threshold_and_privacy() -> None:
    mech = BlanketHistogram(400, 2**64, 1, "1/1000")
    sampler, b = mech.sampler, mech.threshold
    assert isinstance(sampler, FastSample) and sampler.gamma == Fraction(1, 2**64 << 40)
    # b is the least threshold whose expected blanket is at most beta/2.
    tail = lambda z: sampler.d - sampler.cdf(0, z)  # noqa: E731
    assert 2**64 * tail(b) * 2000 <= sampler.d < 2**64 * tail(b - 1) * 2000
    assert mech.privacy == Privacy(Fraction(1))
    assert mech.max_oracle_calls == 6 * 400 + 1
    m = 2 * mech.chain.steps
    assert (
        compare_exp(sampler.privacy_ratio**2 * Fraction(2**mech.chain.h, 2**mech.chain.h - m), 1)
        <= 0
    )
    assert "BlanketHistogram(n=400" in repr(mech)


def test_user_level_accuracy_is_the_samplers_at_half_beta_plus_the_threshold() -> None:
    mech = BlanketHistogram(400, 2**64, 1, "1/1000", counter="geo")
    acc = mech.accuracy("1/100")
    a = mech.sampler.accuracy(Fraction(1, 200))  # type: ignore[attr-defined]
    a_all = mech.sampler.accuracy(Fraction(1, 80000))  # type: ignore[attr-defined]
    assert (acc.per_query, acc.threshold, acc.simultaneous) == (
        a,
        a + mech.threshold,
        a_all + mech.threshold,
    )
    below = mech.accuracy("1/2000")
    assert (below.per_query, below.threshold, below.simultaneous) == (None, None, None)
    for beta in (0, 1, -1, 2):
        with pytest.raises(ParameterError, match="beta"):
            mech.accuracy(beta)
    paper = BlanketHistogram(400, 2**64, 1, "1/1000", counter="geo", noise="paper")
    assert repr(paper) == (
        "BlanketHistogram(n=400, universe_size=18446744073709551616, epsilon=1, beta=1/1000, "
        'noise="paper")'
    )
    assert repr(mech).endswith("epsilon=1, beta=1/1000)")  # tight: the default


def test_the_accuracy_statement_holds_on_the_exact_law_of_a_tiny_release() -> None:
    sampler, universe = GeoSample(2, 4, noise="tight"), 5
    chain = tiny(sampler, 1, universe, 20)
    data = (3, 3)
    law = exact_distribution(
        lambda rng: blanket_histogram(sampler, 1, chain, {3: 2}, universe, rng)
    )
    blanket = 1 - exact_distribution(chain.sample)[0]
    assert blanket <= universe * Fraction(sampler.d - sampler.cdf(0, 1), sampler.d)
    wrong = sum(
        (q for r, q in law.items() if any(r[x] != 0 for x in range(1, universe + 1) if x != 3)),
        Fraction(0),
    )
    assert 0 < wrong <= blanket  # an empty bin appears only through the blanket
    assert data and sum(law.values()) == 1


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(40, 80),
    extra=st.integers(1, 2**70),
    rows=st.lists(st.integers(1, 3), min_size=1, max_size=80),
    seed=st.binary(min_size=1, max_size=8),
)
def test_release_properties_and_replay(n: int, extra: int, rows: list[int], seed: bytes) -> None:
    universe = 2 * n + extra
    data = [rows[i % len(rows)] for i in range(n)]
    mech = BlanketHistogram(n, universe, 4, "1/10", counter="geo")
    recording = RecordingSource(SeededSource(seed))
    release = mech.release(data, recording)
    assert len(recording.tape) == mech.max_oracle_calls
    assert len(release) <= n
    assert all(mech.threshold < release[x] <= n for x in release)
    assert mech.release(data, ReplaySource(recording.tape)) == release


def test_errors_name_the_parameter_before_any_draw() -> None:
    with pytest.raises(ParameterError, match="2n \\+ 1"):
        BlanketHistogram(10, 20, 1, "1/10")
    with pytest.raises(FloatParameterError):
        BlanketHistogram(10, 100, 0.5, "1/10")
    with pytest.raises(ParameterError, match='"paper" with counter "fast"'):
        BlanketHistogram(10, 100, 1, "1/10", noise="paper")
    with pytest.raises(ParameterError, match="counter"):
        BlanketHistogram(10, 100, 1, "1/10", counter="slow")
    with pytest.raises(ParameterError, match="beta"):
        BlanketHistogram(10, 100, 1, 2)
    with pytest.raises(ParameterError, match="no threshold b < n"):
        BlanketHistogram(10, 2**64, "1/10", "1/10")
    mech = BlanketHistogram(300, 2**64, 1, "1/10")
    recording = RecordingSource(SeededSource(b"x"))
    with pytest.raises(ParameterError):
        mech.release([1] * 299, recording)
    assert recording.tape == ()


def test_blanket_threshold_may_be_n_minus_1_and_no_more() -> None:
    sampler = GeoSample(2, 4, noise="tight")
    assert blanket_threshold(sampler, 5, Fraction(1, 8)) == 1  # n - 1: the top of the search
    exact = Fraction(5 * (sampler.d - sampler.cdf(0, 1)), sampler.d)  # N Pr[M(0) > 1] itself
    assert blanket_threshold(sampler, 5, exact) == 1  # at most the budget: equality is allowed
    with pytest.raises(ParameterError, match="no threshold b < n"):
        blanket_threshold(sampler, 5, Fraction(1, 10**6))


def test_blanket_threshold_is_the_least_that_fits() -> None:
    sampler = GeoSample(50, 1)
    b = blanket_threshold(sampler, 10**6, Fraction(1, 100))
    over = lambda z: 10**6 * (sampler.d - sampler.cdf(0, z))  # noqa: E731
    assert over(b) * 100 <= sampler.d < over(b - 1) * 100


def test_the_audit_of_the_registry_entry_holds_and_states_the_chain() -> None:
    """``finitedp audit blanket`` at n = 1, |X| = 3 (eps = 6: b = 0 needs N p <= beta/2)."""
    from finitedp.audit import audit_histogram_mechanism

    report = audit_histogram_mechanism("blanket", 1, 3, 6, beta="1/2", counter="geo")
    assert report.ok, report
    assert report.privacy == Privacy(Fraction(6))
    assert isinstance(report.worst_ratio, Fraction)
    assert compare_exp(report.worst_ratio, 6) < 0
    assert any("chain: 3 steps" in line for line in report.description)


def test_the_start_bracket_holds_the_exact_ratio_where_the_universe_goes_on() -> None:
    """S_top = T_top/P_top lies in the start bracket: checked exactly where top < N (a
    universe far above the chain, so the start is not the trivial S_N = 1)."""
    universe, tail, d, last, h = 200, 1, 1000, 4, 20
    chain = BlanketChain(universe, tail, d, last, h)
    p = Fraction(tail, d)
    for top in (last + 1, last + 1 + chain.w, 150):
        ratios = [Fraction(universe - j) * p / ((j + 1) * (1 - p)) for j in range(universe)]
        s, term = Fraction(0), Fraction(1)
        for j in range(top, universe + 1):
            s += term
            term *= ratios[j] if j < universe else 0
        lo, hi = chain.start_bracket(top)
        assert lo <= s * 2**chain.w <= hi
        assert hi - 2**chain.w < 2**chain.w * ratios[top] * 2  # not vacuous: within 2 rho


def test_blocks_cover_the_chain_as_spec_says() -> None:
    """A chain of more than one block (L + 1 > 2^14): the blocks are consecutive, cover
    0..L once, and equal SPEC.md 2g's thresholds from the independent replayer."""
    import spec_replay_blanket

    from finitedp.histograms.blanketchain import BLOCK

    universe, tail, d, last, h = 2**64, 3, 2**75, BLOCK + 100, 30
    chain = BlanketChain(universe, tail, d, last, h)
    blocks = list(chain.blocks())
    assert [start for start, _ in blocks] == [0, BLOCK]
    joined = [a for _, block in blocks for a in block]
    assert len(joined) == last + 1 == chain.steps
    g, w, spec = spec_replay_blanket.chain_thresholds(universe, tail, d, last, h)
    assert (g, w) == (chain.g, chain.w) and joined == spec


@pytest.mark.parametrize(
    ("universe", "tail", "d", "last", "h"),
    [
        (2**10, 1, 2**20 + 1, 40, 20),  # d - A = 2^20 divides A 2^(W + nb): c_hi = c_lo
        (6, 2, 45, 5, 16),  # the brackets start above N: rho_j = 0 for j >= N
        (3, 1, 9, 2, 20),
    ],
)
def test_thresholds_at_an_exact_division_and_past_the_universe_are_specs(
    universe: int, tail: int, d: int, last: int, h: int
) -> None:
    """SPEC.md 2g's replayer on chains where ``c_hi = c_lo`` (the division is exact) and
    where the brackets begin past ``N``: the same thresholds, value for value."""
    import spec_replay_blanket

    chain = BlanketChain(universe, tail, d, last, h)
    g, w, spec = spec_replay_blanket.chain_thresholds(universe, tail, d, last, h)
    assert (g, w) == (chain.g, chain.w)
    assert [a for _, block in chain.blocks() for a in block] == spec
    assert (
        chain.steps + chain.w > universe or (tail << (w + universe.bit_length())) % (d - tail) == 0
    )


def test_a_later_block_is_computed_only_if_the_chain_reaches_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three blocks.  A seeded sample stops in block 0 and computes no other block; a
    tape of draws at 1 (every step goes on) through block 1 computes block 1 and stops
    at its first draw above the threshold; the calls are ``L + 1`` draws in
    ``[1, 2^G]`` either way, and the size is the serial definition's."""
    from finitedp.histograms import blanketchain
    from finitedp.histograms.blanketchain import late_block_bound

    chain = BlanketChain(2**64, 3, 2**75, 2 * BLOCK + 77, 30)
    every = [a for _, block in chain.blocks() for a in block]
    computed: list[int] = []
    original = BlanketChain.thresholds

    def counted(self: BlanketChain, start: int, stop: int) -> list[int]:
        computed.append(start)
        return original(self, start, stop)

    monkeypatch.setattr(BlanketChain, "thresholds", counted)
    recorder = RecordingSource(SeededSource(b"late"))
    size = chain.sample(recorder)
    assert computed == [] and size is not None and size < BLOCK
    assert [d for d, _ in recorder.tape] == [chain.domain] * chain.steps
    stop = BLOCK + 5  # the first draw above its threshold
    tape = [(chain.domain, 1)] * stop + [(chain.domain, every[stop] + 1)]
    tape += [(chain.domain, chain.domain)] * (chain.steps - stop - 1)
    assert chain.sample(ReplaySource(tape)) == stop and computed == [BLOCK]
    assert every[stop] + 1 <= chain.domain and all(a >= 1 for a in every[:stop])
    assert late_block_bound() > 205_000 and blanketchain.BLOCK == BLOCK == 1 << 14


def test_the_time_estimate_is_25_us_a_row_plus_the_shuffles_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """10^6 rows over 2^64: 16 s plus 8 passes of GMP over 65 bits for each of 10^6 rows."""
    from finitedp.errors import ResourceLimitError
    from finitedp.histograms.blanket import require_blanket_time
    from finitedp.resources import gmp_seconds

    estimate = Fraction(16) + gmp_seconds(65, 8 * 10**6)
    assert 19 < estimate < 20
    monkeypatch.setenv("FINITEDP_MAX_SECONDS", "20")
    require_blanket_time(10**6, 2**64)
    monkeypatch.setenv("FINITEDP_MAX_SECONDS", "19")
    with pytest.raises(ResourceLimitError, match=r"would take about (19|20) s"):
        require_blanket_time(10**6, 2**64)
    with pytest.raises(ResourceLimitError, match="blanket"):
        BlanketHistogram(10**6, 2**64, 1, "1/10")


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"epsilon": Fraction(1, 10**6)}, "ResourceLimitError", "FastSample"),
        ({"epsilon": 10**6}, "ParameterError", "epsilon"),
        ({"universe_size": 2**100000}, "NotApplicableError", "100001-bit"),
        ({"n": 10**9}, "ResourceLimitError", "about 6 h"),
        ({"epsilon": "abc"}, "ParameterError", "not an exact number"),
        ({"beta": None}, "ParameterTypeError", "beta"),
        ({"n": True}, "ParameterTypeError", "bool"),
        ({"noise": "loud"}, "ParameterError", "noise"),
        ({"beta": "1/2", "universe_size": 1000, "n": 500}, "ParameterError", "2n \\+ 1"),
    ],
)
def test_hostile_parameters_are_refused_at_once(
    kwargs: dict[str, object], error: str, pattern: str
) -> None:
    """Wrong types, extreme budgets and sizes: the named error at once, before any integer
    grows (the standing hostile suite of issue 25 item 9, for this mechanism)."""
    from work import refused_within

    import finitedp.errors

    args: dict[str, object] = {"n": 1000, "universe_size": 2**64, "epsilon": 1, "beta": "1/10"}
    raised = refused_within(
        lambda: BlanketHistogram(**{**args, **kwargs}),  # type: ignore[arg-type]
        getattr(finitedp.errors, error),
    )
    assert re.search(pattern, str(raised)), raised


def test_absent_keys_are_listed_near_the_threshold_as_stated_on_the_exact_law() -> None:
    """Issue 51: FastSample's uniform share is ``2^-40 / N``, so an absent key is listed
    far off only with the core's own tail: on the exact law of a tiny release, the chance
    of listing some absent key is at most ``absent_listed`` and of listing one beyond the
    bound for every count at most ``absent_beyond``, both exact figures of the statement."""
    mech = BlanketHistogram(3, 7, 8, "1/2")
    sampler = mech.sampler
    assert isinstance(sampler, FastSample) and 7 * sampler.gamma <= Fraction(1, 2**40)
    law = exact_distribution(lambda rng: mech._release({2: 3}, rng))
    acc = mech.accuracy("1/2")
    assert acc.simultaneous is not None and acc.absent_listed is not None
    assert acc.absent_beyond is not None

    def chance(above: int) -> Fraction:
        return sum(
            (q for r, q in law.items() if any(r[x] > above for x in range(1, 8) if x != 2)),
            Fraction(0),
        )

    assert 0 < chance(0) <= acc.absent_listed == mech.absent_tail(mech.threshold)
    assert 0 < chance(acc.simultaneous) <= acc.absent_beyond < acc.absent_listed
    # What the statement says in words (finitedp query) and in JSON.
    assert "absent_beyond" in acc.to_json_dict() and mech.absent_tail(3) == 0


def test_the_uniform_share_no_longer_lists_phantoms_with_arbitrary_counts() -> None:
    # The flights shape: before, gamma = beta/(4N) put 2.5 % on an absent key listed with
    # any count up to n; now the union bound beyond the stated bound is below 1e-8.
    mech = BlanketHistogram(336776, (256**4 - 1) // 255, 1, "1/10")
    acc = mech.accuracy("1/10")
    assert acc.absent_beyond is not None and acc.absent_beyond < Fraction(1, 10**8)
    assert acc.absent_listed is not None and acc.absent_listed <= Fraction(1, 20)


def test_the_stricter_setting_lists_absent_keys_at_most_2_to_the_minus_40() -> None:
    loose = BlanketHistogram(5613, (256**4 - 1) // 255, 2, "1/10")
    strict = BlanketHistogram(5613, (256**4 - 1) // 255, 2, "1/10", absent=Fraction(1, 2**40))
    assert strict.absent_tail(strict.threshold) <= Fraction(1, 2**40)
    assert strict.absent_tail(strict.threshold - 1) > Fraction(1, 2**40)  # the least b
    assert loose.threshold < strict.threshold <= 3 * loose.threshold
    for bad in (0, "1/19", "1/2", -1):
        with pytest.raises(ParameterError, match="absent"):
            BlanketHistogram(5613, 2**64, 2, "1/10", absent=bad)
