"""Edges a mutation round found unpinned (issue 54 item 7), each pinned from both sides.

Laws, against the exact laws (integer weights) the convolved Gaussian gives on small
supports: the tail bound is at least the exact tail at every ``t`` (equal where the law
has one table) and 0 beyond the support; ``tail_within`` answers the exact comparison
at the edge itself (``<=``, not ``<``); ``hockey_stick``'s default sensitivity is 1;
the leading words refuse a width of 0 bits.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from finitedp.counting.convolved import ConvolvedGaussian
from finitedp.counting.leading import WORD_BITS, LeadingWords
from finitedp.errors import ParameterError


def _exact_tail(law: ConvolvedGaussian, t: int) -> Fraction:
    weights = law.weights()
    outside = sum(w for z, w in weights.items() if abs(z) > t)
    return Fraction(outside, law.weight_total)


@pytest.mark.parametrize("sigma2", [Fraction(1, 2), Fraction(1000), Fraction(39168)])
def test_the_tail_bound_is_at_least_the_exact_tail(sigma2: Fraction) -> None:
    law = ConvolvedGaussian.from_variance(sigma2)
    radius = law.radius
    points = sorted({0, 1, 2, radius // 4, radius // 2, radius - 1, radius, radius + 5})
    for t in points:
        exact = _exact_tail(law, t)
        bound = law.tail_bound(t)
        assert bound >= exact, (sigma2, t)
        if law.levels == 0:
            assert bound == exact, (sigma2, t)  # one table: the exact tail itself
    assert law.tail_bound(radius) == 0  # nothing lies beyond the support


def test_tail_within_is_the_exact_comparison_at_its_edge() -> None:
    law = ConvolvedGaussian.from_variance(Fraction(1, 2))
    tail = _exact_tail(law, 0)  # Pr[Z != 0], about 0.43
    assert law.tail_within(0, tail) and not law.tail_within(0, tail - Fraction(1, 10**30))
    assert law.tail_within(0, Fraction(99, 100)) and not law.tail_within(0, Fraction(1, 100))
    assert not law.tail_within(-1, Fraction(99, 100))
    assert law.accuracy(tail) == 0 < law.accuracy(tail - Fraction(1, 10**30))


def test_hockey_stick_shifts_by_one_unless_told() -> None:
    law = ConvolvedGaussian.from_variance(Fraction(9))
    e = Fraction(3)
    assert law.hockey_stick(e) == law.hockey_stick(e, sensitivity=1)
    assert law.hockey_stick(e, sensitivity=2) > law.hockey_stick(e)


def test_leading_words_take_one_to_word_bits() -> None:
    for bits in (0, -1, WORD_BITS + 1):
        with pytest.raises(ParameterError, match="bits"):
            LeadingWords([1, 2, 3], low=0, high=10, bits=bits)
    for bits in (1, WORD_BITS):
        LeadingWords([1, 2, 3], low=0, high=10, bits=bits)
