"""Accuracy tables (BV Figs 3-5) and lower bounds (Thms 7.1-7.2), against their formulas."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp import GeoSample, ParameterError
from finitedp.exactmath import ceil_ln, compare_exp
from finitedp.histograms.bounds import (
    basic_accuracy,
    per_query_lower_bound,
    pure_sparse_accuracy,
    simultaneous_lower_bound,
    sparse_per_query_lower_bound,
    stability_accuracy,
    stability_threshold,
)

inverse = st.integers(1, 64).map(lambda k: Fraction(1, k))


@given(
    st.fractions(min_value=Fraction(1, 50), max_value=50),
    st.fractions(min_value=Fraction(1, 10**6), max_value=10**6),
)
def test_ceil_ln_is_the_least_integer_above(c: Fraction, x: Fraction) -> None:
    a = ceil_ln(c, x)
    # a >= c ln x  <=>  e^(a/c) >= x, and a - 1 fails.
    assert compare_exp(x, Fraction(a) / c) <= 0
    assert compare_exp(x, Fraction(a - 1) / c) > 0


@settings(max_examples=25)  # each example makes a few exact exp comparisons
@given(inverse, inverse.filter(lambda b: b < 1), st.integers(1, 10**9))
def test_figure_entries_match_their_formulas(eps: Fraction, beta: Fraction, m: int) -> None:
    c = Fraction(9, 2) / eps
    fig3 = basic_accuracy("fast", eps, beta, m)
    assert fig3.per_query == ceil_ln(c, 2 / beta) and fig3.simultaneous == ceil_ln(c, 2 * m / beta)
    fig5 = pure_sparse_accuracy("geo", eps, beta, m)
    assert fig5.threshold == 2 * ceil_ln(c, 4 * m / beta)
    # Float cross-check away from integer boundaries (display-level arithmetic only).
    approx = float(c) * math.log(float(2 / beta))
    if abs(approx - round(approx)) > 1e-6:
        assert fig3.per_query == math.ceil(approx)


def test_fig_4_threshold_and_entries() -> None:
    eps, delta, beta = Fraction(1, 2), Fraction(1, 10**6), Fraction(1, 10)
    assert stability_threshold("fast", eps, delta) == 1 + math.ceil(9 * math.log(4 * 10**6))
    acc = stability_accuracy("fast", 1000, eps, delta, beta)
    assert acc.threshold == 2 + math.ceil(9 * math.log(8 * 10**7))
    assert acc.simultaneous == 2 + math.ceil(9 * math.log(8 * 10**10))


@given(inverse, inverse.filter(lambda b: b <= Fraction(1, 2)), st.integers(1, 10**4))
def test_lower_bounds_are_below_what_geosample_achieves(
    eps: Fraction, beta: Fraction, n: int
) -> None:
    # GeoSample-based histograms are eps-DP with per-query error ceil(ln(1/beta)/ln(b/a)).
    achieved = GeoSample(1, eps).accuracy(beta)
    assert per_query_lower_bound(eps, Fraction(0), beta, n) <= achieved


def test_lower_bound_values_by_hand() -> None:
    eps, beta = Fraction(1), Fraction(1, 8)
    # a >= 1/2 (ln 2 - 1) < 0: no constraint.
    assert per_query_lower_bound(eps, Fraction(0), beta, 10) == 0
    # ln(1/(4/10^6)) = 12.43 -> (12.43 - 1)/2 = 5.7 -> 6
    assert per_query_lower_bound(eps, Fraction(0), Fraction(1, 10**6), 100) == 6
    assert per_query_lower_bound(eps, Fraction(0), Fraction(1, 10**6), 3) == 2  # capped by n/2
    # delta-term: ln(1/(4 * 10^-9)) = 19.3 -> 9.2 -> 10 ; beta-term 6 is smaller
    assert per_query_lower_bound(eps, Fraction(1, 10**9), Fraction(1, 10**6), 100) == 6
    assert simultaneous_lower_bound(eps, Fraction(0), Fraction(1, 4), 100, 10**6 + 1) == 7
    # 1/2 (ln(2^64 / (16 * 1/4 * 10)) / 2 - 1) = 1/2 (20.02 - 1) = 9.5 -> 10
    assert sparse_per_query_lower_bound(eps, Fraction(0), Fraction(1, 4), 100, 2**64, 10) == 10
    with pytest.raises(ParameterError):
        per_query_lower_bound(eps, Fraction(0), Fraction(3, 4), 10)
