"""GeoSample (BV Alg 4.8, Thm 4.7, Lemma 4.9), proven exactly by the checker."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from finitedp import FloatParameterError, GeometricMechanism, GeoSample, ParameterError
from finitedp.checker import exact_distribution
from finitedp.checker.counting import audit_counting, is_inverse_cdf, sampler_paths
from finitedp.exactmath import compare_exp

SMALL = [
    (n, eps, noise)
    for n in (1, 2, 5, 9)
    for eps in ("1", "1/2", "1/5")
    for noise in ("paper", "tight")
]


@pytest.mark.parametrize(("n", "eps", "noise"), SMALL)
def test_thm_4_7_i_exact_distribution_and_privacy(n: int, eps: str, noise: str) -> None:
    sampler = GeoSample(n, eps, noise=noise)
    audit = audit_counting(sampler)
    reference = GeometricMechanism(n, sampler.privacy_ratio)
    for c, dist in enumerate(audit.distributions):
        assert dist == reference.pmf(c)  # Thm 4.7 i: GeoSample(c, U) ~ GeometricMechanism
    # The worst ratio over neighbouring counts is exactly e^(eps~/2) = b/a.
    assert audit.privacy_ratio == sampler.privacy_ratio
    assert audit.inverse_cdf_exact  # Thm 4.7 iv: the paths are the intervals (F(z-1), F(z)]
    assert audit.max_comparisons == sampler.max_comparisons


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 10, 100, 1000])
def test_paper_ratio_is_one_plus_two_to_minus_k(m: int) -> None:
    sampler = GeoSample(3, Fraction(1, m))
    k = sampler.k
    assert k is not None and 2**k >= 2 * m > 2 ** (k - 1)
    assert sampler.privacy_ratio == 1 + Fraction(1, 2**k)
    assert sampler.d == (2 ** (k + 1) + 1) * (2**k + 1) ** 2


@given(st.integers(1, 5000))
def test_eps_tilde_in_four_ninths_eps_to_eps(m: int) -> None:
    # Thm 4.7: eps~ = 2 ln(1 + 2^-k) lies in (4/9 eps, eps], decided without floats.
    eps = Fraction(1, m)
    ratio = GeoSample(1, eps).privacy_ratio
    assert compare_exp(ratio, eps / 2) <= 0
    assert compare_exp(ratio, Fraction(2, 9) * eps) > 0


@pytest.mark.parametrize(
    ("n", "eps", "beta"), [(6, "1", "1/10"), (12, "1/2", "1/4"), (8, "1/3", "1/2")]
)
def test_thm_4_7_i_accuracy(n: int, eps: str, beta: str) -> None:
    sampler = GeoSample(n, eps)
    a = sampler.accuracy(beta)
    audit = audit_counting(sampler)
    assert audit.worst_accuracy(a) >= 1 - Fraction(beta)
    # a is the smallest integer with (b/a)^a >= 1/beta: the bound a - 1 is not claimed.
    assert sampler.privacy_ratio ** (a - 1) < 1 / Fraction(beta) <= sampler.privacy_ratio**a


def test_exact_distribution_of_sample_with_a_1200_bit_d() -> None:
    sampler = GeoSample(300, "1/8")
    assert sampler.d.bit_length() > 1200
    paths = sampler_paths(sampler, 150)
    assert is_inverse_cdf(sampler, 150, paths)
    assert max(p.comparisons[0] for p in paths) <= sampler.max_comparisons == 9


def test_tight_mode_uses_at_least_97_percent_of_the_budget() -> None:
    for eps in (Fraction(1), Fraction(1, 10), Fraction(1, 100)):
        sampler = GeoSample(4, eps, noise="tight")
        ratio = sampler.privacy_ratio
        assert compare_exp(ratio, eps / 2) < 0  # alpha >= e^(-eps/2): within budget
        assert compare_exp(ratio, Fraction(97, 100) * eps / 2) > 0  # the issue asks >= 97%
        assert compare_exp(ratio, Fraction(99, 100) * eps / 2) > 0  # the default slack gives 99%
        paper = GeoSample(4, eps) if eps.numerator == 1 else None
        if paper is not None:
            assert ratio >= paper.privacy_ratio


def test_scaled_cdf_at_zero_is_def_4_3() -> None:
    sampler = GeoSample(5, "1/2")
    dist = exact_distribution(sampler.sample, 0)
    for z in range(6):
        mass = sum((p for out, p in dist.items() if out <= z), Fraction(0))
        assert sampler.scaled_cdf_at_zero(z) == mass * sampler.d


def test_lemma_4_9_symbolically() -> None:
    """F(z)/d equals the CDF of c + Geo clamped, for symbolic a, b (BV: a = 2^k, b = 2^k + 1)."""
    a, b = sympy.symbols("a b", positive=True)
    n, c, z = sympy.symbols("n c z", integer=True)
    alpha = a / b
    d = (a + b) * b ** (n - 1)
    below = a ** (c - z) * b ** (n - (c - z))  # z in [0, c)
    above = d - a ** (z - c + 1) * b ** (n - 1 - (z - c))  # z in [c, n)
    geo_below = alpha ** (c - z) / (1 + alpha)
    geo_above = 1 - alpha ** (z - c + 1) / (1 + alpha)
    for numerator, cdf in ((below, geo_below), (above, geo_above)):
        difference = sympy.simplify(sympy.powsimp(numerator / d - cdf, force=True))
        assert difference == 0
    # BV's instance: with a = 2^k, b = 2^k + 1 the ratio is e^(eps~/2) = 1 + 2^-k.
    k = sympy.symbols("k", positive=True, integer=True)
    assert sympy.simplify((b / a).subs({a: 2**k, b: 2**k + 1}) - (1 + 2 ** (-k))) == 0


def test_lemma_4_9_catches_a_wrong_formula() -> None:
    # The symbolic check above must be able to fail: an off-by-one exponent is caught.
    a, b = sympy.symbols("a b", positive=True)
    n, c, z = sympy.symbols("n c z", integer=True)
    d = (a + b) * b ** (n - 1)
    wrong = a ** (c - z) * b ** (n - (c - z) + 1)
    assert sympy.simplify(wrong / d - (a / b) ** (c - z) / (1 + a / b)) != 0


@given(
    st.integers(1, 400),
    st.integers(1, 64),
    st.sampled_from(["paper", "tight"]),
    st.data(),
)
def test_search_is_min_z_with_cdf_at_least_u(
    n: int, m: int, noise: str, data: st.DataObject
) -> None:
    sampler = GeoSample(n, Fraction(1, m), noise=noise)
    c = data.draw(st.integers(0, n))
    u = data.draw(st.integers(1, sampler.d))
    z = sampler(c, u)
    assert 0 <= z <= n
    assert sampler.cdf(c, z - 1) < u <= sampler.cdf(c, z)
    assert z == sampler.bisect_reference(c, u)
    v = data.draw(st.integers(u, sampler.d))
    assert sampler(c, v) >= z  # Thm 4.7 iv


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ParameterError, match=r"n: got 0"):
        GeoSample(0, 1)
    with pytest.raises(FloatParameterError, match=r"epsilon: got 0\.5"):
        GeoSample(3, 0.5)
    with pytest.raises(ParameterError, match="1/m"):
        GeoSample(3, "2/3")
    with pytest.raises(ParameterError, match="noise"):
        GeoSample(3, 1, noise="loose")
    sampler = GeoSample(3, 1)
    with pytest.raises(ParameterError, match=r"c: got 4; it must be an int in \[0, 3\]"):
        sampler(4, 1)
    with pytest.raises(ParameterError, match=r"u: got 0"):
        sampler(1, 0)
    with pytest.raises(ParameterError, match=r"u: got"):
        sampler(1, sampler.d + 1)


def test_an_explicit_ratio_is_checked_against_the_budget() -> None:
    from finitedp.ratio import GeometricRatio

    g = GeoSample(4, 2, ratio=GeometricRatio(1, 2))  # b/a = 2 <= e^(2/2)
    assert g.noise.exp_epsilon == 2 and g.mode == "tight"
    assert g.pmf(2) == GeometricMechanism(4, Fraction(2)).pmf(2)
    with pytest.raises(ParameterError, match="exceeds e\\^\\(eps/2\\)"):
        GeoSample(4, 1, ratio=GeometricRatio(1, 2))  # 2 > e^(1/2)


@pytest.mark.parametrize(("n", "epsilon", "noise"), [(6, 1, "paper"), (9, "1/3", "tight")])
def test_cdf_tables_search_exactly_as_the_reference(n: int, epsilon: object, noise: str) -> None:
    """The kept tables give the same sample for every count at every CDF boundary."""
    g = GeoSample(n, epsilon, noise=noise)  # n < 8: one search is more than n/8, built now
    g._build_tables()
    assert g._tables
    for c in range(n + 1):
        for z in range(n + 1):
            f = g.cdf(c, z)
            for u in {max(1, f - 1), f, min(g.d, f + 1)}:
                assert g(c, u) == g.bisect_reference(c, u)


def test_cdf_tables_are_built_after_n_over_8_searches_and_only_when_they_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from finitedp.counting import geosample

    g = GeoSample(80, 1)
    for _ in range(10):
        g(40, 1)
    assert g._tables is None  # 10 = n/8 searches: not yet
    g(40, 1)
    assert g._tables
    told = GeoSample(80, 1, samples=11)  # more than n/8 searches announced: built at once
    assert told._tables and told(40, 1) == g(40, 1)
    monkeypatch.setattr(geosample, "GEO_TABLE_BYTES", 1000)
    small = GeoSample(80, 1)
    small._build_tables()
    assert small._tables == () and small(40, 7) == small.bisect_reference(40, 7)
