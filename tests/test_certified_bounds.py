"""Certified figures pinned from both sides (issue 54 item 7).

Laws: every certified bound is on the stated side of an independent computation
(mpmath at 120 digits, or the exact law) — a bound moved to the wrong side fails
(soundness) — and within a stated factor of it — a bound made much looser fails
(tightness).  The alias table's tie rule is SPEC's (a column left exactly full goes
to ``large``), pinned on the table that tells the two rules apart.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp.accounting.convert import exp_upper, ln_lower, ln_upper, sqrt_upper
from finitedp.counting.alias import AliasTable
from finitedp.counting.convolved import ConvolvedGaussian
from finitedp.counting.smoothing import _exp_upper, round_up, sqrt_lower

mpmath.mp.dps = 120

positive = st.fractions(min_value=Fraction(1, 10**9), max_value=10**9).filter(lambda x: x > 0)
exponents = st.fractions(min_value=-200, max_value=200)


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


@settings(max_examples=200, deadline=None)
@given(x=positive)
def test_round_up_is_above_and_within_2_to_the_minus_63(x: Fraction) -> None:
    up = round_up(x)
    assert x <= up <= x * (1 + Fraction(1, 2**63))
    assert round_up(x, Fraction(1)) >= x  # a scale of its own: still above


@settings(max_examples=100, deadline=None)
@given(x=exponents)
def test_the_sandwichs_exponential_is_above_e_to_the_x_and_close(x: Fraction) -> None:
    # x rounded up to a 2^-32 grid (relative 2^-32), then a bracket of 2^-192 absolute
    up, truth = _mp(_exp_upper(x)), mpmath.exp(_mp(x))
    assert truth <= up <= truth * (1 + mpmath.mpf(2) ** -31) + mpmath.mpf(2) ** -190


@settings(max_examples=100, deadline=None)
@given(x=positive)
def test_the_accountants_logarithms_bracket_ln_x_tightly(x: Fraction) -> None:
    truth = mpmath.log(_mp(x))
    low, high = _mp(ln_lower(x)), _mp(ln_upper(x))
    assert low <= truth <= high
    assert high - low <= mpmath.mpf(2) ** -78


@settings(max_examples=40, deadline=None)
@given(x=positive, e=exponents)
def test_roots_and_exponentials_are_on_their_stated_sides(x: Fraction, e: Fraction) -> None:
    root = mpmath.sqrt(_mp(x))
    assert _mp(sqrt_lower(x)) <= root <= _mp(sqrt_upper(x))
    assert _mp(sqrt_upper(x)) - root <= mpmath.mpf(2) ** -60 * max(1, root)
    truth = mpmath.exp(_mp(e))
    # the accountant's brackets: 2^-80 wide, absolutely below 1 and relatively above
    assert truth <= _mp(exp_upper(e)) <= truth + mpmath.mpf(2) ** -78 * max(1, truth)


def test_the_alias_tie_rule_is_specs() -> None:
    # [1, 1, 3, 3]: column 3 is left with exactly W = 8 after its first gift; SPEC puts
    # it back in `large` (scaled >= W). Putting it in `small` (<=) gives another table,
    # and so another sample for the same draw.
    table = AliasTable([1, 1, 3, 3])
    assert (table.thresholds, table.aliases) == ([4, 4, 8, 4], [3, 3, 2, 2])
    assert table.received() == [4, 4, 12, 12]  # N w_i: the law is exact
    assert [table.outcome(3, r) for r in (3, 4)] == [3, 2]


@pytest.mark.parametrize("sigma2", [Fraction(1, 2), 1000, 40000])
def test_the_tail_bound_is_above_the_exact_tail_and_close(sigma2: Fraction | int) -> None:
    g = ConvolvedGaussian.from_variance(sigma2)
    law = g.pmf()
    for t in (0, 1, 5, 50, 200, 400, 700, 900):
        exact = sum((p for z, p in law.items() if abs(z) > t), Fraction(0))
        bound = g.tail_bound(t)
        assert exact <= bound <= 1
        if g.levels == 0:
            assert bound == exact  # one table: the tail is read off it exactly
        elif t >= 200:
            assert bound <= exact * Fraction(8, 5)  # the sandwich's own slack, measured 1.53


def _cks_optimum(rho: Fraction, delta: Fraction) -> mpmath.mpf:
    """min over real alpha > 1 of CKS20 Cor 13's epsilon, by golden section (mpmath)."""
    r, log_delta = _mp(rho), mpmath.log(_mp(delta))

    def at(t: mpmath.mpf) -> mpmath.mpf:  # alpha = 1 + e^t
        a = 1 + mpmath.exp(t)
        return a * r + (a * mpmath.log(1 - 1 / a) - mpmath.log(a - 1) - log_delta) / (a - 1)

    low, high = mpmath.mpf(-20), mpmath.mpf(20)
    for _ in range(160):
        m1, m2 = low + (high - low) * 0.382, low + (high - low) * 0.618
        low, high = (low, m2) if at(m1) < at(m2) else (m1, high)
    return at((low + high) / 2)


@pytest.mark.parametrize(
    ("rho", "delta"),
    [
        (Fraction(1, 2), Fraction(1, 10**6)),
        (Fraction(1, 1000), Fraction(1, 10**9)),
        (Fraction(8), Fraction(1, 100)),
        (Fraction(1, 16), Fraction(1, 10**6)),
        (Fraction(50), Fraction(1, 10**5)),
    ],
)
def test_the_accountants_epsilon_is_at_the_optimum_from_above(
    rho: Fraction, delta: Fraction
) -> None:
    from finitedp.accounting.convert import zcdp_epsilon

    got, best = _mp(zcdp_epsilon(rho, delta)), _cks_optimum(rho, delta)
    assert best <= got <= best * (1 + mpmath.mpf(1) / 2000)  # measured 1.7e-4 at most


@pytest.mark.parametrize(
    ("rho", "epsilon"),
    [
        (Fraction(1, 2), Fraction(5)),
        (Fraction(1, 1000), Fraction(1, 4)),
        (Fraction(3), Fraction(9)),
    ],
)
def test_cks_delta_at_integer_orders_is_the_best_integer_order(
    rho: Fraction, epsilon: Fraction
) -> None:
    from finitedp.accounting.convert import cks_delta

    def log_delta(alpha: int) -> mpmath.mpf:
        a = mpmath.mpf(alpha)
        return (
            (a - 1) * (a * _mp(rho) - _mp(epsilon)) + a * mpmath.log(1 - 1 / a) - mpmath.log(a - 1)
        )

    best = mpmath.exp(min(log_delta(a) for a in range(2, 5000)))
    got, _ = cks_delta(rho, epsilon, integer_orders=True)
    # the order's exact delta, rounded up by the accountant's 2^-80 brackets
    assert best <= _mp(got) <= best * (1 + mpmath.mpf(2) ** -60) + mpmath.mpf(2) ** -78


def _theta(v: Fraction) -> mpmath.mpf:
    return mpmath.nsum(lambda z: mpmath.exp(-z * z / (2 * _mp(v))), [-mpmath.inf, mpmath.inf])


@pytest.mark.parametrize("v", [Fraction(1, 3), Fraction(9, 10), Fraction(1), Fraction(10)])
@pytest.mark.parametrize("bits", [64, 128])
def test_theta_bounds_bracket_the_lattice_sum_within_four_units(v: Fraction, bits: int) -> None:
    # Both branches (the direct sum below v = 1, Poisson summation from 1): the upper
    # side adds 4 * 2^-(bits + 8) for the terms left out (absolute below 1, relative
    # above), and the lower side loses at most one such unit to rounding.
    from finitedp.counting.smoothing import theta_bounds

    low, high = (_mp(b) for b in theta_bounds(v, bits))
    truth, unit = _theta(v), mpmath.mpf(2) ** -(bits + 8)
    scale = 1 if v < 1 else truth
    assert low <= truth <= high
    assert high - truth <= mpmath.mpf("4.1") * unit * scale
    assert truth - low <= unit * truth


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("x", [Fraction(24), Fraction(1000, 3), Fraction(10**12 + 1, 7)])
def test_root_up_is_the_least_dyadic_of_its_precision_above_the_root(x: Fraction, k: int) -> None:
    from finitedp.counting.smoothing import root_up

    bits = 20
    r = root_up(x, k, bits)
    assert r**k >= x and (1 << bits) % r.denominator == 0  # on the 2^-bits grid (x >= 2^k)
    assert (r - Fraction(1, 1 << bits)) ** k < x  # and the least such


def test_a_levels_distance_is_the_least_margin_over_its_window() -> None:
    # D = min(inner - max |c|, R_J/L - max |z/L - c|) over |z| <= window, c = z L s_Y^2/s^2,
    # computed here by brute force over every z (the closed form takes the edge).
    from finitedp.counting.smoothing import LevelShape

    shape = LevelShape(
        lattice=3,
        base_sigma2=Fraction(7, 2),
        base_scale=1 << 20,
        base_above=Fraction(0),
        base_radius=40,
        inner_sigma2=Fraction(5, 3),
    )
    for window, inner in ((7, 5), (10, 9), (29, 20)):
        centres = [
            Fraction(z * 3) * shape.inner_sigma2 / shape.sigma2 for z in range(-window, window + 1)
        ]
        reach = max(abs(c) for c in centres)
        lean = max(
            abs(Fraction(z, 3) - c)
            for z, c in zip(range(-window, window + 1), centres, strict=True)
        )
        assert shape.distance(window, inner) == min(inner - reach, Fraction(40, 3) - lean)


def test_the_zcdp_window_is_within_a_sixteenth_sigma_of_the_guards_edge() -> None:
    # The bisection stops at sigma/16 (isqrt of floor(sigma^2)): the window meets the
    # guard and one such step beyond it does not, for variances with large denominators.
    from math import isqrt

    from finitedp.counting.smoothing import statement

    def meets(law: ConvolvedGaussian, window: int) -> bool:
        bounds = law.certificate(window)
        # the guard the proof note states: what the sandwich adds is at most rho / 2^20
        return bounds is not None and statement(*bounds) * 2**20 <= law.ideal_rho(1)

    for sigma2 in (Fraction(7 * 10**6 + 1, 7), Fraction(123456789, 1000)):
        law = ConvolvedGaussian.from_variance(sigma2)

        window = law.zcdp_window(1)
        step = max(1, isqrt(sigma2.numerator // sigma2.denominator) // 16)
        assert meets(law, window) and not meets(law, window + step)


def test_the_conversions_at_rho_zero_and_on_the_fine_grid_of_orders() -> None:
    from finitedp.accounting.convert import cks_delta, zcdp_to_dp_bs

    assert zcdp_to_dp_bs(Fraction(0), Fraction(1, 2)) == 0  # 0-zCDP is (0, delta)-DP
    assert cks_delta(Fraction(0), Fraction(1)) == (0, 2)
    # Large rho puts the best order near 1, where the orders tried are on a 1/64 grid:
    # the delta is certified at the order it names (above CKS20's value there, and close).
    for rho, eps in ((Fraction(4), Fraction(5)), (Fraction(10), Fraction(12))):
        delta, alpha = cks_delta(rho, eps)
        assert 1 < alpha < 2 and 64 % alpha.denominator == 0 and alpha.denominator > 4
        a = _mp(alpha)
        exact = mpmath.exp(
            (a - 1) * (a * _mp(rho) - _mp(eps)) + a * mpmath.log(1 - 1 / a) - mpmath.log(a - 1)
        )
        assert exact <= _mp(delta) <= exact * (1 + mpmath.mpf(2) ** -60)


#: The convolved law's certified figures for four laws (one and two levels), exact:
#: the window, rho' and delta0 as stated, and a digest of the certificate (eps, eta) at
#: the window and of the tail bound at half of it, thousands of digits each.  Any change
#: to the arithmetic behind a stated figure (a precision, a margin, a rounding) moves them:
#: it must be made on purpose and these updated, as the reference vectors would be.
STATEMENTS = {
    "39168": (
        2324,
        "1180592221221514268899/92482825200519131865022464",
        "991042352641789057/11692013098647223345629478661730264157247460343808",
        "2eaa01eef5ce836aae449757ac2fadce",
    ),
    "1000000": (
        13503,
        "37778953000448106912693/75557863725914323419136000000",
        "12377743935386677719/803469022129495137770981046170581301261101496891396417650688",
        "497bed2e94700419be6f584f6c064cea",
    ),
    "300000/7": (  # whose window moves with the margin D (TAIL_EXPONENT)
        2433,
        "132226307644118303455363/11333679558887148512870400000",
        "14075528161587081057/187072209578355573530071658587684226515959365500928",
        "85bb787036692342a04bea6ad43f14b5",
    ),
    "1000000007/13": (
        111424,
        "8046616042475075583684750465/1237940047950960549896786148293869568",
        "27678271836469401749/49039857307708443467467104868809893875799651909875269632",
        "a6b9f02beed854e790a3154a0e6fa732",
    ),
}


@pytest.mark.parametrize("sigma2", sorted(STATEMENTS))
def test_the_stated_figures_are_the_recorded_ones(sigma2: str) -> None:
    import hashlib

    window, rho, delta0, digest = STATEMENTS[sigma2]
    law = ConvolvedGaussian.from_variance(Fraction(sigma2))
    claim = law.zcdp(1)
    assert (law.zcdp_window(1), str(claim.rho), str(claim.rho_delta)) == (window, rho, delta0)
    certificate = law.certificate(window)
    assert certificate is not None
    eps, eta = certificate
    text = f"{eps}|{eta}|{law.tail_bound(window // 2)}"
    assert hashlib.sha256(text.encode()).hexdigest()[:32] == digest


def test_the_accountants_figures_are_the_recorded_ones() -> None:
    from finitedp.accounting.convert import cks_delta, zcdp_epsilon

    epsilons = {  # (rho, delta): (all orders, integer orders)
        ("1/2", "1/1000000"): ("148975/28526", "148975/28526"),
        ("1/1000", "1/1000000000"): ("20955/85489", "52331/213492"),
        ("4", "1/1000"): ("276691/20820", "462772/34225"),
    }
    for (rho, delta), (every, integer) in epsilons.items():
        assert str(zcdp_epsilon(Fraction(rho), Fraction(delta))) == every
        assert str(zcdp_epsilon(Fraction(rho), Fraction(delta), integer_orders=True)) == integer
    deltas = {
        ("1/2", "5"): ("876767158439498861/302231454903657293676544", "23/4"),
        ("4", "5"): ("318005183106427702862973/604462909807314587353088", "21/16"),
        ("1/1000", "1/10"): ("705021424814053834377/1208925819614629174706176", "59"),
    }
    for (rho, eps), (delta, alpha) in deltas.items():
        got = cks_delta(Fraction(rho), Fraction(eps))
        assert (str(got[0]), str(got[1])) == (delta, alpha)
    # a bound of at least 1 is stated as 1 (ln delta = 0.078 at rho = 9/4, eps = 0)
    assert cks_delta(Fraction(9, 4), Fraction(0)) == (1, Fraction(5, 4))


def test_round_up_far_above_its_scale_and_a_full_certificate() -> None:
    # x >= 2^64 times its unit: rounded up on a grid coarser than 1
    for x in (Fraction(2**70) + Fraction(1, 3), Fraction(3**50, 7)):
        up = round_up(x)
        assert x <= up <= x * (1 + Fraction(1, 2**63)) and up.denominator == 1
    # a window whose top weight is 1 leaves eta = 1: no certificate there
    law = ConvolvedGaussian.from_variance(100)
    radius = law._certifier._top_radius
    assert law._certifier._top_weights[radius] == 1
    assert law.certificate(radius) is None and law.certificate(radius - 1) is not None
