"""Exact logarithms, exponential comparisons and simplest fractions, against brute force."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp import GeometricRatio, ParameterError
from finitedp.exactmath import (
    ceil_log,
    ceil_log_ratio,
    compare_exp,
    exp_bounds,
    least_such_that,
    ln_bounds,
    min_power_at_least,
    simplest_between,
)

positive = st.fractions(min_value=Fraction(1, 10**6), max_value=10**6)


@given(positive, st.integers(2, 10))
def test_ceil_log_is_the_least_sufficient_exponent(x: Fraction, base: int) -> None:
    k = ceil_log(x, base)
    assert Fraction(base) ** k >= x > Fraction(base) ** (k - 1)


@given(st.fractions(min_value=-20, max_value=20), st.integers(8, 200))
def test_exp_bounds_bracket_and_shrink(x: Fraction, precision: int) -> None:
    low, high = exp_bounds(x, precision)
    assert low <= high
    # e^x e^-x = 1, so the two brackets must be consistent with each other.
    low2, high2 = exp_bounds(-x, precision)
    assert low * low2 <= 1 <= high * high2
    assert high - low <= Fraction(64, 2**precision) * max(1, high)


@given(
    st.fractions(min_value=Fraction(1, 100), max_value=10), st.fractions(min_value=0, max_value=1)
)
def test_compare_exp_agrees_with_exp_bounds(x: Fraction, t: Fraction) -> None:
    # compare_exp(r, x) is monotone in r and consistent with bounds.
    low, high = exp_bounds(x, 32)
    assert compare_exp(low - t - Fraction(1, 10**9), x) == -1
    assert compare_exp(high + t + Fraction(1, 10**9), x) == 1


def test_compare_exp_known_values() -> None:
    assert compare_exp(Fraction(271828, 100000), 1) == -1  # 2.71828 < e
    assert compare_exp(Fraction(271829, 100000), 1) == 1
    assert compare_exp(1, 0) == 0
    assert compare_exp(Fraction(33, 32), Fraction(1, 32)) == -1  # ln(1 + x) < x


@given(positive, st.integers(1, 60))
def test_simplest_between_has_the_least_denominator(low: Fraction, width_den: int) -> None:
    high = low + Fraction(1, width_den)
    best = simplest_between(low, high)
    assert low <= best <= high
    for q in range(1, best.denominator):
        # No fraction with a smaller denominator lies in [low, high].
        p = -((-low.numerator * q) // low.denominator)  # ceil(low * q)
        assert Fraction(p, q) > high


@given(st.fractions(min_value=Fraction(101, 100), max_value=3), positive)
def test_min_power_at_least(ratio: Fraction, target: Fraction) -> None:
    a = min_power_at_least(ratio, target)
    assert a >= 0 and ratio**a >= target
    assert a == 0 or ratio ** (a - 1) < target


def test_tight_ratio_examples_and_errors() -> None:
    assert GeometricRatio.tight(Fraction(1, 100)) == GeometricRatio(200, 201)
    assert GeometricRatio.tight(Fraction(1)).exp_epsilon == Fraction(23, 14)
    with pytest.raises(ParameterError, match="slack"):
        GeometricRatio.tight(Fraction(1), Fraction(0))
    with pytest.raises(ParameterError, match="0 < a < b"):
        GeometricRatio(3, 3)


@given(st.integers(-50, 50), st.integers(0, 10**6))
def test_least_such_that_finds_the_threshold(start: int, above: int) -> None:
    threshold = start + above
    calls: list[int] = []

    def holds(t: int) -> bool:
        calls.append(t)
        return t >= threshold

    assert least_such_that(holds, start) == threshold
    assert len(calls) <= 2 * max(above, 1).bit_length() + 2  # O(log) calls


ratios = st.fractions(min_value=Fraction(1001, 1000), max_value=100).filter(lambda r: r > 1)


@given(ratios, st.integers(-40, 40), st.sampled_from([-1, 0, 1]))
def test_ceil_log_ratio_at_exact_powers_and_next_to_them(r: Fraction, k: int, nudge: int) -> None:
    # Exact powers are where a bracket of the logarithms can never decide: the
    # answer there comes from the exact check, and one step off it must move.
    target = r**k + Fraction(nudge, 10**30)
    if target <= 0:
        return
    j = ceil_log_ratio(r, target)
    assert r**j >= target > r ** (j - 1)


@given(ratios, st.fractions(min_value=Fraction(1, 10**40), max_value=10**40))
def test_ceil_log_ratio_is_the_least_sufficient_exponent(r: Fraction, target: Fraction) -> None:
    j = ceil_log_ratio(r, target)
    assert r**j >= target > r ** (j - 1)


def test_ceil_log_ratio_is_fast_when_the_answer_is_huge() -> None:
    # BV's e^(eps/2) at eps = 10^-48 is (2^160 + 1)/2^160: the answer is near
    # 2^161 ln 10, and a search over powers of the ratio would never end.
    r = Fraction(2**160 + 1, 2**160)
    j = ceil_log_ratio(r, Fraction(10))
    low, high = ln_bounds(r, 256)
    assert (j - 1) * low < ln_bounds(Fraction(10), 256)[1]
    assert j * high > ln_bounds(Fraction(10), 256)[0]
    assert j.bit_length() == 162


# Deciding e^low <= x <= e^high exactly costs a Taylor series of fractions as wide as the
# precision; at up to 300 bits this one test took half of the suite (about 4 minutes).
# The law is the same at every precision: 8 to 128 bits, 50 examples.
@settings(max_examples=50, deadline=None)
@given(st.fractions(min_value=Fraction(1, 10**30), max_value=10**30), st.integers(8, 128))
def test_ln_bounds_bracket_with_relative_precision(x: Fraction, precision: int) -> None:
    low, high = ln_bounds(x, precision)
    assert low <= high
    # e^low <= x <= e^high, decided exactly.
    assert compare_exp(x, low) >= 0 and compare_exp(x, high) <= 0
    assert high - low <= Fraction(4, 2**precision) * max(abs(low), abs(high))


@settings(max_examples=40, deadline=None)
@given(
    st.fractions(min_value=Fraction(1, 1000), max_value=1000),
    st.fractions(min_value=Fraction(1, 10**12), max_value=10**12),
)
def test_ceil_ln_is_the_least_sufficient_integer(coefficient: Fraction, x: Fraction) -> None:
    from finitedp.exactmath import ceil_ln

    a = ceil_ln(coefficient, x)
    assert compare_exp(x, a / coefficient) <= 0 < compare_exp(x, (a - 1) / coefficient)


def test_ceil_ln_of_a_huge_argument_is_fast() -> None:
    # CompactHistogram's accuracy at |X| = 256^1025 used to sum e^5700's series.
    from finitedp.exactmath import ceil_ln

    a = ceil_ln(Fraction(9, 2), Fraction(2**8200 * 10))
    low, high = ln_bounds(Fraction(2**8200 * 10), 128)
    assert a - 1 < Fraction(9, 2) * low and Fraction(9, 2) * high <= a


@settings(max_examples=40, deadline=None)
@given(
    st.fractions(min_value=Fraction(64), max_value=Fraction(10**6), max_denominator=10**6),
    st.sampled_from([8, 64, 200]),
    st.booleans(),
)
def test_exp_bounds_by_squaring_bracket_e_to_the_x(
    x: Fraction, precision: int, negative: bool
) -> None:
    """Past |x| = 64, e^x is (e^(x/2^k))^(2^k) in fixed point (issue 40: the series took
    minutes at |x| = 4096); the bracket is checked against mpmath at 60 digits, relative."""
    import mpmath

    mpmath.mp.dps = 60 + int(precision * 0.31)
    value = -x if negative else x
    low, high = exp_bounds(value, precision)
    true = mpmath.exp(mpmath.mpf(value.numerator) / value.denominator)
    assert mpmath.mpf(low.numerator) / low.denominator <= true
    assert true <= mpmath.mpf(high.numerator) / high.denominator
    if not negative:  # relative precision for e^x >= 1 (e^-x is rounded to 2^-precision)
        assert (high - low) / low <= Fraction(1, 2 ** (precision - 2))


def test_exp_bounds_refuses_an_exponent_past_2_to_the_24() -> None:
    with pytest.raises(ParameterError, match=r"exponent: e\^x with \|x\| about 2\^25"):
        exp_bounds(-(2**25))
    assert exp_bounds(2**10)[0] > 2**1477  # e^1024 = 2^1477.3...
