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


def test_duckdbs_overflow_guard_at_its_exact_edge() -> None:
    # |v b q| + |a q| < 2^126 for every BIGINT v: at a = -(2^126 - 2^64) the bound is
    # reached (refused: the text path), one unit inside it fits (the HUGEINT path).
    from finitedp.engines.duckdb.statistics import _IntegerGrid
    from finitedp.io.numeric import NumericColumn

    def column(lower: int) -> NumericColumn:
        return NumericColumn("x", Fraction(lower), Fraction(lower + 4), Fraction(1))

    edge = -(2**126 - 2**64)
    assert not _IntegerGrid.fits(column(edge), 64)
    assert _IntegerGrid.fits(column(edge + 1), 64)
    assert not _IntegerGrid.fits(column(-(2**126)), 64)  # the issue's [-2^126, -2^126 + 4]
    wide = NumericColumn("x", Fraction(0), Fraction(2**126), Fraction(1))  # D b p = 2^126
    assert not _IntegerGrid.fits(wide, 8)
    assert _IntegerGrid.fits(NumericColumn("x", Fraction(0), Fraction(2**126 - 1), Fraction(1)), 8)


def test_a_row_at_the_radius_is_in_the_sums_and_not_beyond() -> None:
    # PLAN's rounded sums take the rows with N_j <= within and rows_beyond those with
    # N_j > within: a row exactly at the radius is in the first, never in both or neither.
    import numpy as np

    from finitedp.statistics import ArrayStatistics, rounded

    columns = [np.array([0, 3, 4, 6, 1], dtype=np.int64), np.array([0, 4, 3, 8, 1], dtype=np.int64)]
    stats = ArrayStatistics(columns)
    centre, scales = [0, 0], [1, 1]
    rows = np.stack(columns, axis=1)
    norms = [int(np.ceil(np.sqrt(float(x * x + y * y)))) for x, y in rows.tolist()]
    within = 5  # rows 1 and 2 lie exactly at 5 (3-4-5), row 3 at 10 beyond it
    assert norms == [0, 5, 5, 10, 2]
    inside = rows[[n <= within for n in norms]]
    expected = rounded(inside * 1, 3, 2).sum(axis=0)
    assert stats.rounded_sums(centre, scales, 3, 2, within) == [int(v) for v in expected]
    beyond = [b for block, bs in stats.rows_beyond(centre, scales, within) for b in bs]
    assert beyond == [10]
