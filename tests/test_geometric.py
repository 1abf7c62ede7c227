"""GeometricMechanism (BV Alg 4.5, Thm 4.6) as an exact distribution."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finitedp import GeometricMechanism, ParameterError
from finitedp.checker import max_privacy_ratio


@given(st.integers(1, 30), st.fractions(min_value=Fraction(101, 100), max_value=4), st.data())
def test_pmf_is_the_clamped_two_sided_geometric(
    n: int, ratio: Fraction, data: st.DataObject
) -> None:
    g = GeometricMechanism(n, ratio)
    c = data.draw(st.integers(0, n))
    pmf = g.pmf(c)
    assert sum(pmf.values()) == 1
    alpha = 1 / ratio
    for z in range(1, n):  # interior points carry the unclamped geometric mass
        assert pmf[z] == (1 - alpha) / (1 + alpha) * alpha ** abs(z - c)
    # the clamped ends carry the tails: sum_{j >= c} of the mass at c - j, and symmetrically
    assert pmf[0] == alpha**c / (1 + alpha)
    assert pmf[n] == alpha ** (n - c) / (1 + alpha)


@given(st.integers(1, 12), st.fractions(min_value=Fraction(101, 100), max_value=4))
def test_thm_4_6_i_privacy_ratio_is_exactly_the_ratio(n: int, ratio: Fraction) -> None:
    g = GeometricMechanism(n, ratio)
    worst, _ = max_privacy_ratio([g.pmf(c) for c in range(n + 1)], [(c, c + 1) for c in range(n)])
    assert worst == ratio


@given(
    st.integers(1, 40),
    st.fractions(min_value=Fraction(11, 10), max_value=3),
    st.fractions(min_value=Fraction(1, 1000), max_value=Fraction(999, 1000)),
)
def test_thm_4_6_ii_accuracy(n: int, ratio: Fraction, beta: Fraction) -> None:
    g = GeometricMechanism(n, ratio)
    a = g.accuracy(beta)
    for c in (0, n // 2, n):
        assert sum(p for z, p in g.pmf(c).items() if abs(z - c) <= a) >= 1 - beta


def test_bad_ratio() -> None:
    with pytest.raises(ParameterError, match="greater than 1"):
        GeometricMechanism(3, 1)
