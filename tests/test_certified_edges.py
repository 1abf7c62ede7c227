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
    # a step p/q = 3: D b p = (2^126/3 + 1) 3 passes 2^126 (D b // p would not)
    third = NumericColumn("x", Fraction(0), Fraction(3 * (2**126 // 3 + 1)), Fraction(3))
    assert third.units == 2**126 // 3 + 1 and not _IntegerGrid.fits(third, 8)
    assert _IntegerGrid.fits(
        NumericColumn("x", Fraction(0), Fraction(3 * (2**126 // 3)), Fraction(3)), 8
    )


def test_a_grid_of_2_to_the_62_points_is_refused_and_one_less_taken() -> None:
    from finitedp.engines.duckdb.statistics import check_points
    from finitedp.io.numeric import NumericColumn

    def grid(points: int) -> NumericColumn:
        return NumericColumn("x", Fraction(0), Fraction(points - 1), Fraction(1))

    assert grid(2**62).units == 2**62 - 1  # units counts the steps: points - 1
    check_points(grid(2**62))  # 2^62 - 1 steps
    with pytest.raises(ParameterError, match="2\\^62"):
        check_points(grid(2**62 + 1))


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


def test_the_batch_agrees_with_one_by_one_on_draws_that_tie_a_threshold() -> None:
    # Draws built from each column's threshold limbs (equal, one below, one above, and
    # equal in the top limb only) at every level: the numpy batch reads them as the
    # single draw does (own below the threshold, alias from it on).
    import numpy as np

    from finitedp.counting.convolvedbatch import batch_values, level_arrays

    law = ConvolvedGaussian.from_variance(Fraction(39168))  # two levels: B and J_0
    levels = law._levels
    assert len(levels) == 2
    words = (law.d.bit_length() - 1) // 64
    draws: list[int] = []
    for at, level in enumerate(levels):
        shift = sum(lv.field for lv in levels[:at])
        for c, t in list(enumerate(level.thr))[:: max(1, len(level.thr) // 16)]:
            top = t >> (level.offset_bits - 64) << (level.offset_bits - 64)  # top limb only
            low = t & ((1 << 64) - 1)  # the lowest limb; one above in the limb over it
            over = (t >> 128 << 128) | ((((t >> 64) & ((1 << 64) - 1)) + 1) << 64)
            for r in {0, t, t - 1, t + 1, top, top - 1, over, over | low} - {-1}:
                if r >= 1 << level.offset_bits:
                    continue
                field = r | (c << level.offset_bits)
                draws.append(1 + (field << shift))
    assert len(draws) > 100
    data = b"".join((u - 1).to_bytes(8 * words, "little") for u in draws)
    fields = np.frombuffer(data, dtype="<u8").reshape(len(draws), words)
    batch = batch_values([level_arrays(level) for level in levels], fields)
    assert batch == [law(u) for u in draws]
    # and packed from a tape (a source without words): each u - 1 on its threshold
    from finitedp.oracle import ReplaySource

    assert law.sample_many(len(draws), ReplaySource((law.d, u) for u in draws)) == batch


def _ratio_bounds(law: ConvolvedGaussian, z: int, p: Fraction) -> tuple[Fraction, Fraction]:
    """``p e^(z^2/(2 sigma^2))`` bracketed within ``2^-200``."""
    from finitedp.exactmath import exp_bounds

    low, high = exp_bounds(Fraction(z * z) / (2 * law.sigma2), 200)
    return p * low, p * high


@pytest.mark.parametrize("sigma2", [Fraction(65, 4), Fraction(37, 4), Fraction(145, 4)])
def test_the_upper_constant_brackets_the_highest_ratio(sigma2: Fraction) -> None:
    # A design whose lattice sums are far from sqrt(2 pi v) (eps_v about 0.61): the
    # upper constant K (1 + eps_v) must be at least the law's highest p(z) e^(z^2/2s^2)
    # and, with 64-bit tables, within 1/500 of it (the worst centre reaches 1 + 2q).
    from finitedp.counting.convolvedtables import GaussianDesign

    design = GaussianDesign(
        lattice=2, base_sigma2=Fraction(1, 4), base_bits=64, top_bits=64, top_min_sigma2=Fraction(1)
    )
    law = ConvolvedGaussian.from_variance(sigma2, design=design)
    certifier = law._certifier
    assert law.levels >= 1 and certifier._shapes[0].excess > Fraction(1, 2)
    highest = max(_ratio_bounds(law, z, p)[1] for z, p in law.pmf().items())
    constant = certifier._upper_constant()
    assert highest <= constant <= highest * Fraction(501, 500)


@pytest.mark.parametrize("sigma2", [Fraction(1, 2), Fraction(9)])
def test_one_tables_certificate_is_its_exact_shortfall_bound(sigma2: Fraction) -> None:
    # With no level, p(z) / (K g(z)) = w(z) / (X g(z)) exactly: eps is the top weight's
    # excess (reached at 0) and eta = 1/w(window) bounds the floor's shortfall on the
    # window, within a factor 4 of it at the two outermost windows.
    law = ConvolvedGaussian.from_variance(sigma2)
    assert law.levels == 0
    certifier = law._certifier
    scale = Fraction(certifier._top_table.scale, 1 << certifier._top_table.bits)
    ratios = {z: _ratio_bounds(law, z, p / scale) for z, p in law.pmf().items()}
    radius = certifier._top_radius
    for window in (radius, radius - 1, radius // 2):
        certificate = law.certificate(window)
        assert certificate is not None
        eps, eta = certificate
        assert max(high for _, high in ratios.values()) <= 1 + eps
        assert ratios[0][0] > 1 + eps - Fraction(1, 2**190)
        lowest = min(low for z, (low, _) in ratios.items() if abs(z) <= window)
        assert lowest >= 1 - eta
        if window > radius // 2:
            assert 1 - lowest >= eta / 4


def test_the_exact_law_stops_at_its_support_limit() -> None:
    from finitedp.counting.convolved import EXACT_SUPPORT
    from finitedp.resources import ResourceLimitError

    assert EXACT_SUPPORT == 1 << 14
    inside = ConvolvedGaussian.from_variance(10**5)  # 11,585 points: between 2^13 and 2^14
    assert 2**13 < 2 * inside.radius + 1 <= EXACT_SUPPORT
    assert sum(inside.weights().values()) == inside.weight_total
    beyond = ConvolvedGaussian.from_variance(3 * 10**5)  # 19,009 points: above 2^14
    assert EXACT_SUPPORT < 2 * beyond.radius + 1 <= 2**15
    with pytest.raises(ResourceLimitError, match="19009 points"):
        beyond.weights()


def test_a_batch_from_a_source_without_words_is_the_one_by_one_law() -> None:
    # A source that answers uniform(d) only (a recorder, a tape): the batch packs each
    # draw's u - 1 into the words itself, and gives the values the draws give one by one.
    from finitedp.oracle import RecordingSource
    from finitedp.seededsource import SeededSource

    law = ConvolvedGaussian.from_variance(Fraction(39168))
    recorder = RecordingSource(SeededSource(b"batch"))
    batch = law.sample_many(200, recorder)
    assert len(recorder.tape) == 200
    assert batch == [law(u) for _, u in recorder.tape]


def test_grid_counts_hold_int64_to_its_edge() -> None:
    from finitedp.statistics import GridCounts

    assert GridCounts.from_pairs([(2**63 - 1, 2**62), (0, 2**62 - 1)]).n == 2**63 - 1
    for pairs in ([(2**63, 1)], [(0, 2**62), (1, 2**62)]):
        with pytest.raises(ParameterError, match="2\\^63"):
            GridCounts.from_pairs(pairs)


def test_offset_division_takes_num_1_and_stops_at_64_bits() -> None:
    # 4 (top + big) < 2^63 with top = 2 num 2^40 + den and big = 2 den: at num = 1 the
    # largest den is the one below (2^61 - 2^41) / 3.
    from finitedp.statistics import offset_division

    assert offset_division(1, 1) == (2, (2**41 + 1) // 2 + 1)
    edge = -(-(2**61 - 2**41) // 3) - 1
    assert 4 * ((2 << 40) + edge + 2 * edge) < 2**63 <= 4 * ((2 << 40) + 3 * (edge + 1))
    offset_division(1, edge)
    with pytest.raises(ParameterError, match="64 bits"):
        offset_division(1, edge + 1)
    with pytest.raises(ParameterError):
        offset_division(0, 5)


def test_leading_words_take_values_at_their_bounds() -> None:
    for values in ([0, 5, 10], [0], [10], [7, 7]):
        LeadingWords(values, low=0, high=10)
    for values in ([-1, 5], [5, 11], [6, 5]):
        with pytest.raises(ParameterError, match="sorted and lie in"):
            LeadingWords(values, low=0, high=10)


def test_tail_within_above_one_table_is_the_certified_tail_at_its_edge() -> None:
    law = ConvolvedGaussian.from_variance(Fraction(39168))  # one level above the table
    assert law.levels >= 1
    for a in (0, 10, law.radius // 3, law.radius // 2):
        bound = law.tail_bound(a)
        assert 0 < bound <= 1
        assert law.tail_within(a, bound) and not law.tail_within(a, bound - Fraction(1, 10**40))
    assert law.tail_within(law.radius, Fraction(1, 10**40))  # nothing beyond the support


def test_the_exact_hockey_stick_is_the_sum_of_positive_gaps() -> None:
    law = ConvolvedGaussian.from_variance(Fraction(9))
    pmf = law.pmf()
    for e, shift in ((Fraction(1), 1), (Fraction(3), 1), (Fraction(5, 2), 2)):
        points = range(-law.radius, law.radius + shift + 1)
        gaps = (pmf.get(o, Fraction(0)) - e * pmf.get(o - shift, Fraction(0)) for o in points)
        assert law.hockey_stick(e, sensitivity=shift) == sum(
            (g for g in gaps if g > 0), Fraction(0)
        )
    with pytest.raises(ParameterError, match="at least 1"):
        law.hockey_stick(Fraction(1, 2))


def test_the_integer_types_widths_are_duckdbs() -> None:
    # The overflow guard takes a column's width from this table: each is the type's own
    # (its largest value casts, one more does not).
    import duckdb

    from finitedp.engines.duckdb.statistics import INTEGER_TYPES

    con = duckdb.connect()
    for name, bits in INTEGER_TYPES.items():
        top = (1 << bits) - 1 if name.startswith("U") else (1 << (bits - 1)) - 1
        assert con.execute(f"SELECT CAST({top} AS {name})").fetchone() == (top,)
        with pytest.raises(duckdb.Error):
            con.execute(f"SELECT CAST({top + 1} AS {name})").fetchone()


def test_an_alias_tables_domain_is_columns_times_total() -> None:
    from finitedp.counting.alias import AliasTable

    table = AliasTable([1, 1, 3, 3])
    assert (table.columns, table.total, table.domain) == (4, 8, 32)


def test_round_two_edges_of_grid_counts_words_and_laws() -> None:
    # GridCounts is immutable and checks its last index; LeadingWords checks the order in
    # the middle; the convolved law stops at sigma^2 = 2^128 exactly.
    import dataclasses

    from finitedp.resources import ResourceLimitError
    from finitedp.statistics import GridCounts

    counts = GridCounts.from_pairs([(0, 1), (10, 1)])
    with pytest.raises(dataclasses.FrozenInstanceError):
        counts.indices = counts.counts  # type: ignore[misc]
    counts.check(2, 11)
    with pytest.raises(ParameterError, match="every grid index"):
        counts.check(2, 10)
    with pytest.raises(ParameterError, match="sorted"):
        LeadingWords([1, 5, 3, 9], low=0, high=10)
    assert ConvolvedGaussian.from_variance(Fraction(1 << 128)).levels == 15
    with pytest.raises(ResourceLimitError, match="at most 2\\^128"):
        ConvolvedGaussian.from_variance(Fraction(1 << 128) + Fraction(1, 3))


def test_the_convolved_tables_estimate_at_its_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    # 400 bytes a column, 60 columns a unit of sigma_B + sigma_J, two more: refused one
    # byte below the estimate, built at it.
    from math import isqrt

    from finitedp.counting.convolvedtables import DEFAULT_DESIGN, plan_levels
    from finitedp.resources import MEMORY_ENV, ResourceLimitError

    sigma2 = Fraction(39168)
    top = plan_levels(sigma2, DEFAULT_DESIGN)[1]
    columns = 60 * (isqrt(int(top) + 1) + isqrt(int(DEFAULT_DESIGN.base_sigma2) + 1) + 2)
    monkeypatch.setenv(MEMORY_ENV, str(400 * columns - 1))
    with pytest.raises(ResourceLimitError, match=f"about {columns} columns"):
        ConvolvedGaussian.from_variance(sigma2)
    monkeypatch.setenv(MEMORY_ENV, str(400 * columns))
    assert ConvolvedGaussian.from_variance(sigma2).levels == 1
