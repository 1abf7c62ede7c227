"""Deciding from leading bits: GeoSample's long CDF values bracketed, then exact on a tie.

GeoSample's ``F`` has ``n log b`` bits; a search without its table, and the order
statistics of ``pmg-pure`` (:func:`approx_top_sample`), now decide each comparison and
each floor from a certified bracket of ``F``'s leading bits
(:func:`~finitedp.exactmath.power_bounds`), and compute ``F`` exactly only where the
bracket leaves the answer open.  Laws:

* the bracket holds for every ``(c, z)`` and every precision, and is a few units wide;
* searches and order statistics give the same values as the exact ones, also at a
  precision so low that most decisions fall back (every branch is taken);
* at a realistic size the exact ``F`` is not computed at all (work, not time).
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import finitedp.counting.geosample as geosample
from finitedp.checker import exact_distribution
from finitedp.counting.geosample import GeoSample
from finitedp.exactmath import power_bounds
from finitedp.sketches.sparsetop import approx_top_sample, top_precision


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 500), st.integers(0, 4000)), min_size=1, max_size=3),
    st.integers(4, 200),
    st.integers(0, 3000),
)
def test_power_bounds_bracket_the_product(
    factors: list[tuple[int, int]], bits: int, shift: int
) -> None:
    lo, hi = power_bounds(factors, bits, shift)
    exact = 1
    for x, e in factors:
        exact *= x**e
    assert lo << shift <= exact <= hi << shift
    # exact where nothing is cut; else about (e + bits(e)) 2^(3 - bits) wide (relative)
    if exact < 1 << bits and shift == 0:
        assert lo == hi == exact
    spread = sum(e + e.bit_length() for _, e in factors)
    if bits >= 32:
        assert (hi - lo) << shift <= Fraction(exact * spread, 1 << (bits - 3)) + (2 << shift)


@pytest.mark.parametrize(
    ("n", "epsilon", "noise"), [(5, 1, "paper"), (40, "1/3", "tight"), (300, "2/41", "tight")]
)
def test_cdf_bounds_bracket_every_value(n: int, epsilon: object, noise: str) -> None:
    g = GeoSample(n, epsilon, noise=noise)
    for precision in (4, 8, 64):
        shift = g.cdf_shift(precision)
        for c in range(0, n + 1, max(1, n // 6)):
            for z in range(-1, n + 2):
                lo, hi = g.cdf_bounds(c, z, precision)
                assert lo << shift <= g.cdf(c, z) <= hi << shift
                assert hi - lo <= 8


@pytest.mark.parametrize("precision", [4, 16, 128])
def test_a_search_from_leading_bits_is_the_exact_search(
    precision: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(geosample, "SEARCH_PRECISION", precision)
    chooser = random.Random(5)
    for n, epsilon, noise in ((7, 1, "paper"), (60, "1/3", "tight"), (250, "2/41", "tight")):
        g = GeoSample(n, epsilon, noise=noise)
        g._tables = ()  # the path without the table
        for c in range(0, n + 1, max(1, n // 4)):
            cdfs = [g.cdf(c, z) for z in range(n + 1)]
            ties = cdfs + [f + 1 for f in cdfs if f < g.d]
            for u in [1, g.d, *ties, *(chooser.randint(1, g.d) for _ in range(50))]:
                assert g._search(c, u) == next(z for z, f in enumerate(cdfs) if f >= u)


@pytest.mark.parametrize("precision", [3, 12, 200])
def test_order_statistics_from_leading_bits_are_the_exact_ones(precision: int) -> None:
    # The same law, draw for draw, whether the floors come from brackets or exactly.
    sampler = GeoSample(6, Fraction(1, 2), noise="tight")
    s = top_precision(6, 3, 9, Fraction(1, 100))

    def exact(rng: object) -> tuple[int, ...]:
        return approx_top_sample(sampler.scaled_cdf_at_zero, 6, 3, 9, s, rng)  # type: ignore[arg-type]

    def bracketed(rng: object) -> tuple[int, ...]:
        return approx_top_sample(
            sampler.scaled_cdf_at_zero,
            6,
            3,
            9,
            s,
            rng,  # type: ignore[arg-type]
            lambda v, w: sampler.gap_bracket(v, w, precision),
        )

    assert exact_distribution(bracketed) == exact_distribution(exact)


def test_a_large_sampler_never_computes_its_cdf_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    # GeoSample over [0, 2 * 10^5] has F of about 1.4 Mbit; the order statistics of
    # 10^9 empty keys and a search without the table decide from brackets alone.
    sampler = GeoSample(200_000, Fraction(2, 41), noise="tight")
    exact_calls = []

    def counted(v: int) -> int:
        exact_calls.append(v)
        return sampler.scaled_cdf_at_zero(v)

    s = top_precision(sampler.n, 4, 10**9, Fraction(1, 10**6))
    precision = s.bit_length() + 128
    rng = random.Random(3)

    class Source:
        def uniform(self, d: int) -> int:
            return rng.randint(1, d)

    levels = approx_top_sample(
        counted,
        sampler.n,
        4,
        10**9,
        s,
        Source(),  # type: ignore[arg-type]
        lambda v, w: sampler.gap_bracket(v, w, precision),
    )
    assert len(levels) == 4 and exact_calls == []
    calls: list[int] = []
    original = GeoSample._cdf
    monkeypatch.setattr(GeoSample, "_cdf", lambda g, c, z: calls.append(z) or original(g, c, z))
    sampler._tables = ()
    assert 0 <= sampler._search(100, rng.randint(1, sampler.d)) <= sampler.n
    assert calls == []
