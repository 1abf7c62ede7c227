"""Every stated figure pinned to its exact value (issue: mutants that survived).

An independent mutation run found statements no test read: PMG's accuracy, ALP's
accuracy and flip ratio, explicit zeros in the checker's measures, the stability
threshold's range, ALP's memory estimate, ALP's default alpha.  Each is pinned
here by equality with a value computed again from the lemma, and each range
check at its edges.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from finitedp.alp import ALP
from finitedp.alp.bounds import collision_flip, tail_radius
from finitedp.checker import (
    hockey_stick,
    max_ratio,
    privacy_ratio,
    renyi_moment,
    statistical_distance,
)
from finitedp.counting.geosample import GeoSample
from finitedp.errors import ParameterError, ResourceLimitError
from finitedp.histograms.stability import stability_histogram
from finitedp.sketches import PrivateMisraGries

# -- Private Misra-Gries: Lemma 3.5 / Theorem 3.1 ------------------------------------------------


def _least_radius(alpha: Fraction, beta: Fraction) -> int:
    """Least r >= 0 with Pr[|Z| > r] = 2 alpha^(r+1)/(1 + alpha) <= beta, by stepping."""
    r = 0
    while 2 * alpha ** (r + 1) / (1 + alpha) > beta:
        r += 1
    return r


@pytest.mark.parametrize(
    ("k", "eps", "delta", "beta"),
    [(2, "1", "1/10", "1/10"), (4, "1/2", "1/1000000", "1/100"), (10, "2", "1/100", "1/2")],
)
def test_pmg_accuracy_is_two_r_plus_tau_minus_one(k: int, eps: str, delta: str, beta: str) -> None:
    mech = PrivateMisraGries(k, 1000, eps, delta)
    b = Fraction(beta)
    r = min(mech.noise.r, _least_radius(mech.alpha, b / (k + 1)))
    acc = mech.accuracy(b)
    assert acc.per_query == acc.simultaneous == 2 * r + mech.tau - 1
    assert mech.accuracy(b, n=100).per_query == 2 * r + mech.tau - 1 + 100 // (k + 1)


# -- ALP: Lemma 2.18 / 2.13 and the flip ratio ---------------------------------------------------


def test_alp_accuracy_is_one_plus_tau_times_the_scale() -> None:
    alp = ALP(2**32, "1/2", k=3, psi=10**6)
    f, base = alp.flip
    tau = tail_radius(collision_flip(Fraction(f, base), Fraction(alp.k, alp.s)), Fraction(1, 10))
    expected = (1 + tau) * alp.scale
    assert expected < max(alp.m * alp.scale, alp.psi)  # not the cap
    assert alp.accuracy("1/10").per_query == -(-expected.numerator // expected.denominator) > 0


def test_alp_flip_ratio_and_default_alpha() -> None:
    alp = ALP(2**32, "1/2", k=3, psi=60)
    assert alp.alpha == 3 and alp.flip_ratio == 4  # (1 - p)/p = alpha + 1 with p = 1/(alpha + 2)
    assert ALP(2**32, "1/2", k=3, psi=60, alpha=5).flip_ratio == 6
    hist = ALP(2**32, "1/2", k=3, psi=60, variant="histogram")
    f, base = hist.flip
    assert hist.flip_ratio == Fraction(base - f, f) > 1


def test_alp_memory_estimate_is_two_packed_copies_and_a_16_mib_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    alp = ALP(2**32, "1/2", k=1000, psi=60)
    estimate = 2 * -(-alp.s * alp.m // 8) + (16 << 20)
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", str(estimate))
    ALP(2**32, "1/2", k=1000, psi=60)
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", str(estimate - 1))
    with pytest.raises(ResourceLimitError, match="ALP embedding"):
        ALP(2**32, "1/2", k=1000, psi=60)


# -- the checker's measures take explicit zeros ---------------------------------------------------


def test_measures_accept_explicit_zero_probabilities() -> None:
    p = {"a": Fraction(1), "b": Fraction(0)}
    q = {"a": Fraction(1, 2), "b": Fraction(1, 2)}
    assert max_ratio(p, q) == 2
    assert privacy_ratio(p, {"a": Fraction(1)}) == 1
    assert statistical_distance(p, q) == Fraction(1, 2)
    assert hockey_stick(p, q, Fraction(1)) == Fraction(1, 2)
    assert renyi_moment(p, q, 2) == 2
    with pytest.raises(ParameterError):
        max_ratio({"a": Fraction(-1)}, q)


# -- the stability threshold's range ---------------------------------------------------------------


def test_stability_threshold_edges() -> None:
    sampler = GeoSample(4, 1)
    for ok in (0, 4):
        stability_histogram(sampler, ok, [1, 1, 2, 3], 5)
    for bad in (-1, 5):
        with pytest.raises(
            ParameterError, match=r"threshold: got -?\d; b must be an int in \[0, 4\]"
        ):
            stability_histogram(sampler, bad, [1, 1, 2, 3], 5)


# -- issue 40 item 5: survivors of the mutation run on the chapter 4-5 modules -----------------


def test_alp_accuracy_is_capped_where_the_lemma_is_weaker() -> None:
    """Estimates lie in [0, m alpha/eps] and entries (at most psi) in [0, psi]: the cap
    max(m alpha/eps, psi) = 60 beats Lemma 2.18's 145 (README's example)."""
    alp = ALP(2**64, "1/2", k=3, psi=60)
    f, base = alp.flip
    tau = tail_radius(collision_flip(Fraction(f, base), Fraction(alp.k, alp.s)), Fraction(1, 10))
    assert -(-(1 + tau) * alp.scale // 1) == 145
    assert max(alp.m * alp.scale, alp.psi) == 60
    assert alp.accuracy("1/10").per_query == 60


def test_table_ratio_is_the_largest_one_step_ratio_anywhere() -> None:
    from finitedp.selection.exponential import table_ratio

    assert table_ratio([10, 5, 4]) == 2  # the largest step first, not last
    assert table_ratio([16, 10, 7, 4]) == Fraction(7, 4)
    assert table_ratio([9, 8, 2, 1]) == 4  # in the middle
    assert table_ratio([2, 1]) == 2  # a weight of 1 is a weight
    assert table_ratio([5]) == 1
    with pytest.raises(ParameterError, match="weight of the table is 0"):
        table_ratio([3, 0])


def test_fixed_exp_bounds_bracket_two_to_the_frac_e_to_the_x() -> None:
    from finitedp.counting.gaussiantable import _fixed_exp_bounds
    from finitedp.exactmath import compare_exp

    for x in (Fraction(0), Fraction(-1, 3), Fraction(-5), Fraction(-1000, 7)):
        for frac in (0, 1, 10, 64):
            lo, hi = _fixed_exp_bounds(x, frac)
            # lo <= 2^frac e^x <= hi, decided exactly; and the bracket is at most 2 wide
            assert lo == 0 or compare_exp(Fraction(lo, 1 << frac), x) <= 0
            assert compare_exp(Fraction(hi, 1 << frac), x) >= 0
            assert 0 <= hi - lo <= 2
    assert _fixed_exp_bounds(Fraction(0), 10) == (1024, 1024)


def test_the_gaussian_radius_keeps_a_weight_equal_to_need() -> None:
    """T is the largest radius with w(T) >= need = ceil(2^(G+1) sigma^2 d / Delta^2): a
    table whose w(1) equals need exactly (found by bisection on sigma^2 = m/2^21)."""
    from finitedp.counting.gaussian import ZCDP_GUARD, DiscreteGaussian

    assert ZCDP_GUARD == 20
    law = DiscreteGaussian.from_variance(Fraction(15692814, 2**21), precision=24)
    assert (law.weight(0), law.weight(1), law.weight(2)) == (2**24, 15692814, 12842324)
    g = law.zcdp()
    # T = 1: rho' = 1/(2 sigma^2) + 1/w(1) = (2^20 + 1)/w(1)
    assert g.rho == Fraction(2**20 + 1, 15692814)
    assert g.rho_delta == Fraction(41284503, 57519518)


def test_an_accountant_of_free_steps_states_zero() -> None:
    from finitedp.accounting import Accountant, Guarantee

    for steps in (
        [Guarantee.pure(0, "a")],
        [Guarantee.zcdp(0, "b")],
        [Guarantee.pure(0, "a"), Guarantee.zcdp(0, "b", integer_orders=True)],
        [Guarantee.approx(0, 0, "c"), Guarantee.pure_ratio(1, "d")],
    ):
        acc = Accountant("replace one row")
        for step in steps:
            acc.add(step)
        assert acc.epsilon_for("1/100") == 0
        assert acc.epsilon_for(Fraction(1, 10**12)) == 0


def test_the_fixed_quantile_table_precision() -> None:
    """P = 64 + 64 + bits(N) + bits(ceil(beta)): w(0) = 2^P, pinned for a large base."""
    from finitedp.selection.quantile import ExponentialQuantile

    for base, n_points in ((Fraction(1000), 11), (Fraction(3, 2), 101), (Fraction(70000), 5)):
        q = ExponentialQuantile(0, n_points - 1, quantile="1/2", n=10, base=base, weights="fixed")
        assert q.grid.size == n_points and q.table is not None
        top = -(-base.numerator // base.denominator)
        assert q.table[0] == 1 << (128 + n_points.bit_length() + top.bit_length())


def test_the_mixed_geometric_precision_rule() -> None:
    """SPEC 2e: P = G + ceil((t + m) min(3 (b - a)/(2 a), bits(ceil(b/a)))) + bits(t) + 4."""
    from finitedp.counting.mixedgeometric import SLACK_BITS, _precision

    def by_hand(ratio: Fraction, eps: Fraction, shift: int, t: int, m: int) -> int:
        guard = (ratio * shift * 2 ** (SLACK_BITS + 3) / eps).__ceil__().bit_length() + 1
        per_step = min(3 * (ratio - 1) / 2, Fraction(ratio.__ceil__().bit_length()))
        return guard + ((t + m) * per_step).__ceil__() + t.bit_length() + 4

    assert SLACK_BITS == 16
    # ratio 3/2 < 7/3: the first term decides (3/4 a step); ratio 5: the second (3 bits)
    assert _precision(Fraction(3, 2), Fraction(1), 1, 10, 6) == 21 + 12 + 4 + 4
    assert _precision(Fraction(5), Fraction(1), 1, 10, 6) == by_hand(
        Fraction(5), Fraction(1), 1, 10, 6
    )
    assert _precision(Fraction(5), Fraction(1), 1, 10, 6) == 23 + 48 + 4 + 4
    for ratio in (Fraction(11, 10), Fraction(2), Fraction(7, 3), Fraction(12, 5), Fraction(9)):
        assert _precision(ratio, Fraction(1, 3), 7, 100, 40) == by_hand(
            ratio, Fraction(1, 3), 7, 100, 40
        )


def test_plan_time_is_estimated_from_d_and_the_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """``d (120 + 20 R)`` microseconds (a mutant of the formula survived without this)."""
    from finitedp.errors import ResourceLimitError
    from finitedp.mean.scaling import require_plan_time

    monkeypatch.setenv("FINITEDP_MAX_SECONDS", "1")
    require_plan_time(6_250, 1)  # 6,250 x 140 us = 0.875 s
    require_plan_time(6_250, 2)  # 6,250 x 160 us = 1.0 s: at the budget, not above
    with pytest.raises(ResourceLimitError, match="would take about 2 s"):
        require_plan_time(6_251, 2)
    require_plan_time(5_000, 4)  # 5,000 x 200 us = 1.0 s
    with pytest.raises(ResourceLimitError, match="PLAN's steps over 5000 columns and 5"):
        require_plan_time(5_000, 5)  # 5,000 x 220 us = 1.1 s
