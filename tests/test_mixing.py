"""The mixing construction of BV Alg 3.1 / Lemma 3.2."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finitedp import Mixture, ParameterError, RecordingSource, SeededSource
from finitedp import satisfies_condition_1 as condition_1
from finitedp.checker import exact_distribution, max_privacy_ratio
from finitedp.oracle import RandomSource, draw


def biased_bit(data: int, rng: RandomSource) -> int:
    """A deliberately non-private mechanism: outputs the data bit with probability 9/10."""
    return data if draw(rng, 10) <= 9 else 1 - data


def coin(rng: RandomSource) -> int:
    return draw(rng, 2) - 1


def test_alg_3_1_distribution_is_the_mixture() -> None:
    mixture = Mixture(biased_bit, coin, "1/4")
    dist = exact_distribution(mixture, 1)
    assert dist == {
        1: Fraction(3, 4) * Fraction(9, 10) + Fraction(1, 4) / 2,
        0: Fraction(3, 4) * Fraction(1, 10) + Fraction(1, 4) / 2,
    }


def test_both_branches_always_draw() -> None:
    # The oracle calls do not depend on which branch is released.
    tapes = set()
    for seed in range(40):
        rng = RecordingSource(SeededSource(bytes([seed])))
        Mixture(biased_bit, coin, "1/3")(0, rng)
        tapes.add(tuple(d for d, _ in rng.tape))
    assert tapes == {(3, 10, 2)}


@given(
    st.fractions(min_value=0, max_value=Fraction(1, 2)),
    st.integers(2, 50),
    st.fractions(min_value=Fraction(1, 100), max_value=1),
    st.fractions(min_value=Fraction(101, 100), max_value=5),
)
def test_condition_1_matches_its_closed_form(
    delta: Fraction, g: int, p: Fraction, r: Fraction
) -> None:
    gamma = Fraction(1, g)
    expected = delta <= (r - 1) / (r + 1) * gamma / (1 - gamma) * p
    assert condition_1(delta=delta, gamma=gamma, min_probability=p, exp_epsilon=r) == expected


def test_lemma_3_2_i_on_an_exact_example() -> None:
    """M' is 1/30-close to a ratio-2 mechanism M; (1) decides which gamma restores ratio 2."""

    def close(data: int, rng: RandomSource) -> int:
        # M releases the data bit w.p. 2/3 (ratio 2); M' w.p. 7/10, at distance 1/30.
        return data if draw(rng, 10) <= 7 else 1 - data

    r, delta, p = Fraction(2), Fraction(1, 30), Fraction(1, 2)
    # (1): 1/30 <= (1/3) * gamma/(1 - gamma) * 1/2 holds iff gamma >= 1/6.
    assert condition_1(delta=delta, gamma="1/6", min_probability=p, exp_epsilon=r)
    assert not condition_1(delta=delta, gamma="1/7", min_probability=p, exp_epsilon=r)
    mixture = Mixture(close, coin, "1/6")
    mixture.require_pure_dp(delta=delta, min_fallback_probability=p, exp_epsilon=r)
    ratio, _ = max_privacy_ratio([exact_distribution(mixture, x) for x in (0, 1)], [(0, 1)])
    assert ratio == r  # the lemma's bound is attained here
    # With gamma = 1/7 the ratio exceeds 2, so the condition is not just sufficient here.
    weaker = Mixture(close, coin, "1/7")
    ratio7, _ = max_privacy_ratio([exact_distribution(weaker, x) for x in (0, 1)], [(0, 1)])
    assert ratio7 == Fraction(47, 23)


def test_require_pure_dp_refuses_when_condition_1_fails() -> None:
    mixture = Mixture(biased_bit, coin, "1/2")
    with pytest.raises(ParameterError, match=r"condition \(1\) of BV Lemma 3\.2 fails"):
        mixture.require_pure_dp(delta="1/10", min_fallback_probability="1/2", epsilon="1/100")
    with pytest.raises(ParameterError, match="exactly one"):
        condition_1(delta=0, gamma="1/2", min_probability="1/2")
    with pytest.raises(ParameterError, match="gamma"):
        Mixture(biased_bit, coin, "2/3")
