"""ApproxConvExp, ApproxBinSample, ApproxOrdSample (BV Section 6.3), checked exactly.

Paper: BV Def 6.12, Prop 6.15 + Alg 6.16, Prop 6.17 + Alg 6.18, Prop 6.19 + Alg 6.20,
and Prop 6.6 + Alg 6.7 for the exact OrdSample.  No sampling: every distribution
below is computed exactly by :mod:`finitedp.checker` or in closed form.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import gmpy2
import pytest
from hypothesis import given
from hypothesis import strategies as st

import finitedp.histograms.approx as approx_module
from finitedp import GeoSample, ParameterError, ParameterTypeError, ReplaySource, SeededSource
from finitedp.checker import exact_distribution, explore, statistical_distance
from finitedp.histograms.approx import (
    approx_bin_sample,
    approx_conv_exp,
    approx_ord_sample,
    convolve,
)
from finitedp.histograms.binomial import binomial_pmf, exact_bin_sample, exact_ord_sample
from finitedp.oracle import RandomSource

# -- literal references -----------------------------------------------------------


def naive_convolve(a: Sequence[int], b: Sequence[int], t: int) -> list[int]:
    """Def 6.12 term by term: O(t^2)."""
    a, b = [*a, *[0] * t], [*b, *[0] * t]  # missing entries are zero
    return [sum(a[j] * b[k - j] for j in range(k + 1)) for k in range(t)]


def literal_conv_exp(a: Sequence[int], i: int, s: int, t: int) -> list[int]:
    """Alg 6.16 as printed: recursion on floor(i/2), naive convolutions."""
    if i == 1:
        return list(a)
    b = literal_conv_exp(a, i // 2, s, t)
    if i % 2 == 0:
        return [x // s for x in naive_convolve(b, b, t)]
    return [x // s**2 for x in naive_convolve(a, naive_convolve(b, b, t), t)]


def literal_bin_sample(m: int, p: int, q: int, s: int, t: int, u: int) -> int:
    """Alg 6.18 as printed, for a given draw u (a plain int)."""
    if t == 0:
        return 0
    t_prime, p_scaled = 1, s * p // q
    while t_prime < 2 * t:
        a = ([s - p_scaled, p_scaled] + [0] * t_prime)[:t_prime]
        cdf = list(itertools.accumulate(literal_conv_exp(a, m, s, t_prime)))
        for ell in range(t_prime // 2, t_prime):
            if cdf[ell] >= u:
                return min(ell, t)
        t_prime *= 2
    return t


def exact_conv_power(a: Sequence[int], i: int, t: int) -> list[int]:
    """*^(i)(a) truncated to t terms, exactly (integers)."""
    out = list(a)
    for _ in range(i - 1):
        out = naive_convolve(out, a, t)
    return out


def truncated_binomial(m: int, p: int, q: int, t: int) -> dict[int, Fraction]:
    """min{Bin(m, p/q), t}, exactly; zero entries omitted."""
    pmf: dict[int, Fraction] = {}
    for k, mass in enumerate(binomial_pmf(m, p, q)):
        if mass:
            pmf[min(k, t)] = pmf.get(min(k, t), Fraction(0)) + mass
    return pmf


def order_statistics(f: Sequence[int], n: int, m: int) -> dict[tuple[int, ...], Fraction]:
    """The joint law of (Z_(m), ..., Z_(m-n)) by brute force over all m-tuples in [n]^m."""
    d = f[n]
    mass = [Fraction(f[v] - (f[v - 1] if v else 0), d) for v in range(n + 1)]
    law: dict[tuple[int, ...], Fraction] = {}
    for zs in itertools.product(range(n + 1), repeat=m):
        top = tuple(sorted(zs, reverse=True)[: n + 1])
        weight = Fraction(1)
        for z in zs:
            weight *= mass[z]
        if weight:
            law[top] = law.get(top, Fraction(0)) + weight
    return law


def bin_sample_matches_literal(m: int, p: int, q: int, s: int, t: int) -> list[int]:
    """Check approx_bin_sample against Alg 6.18 for every draw u in [1, s].

    Each leaf of the exploration is an interval of u on which the sampler makes the
    same decisions, hence one output; the literal algorithm is an inverse CDF, so
    non-decreasing in u, and agreeing at both ends of the interval means agreeing on
    all of it.  Returns the outputs of the leaves.
    """
    outputs = []
    for path in explore(approx_bin_sample, m, p, q, s, t):
        if t == 0:
            assert path.draws == () and path.output == 0
            continue
        (record,) = path.draws
        assert record.d == s
        for u in (record.lo, record.hi):
            assert literal_bin_sample(m, p, q, s, t, u) == path.output, (m, p, q, s, t, u)
        outputs.append(path.output)
    return outputs


@contextmanager
def forced_shift(shift: Callable[[int, int, int], int]) -> Iterator[dict[str, int]]:
    """Force the interval pass of Alg 6.16 to keep fewer bits; count exact recomputations."""
    counts = {"exact": 0, "bounds": 0}
    saved = approx_module._precision_shift, approx_module._conv_power
    saved_bounds = approx_module._conv_power_bounds

    def exact(*args: Any) -> Any:
        counts["exact"] += 1
        return saved[1](*args)

    def bounds(*args: Any) -> Any:
        counts["bounds"] += 1
        return saved_bounds(*args)

    approx_module._precision_shift = shift  # type: ignore[assignment]
    approx_module._conv_power = exact  # type: ignore[assignment]
    approx_module._conv_power_bounds = bounds  # type: ignore[assignment]
    approx_module._round_cdf.cache_clear()  # CDFs kept from other shifts would be reused
    try:
        yield counts
    finally:
        approx_module._precision_shift, approx_module._conv_power = saved
        approx_module._conv_power_bounds = saved_bounds
        approx_module._round_cdf.cache_clear()


# -- Def 6.12: convolution -----------------------------------------------------------

ENTRY = st.one_of(st.just(0), st.integers(0, 9), st.integers(0, 2**64), st.integers(0, 2**5000))


@given(st.lists(ENTRY, max_size=9), st.lists(ENTRY, max_size=9), st.integers(0, 12))
def test_convolve_equals_naive(a: list[int], b: list[int], t: int) -> None:
    assert convolve(a, b, t) == naive_convolve(a, b, t)
    assert convolve(a, a, t) == naive_convolve(a, a, t)  # the squaring path


def test_convolve_edges() -> None:
    huge = 2**9000 - 1
    assert convolve([huge] * 40, [huge] * 40, 40) == naive_convolve([huge] * 40, [huge] * 40, 40)
    assert convolve([0, 0, 5], [0, 7], 5) == [0, 0, 0, 35, 0]  # zero slots above the top
    assert convolve([3], [4], 1) == [12] and convolve([], [4], 2) == [0, 0]
    assert convolve([1, 2], [3], 0) == []
    with pytest.raises(ParameterError, match=r"a\[1\]"):
        convolve([1, -2], [3], 2)
    with pytest.raises(ParameterError, match="t: got -1"):
        convolve([1], [1], -1)
    with pytest.raises(ParameterTypeError, match=r"b\[0\]"):
        convolve([1], [1.0], 1)  # type: ignore[list-item]


# -- Prop 6.15 + Alg 6.16: ApproxConvExp ------------------------------------------------


@st.composite
def conv_exp_args(draw: st.DrawFn) -> tuple[list[int], int, int, int]:
    s = draw(st.one_of(st.integers(1, 12), st.integers(1, 10**6), st.integers(1, 2**80)))
    t = draw(st.integers(1, 6))
    budget, a = s, []
    for _ in range(t):  # a in [s]^t with ||a||_1 <= s
        x = draw(st.integers(0, budget))
        a.append(x)
        budget -= x
    a = draw(st.permutations(a))
    i = draw(st.integers(1, 40))
    return a, i, s, t


@given(conv_exp_args(), st.data())
def test_prop_6_15(args: tuple[list[int], int, int, int], data: st.DataObject) -> None:
    a, i, s, t = args
    d = approx_conv_exp(a, i, s, t)
    assert d == literal_conv_exp(a, i, s, t)  # Alg 6.16 exactly
    # i: d in [s]^t and ||d||_1 <= s.
    assert len(d) == t and all(0 <= x <= s for x in d) and sum(d) <= s
    # ii: the first t' terms do not depend on t.
    t_prime = data.draw(st.integers(1, t))
    assert approx_conv_exp(a[:t_prime], i, s, t_prime) == d[:t_prime]
    # iii: || d/s - *^(i)(a)/s^i ||_1 <= (t/s)(i - 1), exactly with Fractions.
    exact = exact_conv_power(a, i, t)
    error = sum(abs(Fraction(x, s) - Fraction(y, s**i)) for x, y in zip(d, exact, strict=True))
    assert error <= Fraction(t * (i - 1), s), (error, Fraction(t * (i - 1), s))
    if i == 1:
        assert d == a


def test_prop_6_15_iii_is_attained_closely() -> None:
    # The bound is nearly tight: here (the worst case over s <= 8, t <= 3, i <= 8)
    # d = floor(4/5) = 0 against 4/25, an error of 4/5 of the bound 1/5.
    a, i, s, t = [2], 2, 5, 1
    d = approx_conv_exp(a, i, s, t)
    exact = exact_conv_power(a, i, t)
    error = sum(abs(Fraction(x, s) - Fraction(y, s**i)) for x, y in zip(d, exact, strict=True))
    assert error == Fraction(4, 25) == Fraction(4, 5) * Fraction(t * (i - 1), s)


def test_approx_conv_exp_power_of_two_and_odd_scales() -> None:
    # The exact path divides by s = odd * 2^e as a shift and a division.
    for s in (2**70, 3 * 2**70, 2**70 + 1, 1):
        a = [s // 3, s // 5, s // 7][: 3 if s > 1 else 1]
        t = len(a)
        assert approx_conv_exp(a, 13, s, t) == literal_conv_exp(a, 13, s, t)


def test_approx_conv_exp_validation() -> None:
    with pytest.raises(ParameterError, match=r"a: got 2 entries.*t = 3"):
        approx_conv_exp([1, 1], 2, 5, 3)
    with pytest.raises(ParameterError, match=r"\|\|a\|\|_1 = 6.*s = 5"):
        approx_conv_exp([3, 3], 2, 5, 2)
    with pytest.raises(ParameterError, match=r"a\[0\]: got 6"):
        approx_conv_exp([6, 0], 2, 5, 2)
    with pytest.raises(ParameterError, match="i: got 0"):
        approx_conv_exp([1], 0, 5, 1)
    with pytest.raises(ParameterError, match="s: got 0"):
        approx_conv_exp([0], 1, 0, 1)
    with pytest.raises(ParameterTypeError, match=r"i: got 2\.0"):
        approx_conv_exp([1], 2.0, 5, 1)  # type: ignore[arg-type]


@given(conv_exp_args(), st.integers(1, 60))
def test_interval_pass_brackets_alg_6_16(args: tuple[list[int], int, int, int], r: int) -> None:
    a, i, s, t = args
    s = s * 2**90 + 12345  # large enough to keep some bits after the shift
    a = [x * 2**90 for x in a]
    r = min(r, s.bit_length() - 1)
    exact = approx_conv_exp(a, i, s, t)
    lo, hi = approx_module._conv_power_bounds(
        *approx_module._vector_bounds([gmpy2.mpz(x) for x in a], r), i, s, t, r
    )
    for x, low, high in zip(exact, lo, hi, strict=True):
        assert low << r <= x <= high << r


def test_interval_pass_one_level_exhaustive() -> None:
    # One squaring (i = 2) or one squaring times a (i = 3), for every a: the place where
    # using S- for the lower bound (or S+ for the upper) would go wrong when a is a
    # multiple of 2^r, i.e. when the interval starts exact.
    mpz = gmpy2.mpz
    for r in (1, 2, 3):
        for s in (2 ** (r + 2) + 1, 2 ** (r + 2) + 3, 3 * 2 ** (r + 1), 2 ** (r + 3) - 1):
            for t in (1, 2):
                for a in itertools.product(range(s + 1), repeat=t):
                    if sum(a) > s:
                        continue
                    for i in (2, 3):
                        exact = approx_conv_exp(list(a), i, s, t)
                        va = [mpz(x) for x in a]
                        bounds = approx_module._vector_bounds(va, r)
                        lo, hi = approx_module._conv_power_bounds(*bounds, i, s, t, r)
                        for x, low, high in zip(exact, lo, hi, strict=True):
                            assert low << r <= x <= high << r, (a, i, s, t, r)


@given(
    st.integers(1, 2**40),
    st.integers(0, 2**40),
    st.integers(1, 2**300),
    st.integers(1, 6),
    st.integers(1, 200),
)
def test_binomial_bounds_bracket_alg_6_18_vector(q: int, p: int, s: int, t: int, r: int) -> None:
    # Alg 6.18's a = (s - p', p', 0, ...) with p' = floor(s p / q), bracketed without
    # computing p' (a long division per round at n = 10^4): 2^r lo <= a <= 2^r hi.
    p = p % (q + 1)
    r = min(r, s.bit_length() - 1)
    if r < 1:
        return
    p_scaled = s * p // q
    exact = ([s - p_scaled, p_scaled] + [0] * t)[:t]
    lo, hi = approx_module._binomial_bounds(p, q, gmpy2.mpz(s), t, r)
    assert len(lo) == len(hi) == t
    for x, low, high in zip(exact, lo, hi, strict=True):
        assert low >= 0 and low << r <= x <= high << r, (p, q, s, t, r)
    # Within three units of the entries' own floor and ceiling (S+/- and p/q <= 1 each
    # add at most one): the interval pass keeps its 64 guard bits.
    own_lo, own_hi = approx_module._vector_bounds([gmpy2.mpz(x) for x in exact], r)
    assert all(a - b <= 3 for a, b in zip(own_lo, lo, strict=True))
    assert all(b - a <= 3 for a, b in zip(own_hi, hi, strict=True))


def test_binomial_bounds_exhaustive_small() -> None:
    for s in range(2, 40):
        for r in range(1, s.bit_length()):
            for q in range(1, 7):
                for p in range(q + 1):
                    p_scaled = s * p // q
                    lo, hi = approx_module._binomial_bounds(p, q, gmpy2.mpz(s), 2, r)
                    for x, low, high in zip((s - p_scaled, p_scaled), lo, hi, strict=True):
                        assert low << r <= x <= high << r, (p, q, s, r)


# -- Prop 6.17 + Alg 6.18: ApproxBinSample -----------------------------------------------

BIN_CASES = [
    # (m, p, q, s, t): the edges (p = 0, p = q, t = 0, t > m, s = m) and generic ones
    (1, 0, 1, 1, 1),
    (1, 1, 1, 1, 1),
    (3, 1, 2, 3, 0),
    (3, 1, 2, 3, 5),
    (4, 2, 3, 4, 2),
    (5, 3, 7, 5, 3),
    (5, 3, 7, 100, 3),
    (6, 1, 10, 1000, 4),
    (6, 9, 10, 1000, 7),
    (6, 5, 5, 37, 6),
    (6, 0, 5, 37, 6),
    (7, 2, 9, 2**20, 3),
    (7, 2, 9, 2**20 + 7, 8),
    (9, 1, 3, 3**9, 10),  # s = q^m: p' and every rounding are exact
    (40, 1, 7, 10**9, 20),
]


@st.composite
def bin_args(draw: st.DrawFn) -> tuple[int, int, int, int, int]:
    m = draw(st.integers(1, 8))
    q = draw(st.integers(1, 12))
    p = draw(st.integers(0, q))
    s = draw(st.one_of(st.integers(m, 3 * m), st.integers(m, 10**4), st.integers(m, 2**40)))
    t = draw(st.integers(0, m + 2))
    return m, p, q, s, t


def check_prop_6_17(m: int, p: int, q: int, s: int, t: int) -> Fraction:
    """The exact law of approx_bin_sample is (1/s) d^(t) and within the bound; its distance."""
    dist = exact_distribution(approx_bin_sample, m, p, q, s, t)
    target = truncated_binomial(m, p, q, t)
    distance = statistical_distance(dist, target)
    bound = Fraction(m * (t + 1) - t, s)
    assert distance <= bound, f"Delta = {distance} > {bound} for (m,p,q,s,t) = {(m, p, q, s, t)}"
    if t == 0:
        assert dist == {0: 1}
        return distance
    p_scaled = s * p // q
    d = approx_conv_exp(([s - p_scaled, p_scaled] + [0] * t)[:t], m, s, t)
    expected = {ell: Fraction(x, s) for ell, x in enumerate(d) if x}
    rest = 1 - Fraction(sum(d), s)
    if rest:
        expected[t] = rest
    assert dist == expected, (m, p, q, s, t)
    return distance


@pytest.mark.parametrize(("m", "p", "q", "s", "t"), BIN_CASES)
def test_prop_6_17_cases(m: int, p: int, q: int, s: int, t: int) -> None:
    distance = check_prop_6_17(m, p, q, s, t)
    bin_sample_matches_literal(m, p, q, s, t)
    if s % q**m == 0:  # every rounding exact: the law is min{Bin(m, p/q), t} itself
        assert distance == 0


@given(bin_args())
def test_prop_6_17_random(args: tuple[int, int, int, int, int]) -> None:
    check_prop_6_17(*args)
    bin_sample_matches_literal(*args)


def test_prop_6_17_distance_is_nonzero_and_shrinks_with_s() -> None:
    m, p, q, t = 6, 1, 3, 4
    distances = [check_prop_6_17(m, p, q, s, t) for s in (6, 60, 600, 6000, 60000)]
    assert all(x > 0 for x in distances)
    assert distances == sorted(distances, reverse=True)
    assert check_prop_6_17(m, p, q, 3**6 * 5, t) == 0  # q^m divides s


def test_prop_6_17_running_time_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    # An output l < t halts in round 1 + ceil(log2(l + 1)) exactly; any output takes at
    # most that many rounds (Prop 6.17's running-time claim), counted per draw u.
    rounds: list[int] = []
    original = approx_module._round_cdf  # one call per round (the CDF itself is cached)

    def counting(*args: Any) -> Any:
        rounds.append(1)
        return original(*args)

    monkeypatch.setattr(approx_module, "_round_cdf", counting)
    for m, p, q, s, t in [(9, 1, 2, 10**4, 9), (9, 1, 2, 10**4, 5), (30, 1, 3, 2**40, 17)]:
        for path in explore(approx_bin_sample, m, p, q, s, t):
            ell = path.output
            rounds.clear()
            approx_bin_sample(m, p, q, s, t, ReplaySource([(s, path.draws[0].lo)]))
            assert len(rounds) <= 1 + ell.bit_length()  # ceil(log2(l + 1))
            if ell < t:
                assert len(rounds) == 1 + ell.bit_length()


FALLBACK_CASES = [
    (5, 3, 7, 5000, 3),
    (7, 2, 9, 2**20 + 7, 8),
    (6, 1, 10, 999, 6),
    (5, 0, 3, 2**12, 3),  # p = 0: F_0 = s, equal to its upper bound when 2^r divides s
    (5, 3, 3, 2**12, 6),  # p = q: all mass beyond t' until the last round
    (4, 1, 1, 2**12 + 1, 2),
]


def keep_at_most(r: int, i: int, s: int, t: int) -> int:
    """A forced shift: r bits dropped (at most bitlen(s) - 1, so that floor(s/2^r) >= 1)."""
    return min(r, s.bit_length() - 1)


def test_interval_pass_falls_back_exactly() -> None:
    # Keep only a few bits in the interval pass, so u often lands between the bounds:
    # the output must still be Alg 6.18's for every u, and exact recomputations happen.
    for r in (1, 3, 6, 12):
        with forced_shift(functools.partial(keep_at_most, r)) as counts:
            for m, p, q, s, t in FALLBACK_CASES:
                check_prop_6_17(m, p, q, s, t)
                bin_sample_matches_literal(m, p, q, s, t)
        assert counts["bounds"] > 0 and counts["exact"] > 0, (r, counts)


def test_interval_pass_is_used_and_decides_for_large_s() -> None:
    s = 3 * 2**2000 + 1
    with forced_shift(approx_module._precision_shift) as counts:
        outputs = bin_sample_matches_literal(40, 3, 7, s, 20)
    assert set(outputs) == set(range(21))  # every output value occurs
    # The exploration splits u at every bound, so it also visits the gaps between
    # them (each visit costs one exact recomputation of a round).
    assert counts["bounds"] > 0
    with forced_shift(approx_module._precision_shift) as counts:
        for seed in range(40):
            approx_bin_sample(2**64, 1, 2**40, s, 30, SeededSource(bytes([seed])))
    # Real draws land in a gap with probability about 2^-60: none of these did.
    assert counts["bounds"] > 0 and counts["exact"] == 0


def test_approx_bin_sample_oracle_calls() -> None:
    tape = SeededSource(b"calls")
    from finitedp import RecordingSource

    recorder = RecordingSource(tape)
    approx_bin_sample(5, 1, 2, 100, 3, recorder)
    assert [d for d, _ in recorder.tape] == [100]
    approx_bin_sample(5, 1, 2, 100, 0, recorder)
    approx_bin_sample(0, 1, 2, 100, 0, recorder)  # Alg 6.20's call once all is placed
    assert len(recorder.tape) == 1


def test_approx_bin_sample_validation() -> None:
    rng = SeededSource(b"v")
    with pytest.raises(ParameterError, match=r"s: got 4.*s >= m"):
        approx_bin_sample(5, 1, 2, 4, 1, rng)
    with pytest.raises(ParameterError, match=r"p: got 3.*\[0, 2\]"):
        approx_bin_sample(5, 3, 2, 10, 1, rng)
    with pytest.raises(ParameterError, match="q: got 0"):
        approx_bin_sample(5, 0, 0, 10, 1, rng)
    with pytest.raises(ParameterError, match=r"m: got 0.*t >= 1"):
        approx_bin_sample(0, 0, 1, 10, 1, rng)
    with pytest.raises(ParameterError, match="t: got -1"):
        approx_bin_sample(5, 0, 1, 10, -1, rng)


# -- exact references -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("m", "p", "q", "t"),
    [(0, 0, 1, 1), (1, 1, 2, 1), (4, 2, 3, 2), (5, 3, 7, 9), (6, 7, 7, 3), (6, 0, 7, 3)],
)
def test_exact_bin_sample_is_the_truncated_binomial(m: int, p: int, q: int, t: int) -> None:
    assert exact_distribution(exact_bin_sample, m, p, q, t) == truncated_binomial(m, p, q, t)
    assert exact_distribution(exact_bin_sample, m, p, q, 0) == {0: 1}
    assert sum(binomial_pmf(m, p, q)) == 1


# -- Prop 6.19 + Alg 6.20: ApproxOrdSample -------------------------------------------------

GEO = GeoSample(2, 1)  # F = (9, 11, 15), d = 15
F = [GEO.scaled_cdf_at_zero(z) for z in range(3)]


def ord_distance(m: int, s: int, cdf: Callable[[int], int] = GEO.scaled_cdf_at_zero) -> Fraction:
    dist = exact_distribution(approx_ord_sample, cdf, 2, m, s)
    assert all(len(c) == 3 and list(c) == sorted(c, reverse=True) for c in dist)
    return statistical_distance(dist, order_statistics(F, 2, m))


@pytest.mark.parametrize("m", [3, 4, 5])
def test_prop_6_6_exact_ord_sample(m: int) -> None:
    law = order_statistics(F, 2, m)
    assert exact_distribution(exact_ord_sample, GEO.scaled_cdf_at_zero, 2, m) == law


@pytest.mark.parametrize("m", [3, 4, 5])
def test_prop_6_19(m: int) -> None:
    n = 2
    distances = {}
    for s in (m, m + 1, 10, 97, 1000, 10**6, 2**64, 2**1000 + 1):  # the last: interval pass
        distance = ord_distance(m, s)
        bound = Fraction(m * (n * n + 2 * n), s)
        assert distance <= bound, f"m={m} s={s}: Delta = {distance} > bound {bound}"
        distances[s] = distance
    assert distances[10] > 0 and distances[10**6] > 0 and distances[2**64] > 0
    # s a multiple of 15^m 11^m: every p' and every rounding is exact, so Delta = 0.
    assert ord_distance(m, (15 * 11) ** m) == 0
    assert ord_distance(m, 7 * (15 * 11) ** m) == 0


def test_prop_6_19_test_can_fail() -> None:
    # Wrong variants of Alg 6.20 exceed the bound m (n^2 + 2n)/s, so the test above
    # would catch them: (a) rounding with a coarse s' = m instead of s, (b) forgetting
    # to remove the L' placed draws from the trials.
    m, n, s = 4, 2, 2**64
    bound = Fraction(m * (n * n + 2 * n), s)
    original = approx_module._bin_sample  # what ApproxOrdSample calls for each level

    def coarse(mm: int, p: int, q: int, ss: int, big: Any, t: int, rng: RandomSource) -> int:
        precision = mm if t else ss
        return original(mm, p, q, precision, gmpy2.mpz(precision), t, rng)

    def all_trials(mm: int, p: int, q: int, ss: int, big: Any, t: int, rng: RandomSource) -> int:
        return original(m, p, q, ss, big, t, rng)

    for wrong in (coarse, all_trials):
        approx_module._bin_sample = wrong
        try:
            distance = ord_distance(m, s)
        finally:
            approx_module._bin_sample = original
        assert distance > bound, wrong.__name__
    assert ord_distance(m, s) <= bound


def test_approx_ord_sample_large_s_matches_the_exact_path() -> None:
    # At s = 2^1000 the interval pass is used; forcing the exact pass must give the same law.
    s = 2**1000 + 3
    fast = exact_distribution(approx_ord_sample, GEO.scaled_cdf_at_zero, 2, 5, s)
    with forced_shift(lambda i, s, t: 0) as counts:
        slow = exact_distribution(approx_ord_sample, GEO.scaled_cdf_at_zero, 2, 5, s)
    assert counts["bounds"] == 0 and fast == slow
    assert approx_module._precision_shift(5, s, 4) > 0


def test_approx_ord_sample_oracle_calls_and_output() -> None:
    from finitedp import RecordingSource

    recorder = RecordingSource(SeededSource(b"ord"))
    out = approx_ord_sample(GEO.scaled_cdf_at_zero, 2, 3, 10**6, recorder)
    assert len(out) == 3 and list(out) == sorted(out, reverse=True)
    assert 1 <= len(recorder.tape) <= 2 and all(d == 10**6 for d, _ in recorder.tape)
    # u = s places all n + 1 = 3 values at v = 2; then no draw is made for v = 1.
    assert literal_bin_sample(3, 4, 5, 3, 3, 3) == 3
    tape = ReplaySource([(3, 3)])
    assert approx_ord_sample(lambda v: [1, 1, 5][v], 2, 3, 3, tape) == (2, 2, 2)
    tape.assert_exhausted()


def test_approx_ord_sample_validation() -> None:
    rng = SeededSource(b"v")
    cdf = GEO.scaled_cdf_at_zero
    with pytest.raises(ParameterError, match=r"m: got 2.*m >= n \+ 1"):
        approx_ord_sample(cdf, 2, 2, 10, rng)
    with pytest.raises(ParameterError, match=r"s: got 3.*s >= m"):
        approx_ord_sample(cdf, 2, 4, 3, rng)
    with pytest.raises(ParameterError, match=r"F\(0\) = 0"):
        approx_ord_sample(lambda v: [0, 1, 2][v], 2, 3, 10, rng)
    with pytest.raises(ParameterError, match=r"F\(2\) = 1 < F\(1\) = 2"):
        approx_ord_sample(lambda v: [1, 2, 1][v], 2, 3, 10, rng)
    with pytest.raises(ParameterTypeError, match=r"F\(1\)"):
        approx_ord_sample(lambda v: [1, Fraction(3, 2), 2][v], 2, 3, 10, rng)  # type: ignore[arg-type, return-value]
    with pytest.raises(ParameterError, match="n: got 0"):
        approx_ord_sample(cdf, 0, 3, 10, rng)
