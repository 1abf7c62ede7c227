"""The accountant: composition laws, certified conversions, and what it says for PLAN's split.

Each conversion is checked against the exact law of a mechanism where one is
known (the checker's hockey-stick of the real discrete Gaussian), and against
its own defining inequality decided with exact arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp.accounting import (
    Accountant,
    Guarantee,
    cks_delta,
    sqrt_upper,
    zcdp_epsilon,
    zcdp_to_dp_bs,
)
from finitedp.counting.gaussian import DiscreteGaussian
from finitedp.errors import ParameterError
from finitedp.exactmath import compare_exp, ln_bounds

rationals = st.fractions(min_value=Fraction(1, 1000), max_value=4)


@settings(max_examples=40, deadline=None)
@given(st.fractions(min_value=0, max_value=10**6))
def test_sqrt_upper_is_an_upper_bound_within_its_precision(x: Fraction) -> None:
    s = sqrt_upper(x, 40)
    assert s * s >= x
    assert (s - Fraction(1, 2**40)) ** 2 < x or s == 0


@settings(max_examples=25, deadline=None)
@given(rationals, st.sampled_from([Fraction(1, 10**3), Fraction(1, 10**6), Fraction(1, 10**9)]))
def test_bs_epsilon_is_rho_plus_two_root_rho_log(rho: Fraction, delta: Fraction) -> None:
    eps = zcdp_to_dp_bs(rho, delta)
    # (eps - rho)^2 / 4 >= rho ln(1/delta), decided exactly: e^((eps-rho)^2/(4 rho)) >= 1/delta
    assert compare_exp(1 / delta, (eps - rho) ** 2 / (4 * rho)) <= 0
    # and within 2^-60 of it
    tight = eps - Fraction(1, 2**60)
    assert compare_exp(1 / delta, (tight - rho) ** 2 / (4 * rho)) > 0


@settings(max_examples=25, deadline=None)
@given(rationals, st.sampled_from([Fraction(1, 10**3), Fraction(1, 10**6)]))
def test_cks_epsilon_is_valid_never_worse_than_bs_and_nearly_least(
    rho: Fraction, delta: Fraction
) -> None:
    eps = zcdp_epsilon(rho, delta)
    assert eps <= zcdp_to_dp_bs(rho, delta)
    assert cks_delta(rho, eps)[0] <= delta
    # a hair smaller and the certified bound no longer holds
    assert cks_delta(rho, eps * (1 - Fraction(1, 2**20)))[0] > delta


def test_cks_delta_at_an_order_is_the_formula() -> None:
    # rho = 1/2, eps = 5, alpha = 23/4:
    # the bound is exp(19/4 * (23/8 - 5)) / (19/4) * (19/23)^(23/4)
    delta, alpha = cks_delta(Fraction(1, 2), Fraction(5))
    assert alpha == Fraction(23, 4)
    log_value_low = (
        Fraction(19, 4) * (Fraction(23, 8) - 5)
        + Fraction(23, 4) * ln_bounds(Fraction(19, 23), 128)[0]
        - ln_bounds(Fraction(19, 4), 128)[1]
    )
    assert compare_exp(delta, log_value_low) >= 0  # the returned delta is on the safe side
    assert compare_exp(delta * (1 - Fraction(1, 2**60)), log_value_low) < 0  # and close


def test_plan_default_split() -> None:
    acc = Accountant("replace one vector")
    for part in ("centre", "variance", "clip", "noise"):
        acc.add(Guarantee.zcdp(Fraction(1, 8), part))
    total = acc.total()
    assert total.rho == Fraction(1, 2) and total.epsilon is None and total.rho_delta == 0
    eps = acc.epsilon_for(Fraction(1, 10**6))
    assert Fraction(5222, 1000) < eps < Fraction(5223, 1000)
    assert eps < zcdp_to_dp_bs(Fraction(1, 2), Fraction(1, 10**6))
    doc = acc.to_json_dict(Fraction(1, 10**6))
    assert doc["total"]["rho"] == "1/2" and doc["at_delta"]["delta"] == "1/1000000"


def test_composition_laws() -> None:
    acc = Accountant("replace one row")
    acc.add(Guarantee.pure(Fraction(1, 2), "a"))
    acc.add(Guarantee.pure(Fraction(1, 4), "b"))
    total = acc.total()
    assert (total.epsilon, total.delta, total.rho) == (Fraction(3, 4), 0, Fraction(5, 32))
    # pure steps: basic composition wins at small epsilon (delta unused)
    assert acc.epsilon_for(Fraction(1, 10**6)) == Fraction(3, 4)
    acc.add(Guarantee.approx(Fraction(1, 10), Fraction(1, 10**7), "c"))
    total = acc.total()
    assert total.rho is None and total.delta == Fraction(1, 10**7)
    assert acc.epsilon_for(Fraction(1, 10**6)) == Fraction(17, 20)
    with pytest.raises(ParameterError, match="delta"):
        acc.epsilon_for(Fraction(1, 10**8))


def test_approximate_zcdp_pays_its_delta_and_its_events() -> None:
    acc = Accountant("shift by one")
    acc.add(Guarantee.zcdp(Fraction(1, 8), "gauss", delta=Fraction(1, 10**9), integer_orders=True))
    total = acc.total()
    assert total.orders == "integer" and total.rho_delta == Fraction(1, 10**9)
    plain = zcdp_epsilon(
        Fraction(1, 8), Fraction(1, 10**6) - Fraction(1, 10**9), integer_orders=True
    )
    paid = plain + Fraction(1, 10**9 - 1)
    eps = acc.epsilon_for(Fraction(1, 10**6))
    assert paid <= eps <= paid * (1 + Fraction(1, 2**32))  # rounded up to a short rational
    assert eps.denominator < paid.denominator


def test_the_gaussian_accounting_is_confirmed_by_its_exact_law() -> None:
    # The accountant's (eps, delta) for the sampler's own zCDP statement must be at least
    # the exact hockey-stick delta of the sampled law at that eps.
    g = DiscreteGaussian(4)
    acc = Accountant("integers at distance 1")
    acc.add(g.zcdp(1))
    for delta in (Fraction(1, 10**3), Fraction(1, 10**6)):
        eps = acc.epsilon_for(delta)
        assert g.delta(eps, 1) <= delta
        # and not wildly loose: at half that epsilon the exact delta is already above
        assert g.delta(eps / 3, 1) > delta


def test_guarantee_validation() -> None:
    with pytest.raises(ParameterError, match="needs epsilon or rho"):
        Guarantee("x")
    with pytest.raises(ParameterError, match="negative"):
        Guarantee("x", epsilon=Fraction(-1))
    with pytest.raises(ParameterError, match="outside"):
        Guarantee("x", rho=Fraction(1), rho_delta=Fraction(2))
    with pytest.raises(ParameterError, match="orders"):
        Guarantee("x", rho=Fraction(1), orders="real")
    with pytest.raises(ParameterError, match="at least 1"):
        Guarantee.pure_ratio(Fraction(1, 2), "x")
    with pytest.raises(ParameterError, match="no steps"):
        Accountant("x").total()
    with pytest.raises(ParameterError, match="Guarantee"):
        Accountant("x").add("rho = 1")  # type: ignore[arg-type]


def test_pure_ratio_rounds_epsilon_up() -> None:
    g = Guarantee.pure_ratio(Fraction(4), "em", bounded_range=True)
    assert g.epsilon is not None and g.rho is not None
    assert compare_exp(4, g.epsilon) <= 0  # e^eps >= 4
    assert g.epsilon - ln_bounds(Fraction(4), 128)[0] < Fraction(1, 2**70)
    assert g.rho == g.epsilon**2 / 8
    assert Guarantee.pure_ratio(1, "nothing").epsilon == 0


# -- pinned by the mutation run (benchmarks/mutate_random.py) ----------------------------------


def test_conversion_edges() -> None:
    assert cks_delta(Fraction(0), Fraction(1)) == (Fraction(0), Fraction(2))
    assert cks_delta(Fraction(1), Fraction(1))[0] > 0  # rho = 1 is not rho = 0
    # At eps = 0 the order 5/4 bounds delta by e^(5/16) 4 (1/5)^(5/4) = 0.731 (a TV bound;
    # the orders near (eps + rho)/(2 rho) = 1/2 alone found nothing below 1)
    bound, order = cks_delta(Fraction(1), Fraction(0))
    assert order == Fraction(5, 4) and Fraction(731, 1000) < bound < Fraction(732, 1000)
    assert cks_delta(Fraction(100), Fraction(0))[0] == 1  # no order helps: capped at 1
    for rho, delta in ((Fraction(-1), Fraction(1, 2)), (Fraction(1), Fraction(2))):
        with pytest.raises(ParameterError):
            zcdp_to_dp_bs(rho, delta)
    assert zcdp_epsilon(Fraction(0), Fraction(1, 2)) == 0


def test_guarantee_defaults_and_caps() -> None:
    plain = Guarantee("x", rho=Fraction(1))
    assert plain.delta == plain.rho_delta == 0 and plain.orders == "all"
    ratio = Guarantee.pure_ratio(4, "x")
    assert ratio.delta == 0 and ratio.epsilon is not None
    assert ratio.rho == ratio.epsilon**2 / 2  # bounded range only when asked
    assert Guarantee.approx(1, 1, "vacuous").delta == 1
    acc = Accountant("x")
    acc.add(Guarantee.approx(1, Fraction(3, 4), "a"))
    acc.add(Guarantee.approx(1, Fraction(3, 4), "b"))
    assert acc.total().delta == 1
    cdp = Accountant("x")
    cdp.add(Guarantee.zcdp(1, "a", delta=Fraction(3, 4)))
    cdp.add(Guarantee.zcdp(1, "b", delta=Fraction(3, 4)))
    assert cdp.total().rho_delta == 1


def test_more_conversion_edges_and_integer_orders() -> None:
    for delta in (Fraction(0), Fraction(1)):
        with pytest.raises(ParameterError):
            zcdp_to_dp_bs(Fraction(1), delta)
    # pinned values (CKS20 Prop 12 at the best integer order, to 2^-32): alpha = 6 and 7.
    # 7/8 + (ln 1000 + 7 ln(6/7) - ln 6)/6 = 1.5478235...
    assert zcdp_epsilon(Fraction(1, 2), Fraction(1, 10**6), integer_orders=True) == Fraction(
        148975, 28526
    )
    assert zcdp_epsilon(Fraction(1, 8), Fraction(1, 10**3), integer_orders=True) == Fraction(
        135724, 87687
    )
    small = Guarantee.pure_ratio(Fraction(3, 2), "x")
    assert small.epsilon is not None and compare_exp(Fraction(3, 2), small.epsilon) <= 0
    assert small.epsilon > Fraction(2, 5)  # ln(3/2) = 0.405...


def test_mixed_composition_adds_the_plain_steps_to_the_converted_ones() -> None:
    acc = Accountant("replace one row")
    for part in range(4):
        acc.add(Guarantee.zcdp(Fraction(1, 8), f"gauss {part}"))
    acc.add(Guarantee.zcdp(0, "free"))
    acc.add(Guarantee.approx(Fraction(1, 100), Fraction(1, 10**9), "stability"))
    expected = zcdp_epsilon(Fraction(1, 2), Fraction(1, 10**6) - Fraction(1, 10**9)) + Fraction(
        1, 100
    )
    eps = acc.epsilon_for(Fraction(1, 10**6))
    assert expected <= eps <= expected * (1 + Fraction(1, 2**32))
    with pytest.raises(ParameterError, match="no one notion"):
        acc.total()
    assert acc.to_json_dict(Fraction(1, 10**6))["total"] is None
