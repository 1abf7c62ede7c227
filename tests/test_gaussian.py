"""The strict-work discrete Gaussian: its law, its sampler, and the privacy it states.

Every privacy figure is checked against an independent exact computation: the
checker's ``exact_distribution`` of the real sampler, its hockey-stick and
Renyi moments of the shifted laws, and ``compare_exp`` for the claimed bound.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp import SeededSource
from finitedp.checker import exact_distribution, hockey_stick, renyi_moment
from finitedp.counting.gaussian import DiscreteGaussian
from finitedp.counting.gaussiantable import fixed_precision_weights, largest_radius
from finitedp.errors import FloatParameterError, ParameterError
from finitedp.exactmath import compare_exp, ln_bounds

SMALL = [
    DiscreteGaussian.with_base("1/2", 4),
    DiscreteGaussian.with_base("2/3", 5),
    DiscreteGaussian("3/2", precision=12),
    DiscreteGaussian(2, radius=7, precision=16),
]


def shifted(pmf: dict[int, Fraction], shift: int) -> dict[int, Fraction]:
    return {z + shift: p for z, p in pmf.items()}


# -- the law ------------------------------------------------------------------------------------


def test_rational_base_law_is_alpha_to_the_z_squared() -> None:
    g = DiscreteGaussian.with_base("2/3", 4)
    pmf = g.pmf()
    for z in range(-4, 4):
        # Pr[z+1]/Pr[z] = alpha^((z+1)^2 - z^2) exactly
        assert pmf[z + 1] / pmf[z] == Fraction(2, 3) ** (2 * z + 1)
    assert sum(pmf.values()) == 1


def test_fixed_precision_weights_are_exact_floors() -> None:
    sigma2 = Fraction(9, 4)
    weights = fixed_precision_weights(sigma2, 7, 20)
    for z, w in enumerate(weights):
        x = -Fraction(z * z) / (2 * sigma2)
        # w <= 2^P e^x < w + 1, decided exactly
        assert compare_exp(Fraction(w, 1 << 20), x) <= 0
        assert compare_exp(Fraction(w + 1, 1 << 20), x) > 0


@settings(max_examples=30, deadline=None)
@given(st.fractions(min_value=Fraction(1, 2), max_value=50), st.integers(8, 40))
def test_fixed_precision_weights_match_the_floor_law(sigma: Fraction, precision: int) -> None:
    sigma2 = sigma * sigma
    r = largest_radius(sigma2, precision)
    weights = fixed_precision_weights(sigma2, r, precision)
    assert weights[-1] >= 1 and weights[0] == 1 << precision
    assert all(a >= b for a, b in itertools.pairwise(weights))
    for z in {1, r // 2, r}:
        x = -Fraction(z * z) / (2 * sigma2)
        assert compare_exp(Fraction(weights[z], 1 << precision), x) <= 0
        assert compare_exp(Fraction(weights[z] + 1, 1 << precision), x) > 0
    # one more step would give a zero weight
    assert compare_exp(Fraction(1, 1 << precision), -Fraction((r + 1) ** 2) / (2 * sigma2)) > 0


@pytest.mark.parametrize("g", SMALL, ids=repr)
def test_the_sampler_realises_the_law_exactly(g: DiscreteGaussian) -> None:
    dist = exact_distribution(lambda rng: g.sample(rng))
    assert dist == {z: p for z, p in g.pmf().items() if p}
    assert g.max_oracle_calls == 1


@pytest.mark.parametrize("g", SMALL, ids=repr)
def test_the_sampler_is_the_least_z_with_cdf_at_least_u(g: DiscreteGaussian) -> None:
    previous = 0
    for z in range(-g.radius, g.radius + 1):
        c = g.cdf(z)
        assert c - previous == g.weight(z)
        if c > previous:
            assert g(previous + 1) == z and g(c) == z
        previous = c
    assert previous == g.d


def test_batch_sampling_matches_one_by_one() -> None:
    for g in (DiscreteGaussian(10), DiscreteGaussian.with_base("1/2", 4), DiscreteGaussian(1000)):
        one = SeededSource(b"batch")
        expected = [g.sample(one) for _ in range(500)]
        assert g.sample_many(500, SeededSource(b"batch")) == expected
    assert DiscreteGaussian(10).add([5, -7], SeededSource(b"a")) == [
        5 + z for z in DiscreteGaussian(10).sample_many(1, SeededSource(b"a"))
    ] + [-7 + DiscreteGaussian(10).sample_many(2, SeededSource(b"a"))[1]]


def test_comparisons_are_bounded_by_the_radius() -> None:
    g = DiscreteGaussian(3, precision=20)
    calls = []

    class Counting(int):
        def __ge__(self, other: object) -> bool:
            calls.append(1)
            return int(self) >= other  # type: ignore[operator]

        def __le__(self, other: object) -> bool:
            calls.append(1)
            return int(self) <= other  # type: ignore[operator]

    for u in (1, g.d // 3, g.d // 2, g.d):
        calls.clear()
        g._search(Counting(u))
        assert len(calls) <= g.max_comparisons == (2 * g.radius).bit_length()


# -- privacy ------------------------------------------------------------------------------------


@pytest.mark.parametrize("g", SMALL, ids=repr)
@pytest.mark.parametrize("shift", [1, 2])
def test_hockey_stick_equals_the_checkers(g: DiscreteGaussian, shift: int) -> None:
    p = g.pmf()
    q = shifted(p, shift)
    for e in (Fraction(1), Fraction(3, 2), Fraction(4)):
        assert g.hockey_stick(e, shift) == hockey_stick(p, q, e) == hockey_stick(q, p, e)


def test_delta_is_a_certified_upper_bound() -> None:
    g = DiscreteGaussian("3/2", precision=12)
    p, q = g.pmf(), shifted(g.pmf(), 1)
    eps = Fraction(1, 2)
    delta = g.delta(eps, 1)
    # delta is the divergence at a rational just below e^(1/2) = 1.6487...
    assert (
        hockey_stick(p, q, Fraction(16487, 10000))
        >= delta
        >= hockey_stick(p, q, Fraction(1649, 1000))
    )
    assert delta > 0


def _conditioned(g: DiscreteGaussian, shift: int, t: int) -> tuple[dict, dict]:
    p = g.pmf()
    q = shifted(p, shift)
    window = range(-t + shift, t + 1)
    mass_p = sum(p.get(o, Fraction(0)) for o in window)
    mass_q = sum(q.get(o, Fraction(0)) for o in window)
    assert mass_p == mass_q  # the symmetric table gives the two events equal mass
    return (
        {o: p[o] / mass_p for o in window},
        {o: q[o] / mass_q for o in window},
    )


@pytest.mark.parametrize("g", SMALL, ids=repr)
@pytest.mark.parametrize("shift", [1, 2])
def test_zcdp_statement_holds_at_every_integer_order(g: DiscreteGaussian, shift: int) -> None:
    claim = g.zcdp(shift)
    assert claim.orders == "integer" and claim.rho is not None
    # the events: T is recovered from delta0, the mass outside [-T + shift, T]
    t = next(
        t
        for t in range(shift, g.radius + 1)
        if Fraction(g.cdf(-t + shift - 1) + g.d - g.cdf(t), g.d) == claim.rho_delta
    )
    p, q = _conditioned(g, shift, t)
    for order in range(2, 9):
        for a, b in ((p, q), (q, p)):
            moment = renyi_moment(a, b, order)
            # D_order <= order rho'  <=>  moment <= e^((order - 1) order rho')
            assert compare_exp(moment, (order - 1) * order * claim.rho) <= 0


def test_zcdp_of_the_exact_law_is_tight() -> None:
    # With R well past sigma the conditioned divergence is within a hair of order * rho:
    # a rho' one percent smaller fails at some order, so the statement has no slack to hide.
    g = DiscreteGaussian.with_base("4/5", 9)
    claim = g.zcdp(1)
    assert claim.rho == g.ideal_rho(1)
    p, q = _conditioned(g, 1, g.radius)
    smaller = claim.rho * Fraction(99, 100)
    assert any(
        compare_exp(renyi_moment(p, q, order), (order - 1) * order * smaller) > 0
        for order in range(2, 6)
    )
    assert claim.rho_delta == Fraction(g.weight(9), g.d)


def test_ideal_rho() -> None:
    assert DiscreteGaussian(10).ideal_rho(3) == Fraction(9, 200)
    rho = DiscreteGaussian.with_base("1/2", 3).ideal_rho(2)  # Delta^2 ln 2, rounded up
    assert compare_exp(2, rho / 4) < 0  # rho > 4 ln 2
    assert rho - 4 * ln_bounds(2, 128)[0] < Fraction(1, 2**80)


def test_zcdp_refuses_a_shift_as_wide_as_the_support() -> None:
    with pytest.raises(ParameterError, match="sensitivity"):
        DiscreteGaussian.with_base("1/2", 3).zcdp(3)


# -- accuracy -----------------------------------------------------------------------------------


@pytest.mark.parametrize("g", SMALL, ids=repr)
def test_accuracy_is_the_least_exact_tail(g: DiscreteGaussian) -> None:
    pmf = g.pmf()
    for beta in (Fraction(1, 2), Fraction(1, 10), Fraction(1, 1000)):
        a = g.accuracy(beta)
        tail = sum((p for z, p in pmf.items() if abs(z) > a), Fraction(0))
        assert tail <= beta
        if a > 0:
            assert sum((p for z, p in pmf.items() if abs(z) > a - 1), Fraction(0)) > beta


# -- bad input ----------------------------------------------------------------------------------


def test_bad_parameters_are_refused_by_name() -> None:
    with pytest.raises(FloatParameterError, match="sigma"):
        DiscreteGaussian(1.5)
    with pytest.raises(ParameterError, match="sigma"):
        DiscreteGaussian(0)
    with pytest.raises(ParameterError, match="radius: got R = 100"):
        DiscreteGaussian(1, radius=100, precision=10)
    with pytest.raises(ParameterError, match="precision"):
        DiscreteGaussian(1, precision=10**4)
    with pytest.raises(ParameterError, match="base"):
        DiscreteGaussian.with_base("3/2", 3)
    with pytest.raises(ParameterError, match="radius"):
        DiscreteGaussian.with_base("1/2", 0)
    with pytest.raises(ParameterError, match="exp_epsilon"):
        DiscreteGaussian(2).hockey_stick(Fraction(1, 2))


def test_huge_tables_are_refused_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "1M")
    from finitedp.errors import ResourceLimitError

    with pytest.raises(ResourceLimitError, match="sigma"):
        DiscreteGaussian(10**6)
    with pytest.raises(ResourceLimitError, match="exact discrete Gaussian"):
        DiscreteGaussian.with_base("1/3", 200)


# -- pinned by the mutation run (benchmarks/mutate_random.py) ----------------------------------


def test_bulk_numpy_path_inverts_every_boundary_draw() -> None:
    # precision 40 keeps W below 2^63: the numpy path, fed explicit draws through a tape.
    from finitedp.oracle import ReplaySource

    g = DiscreteGaussian(3, precision=40)
    assert g._bulk
    draws, expected = [], []
    for z in range(-g.radius, g.radius + 1):
        low, high = g.cdf(z - 1) + 1, g.cdf(z)
        draws += [low, high]
        expected += [z, z]
    tape = [(g.d, u) for u in draws]
    assert g.sample_many(len(draws), ReplaySource(tape)) == expected
    assert [g(u) for u in draws] == expected


def test_delta_uses_a_rational_below_e_to_the_epsilon() -> None:
    # delta(eps) is the divergence at a lower bound of e^eps: strictly above the divergence
    # at any rational above e^eps (e.g. a 200-bit upper bound).
    from finitedp.exactmath import exp_bounds

    g = DiscreteGaussian("3/2", precision=12)
    p, q = g.pmf(), shifted(g.pmf(), 1)
    for eps in (Fraction(1, 4), Fraction(1, 2), Fraction(1)):
        upper = exp_bounds(eps, 200)[1]
        assert g.delta(eps, 1) > hockey_stick(p, q, upper)


def test_zcdp_default_sensitivity_is_one_and_table_bytes() -> None:
    g = DiscreteGaussian(5)
    assert g.zcdp() == g.zcdp(1)
    assert g.table_bytes == 3 * sum(w.bit_length() // 8 + 40 for w in g._weights)
    bulk = DiscreteGaussian(5, precision=40)
    assert bulk.table_bytes == 16 * (bulk.radius + 1)


def test_a_law_without_spread_is_refused() -> None:
    with pytest.raises(ParameterError, match="point mass"):
        DiscreteGaussian(Fraction(1, 20))  # w(1) = floor(2^128 e^-200) = 0
    assert DiscreteGaussian(Fraction(1, 10)).radius == 1  # w(1) = floor(2^128 e^-50) > 0


@pytest.mark.parametrize(
    ("sigma", "precision"),
    [(10, 128), (2**14, 128), (2**14 + 1, 46), (Fraction(60001, 2), 45), (10**6, 40)],
)
def test_default_precision(sigma: Fraction, precision: int) -> None:
    # 128 bits up to sigma = 2^14; above, the most up to 48 with W < 2^63 (8-byte tables).
    from finitedp.counting.gaussian import _default_precision

    sigma2 = Fraction(sigma) ** 2
    assert _default_precision(sigma2) == precision
    if precision < 63:
        # W <= 2^P (1 + 2.51 sigma) < 2^63, and one more bit could overflow that estimate
        assert (1 << precision) * (1 + Fraction(251, 100) * Fraction(sigma)) < 2**63


def test_exact_floor_decides_between_the_chains() -> None:
    # Where the two fixed-point chains disagree, the floor is decided exactly.
    from finitedp.counting.gaussiantable import _exact_floor

    sigma2 = Fraction(9, 4)
    for z in range(1, 6):
        w = fixed_precision_weights(sigma2, 5, 20)[z]
        assert _exact_floor(z, sigma2, 1 << 20, w - 1, w + 1) == w  # the scale X = 2^20
        assert _exact_floor(z, sigma2, 1 << 20, w, w + 2) == w


def test_table_memory_estimate_is_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    from finitedp.counting.gaussiantable import table_bytes
    from finitedp.errors import ResourceLimitError

    estimate = table_bytes(7 + 1, 20 + (7).bit_length())  # R + 1 weights of P + bits(R) bits
    assert estimate == 2 * 8 * 8
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", str(estimate))
    fixed_precision_weights(Fraction(9, 4), 7, 20)
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", str(estimate - 1))
    with pytest.raises(ResourceLimitError, match="table"):
        fixed_precision_weights(Fraction(9, 4), 7, 20)
    assert table_bytes(3, 100) == 2 * 3 * (40 + 100 // 8)


def test_rational_base_memory_estimate_is_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    # (R + 1) weights of R^2 log2 b bits, three copies, 64 bytes of overhead each
    from finitedp.counting.gaussiantable import rational_base_weights
    from finitedp.errors import ResourceLimitError

    bits = 30 * 30 * (3).bit_length()
    estimate = (30 + 1) * (bits // 8 + 64) * 3
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", str(estimate))
    rational_base_weights(2, 3, 30)
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", str(estimate - 1))
    with pytest.raises(ResourceLimitError, match="exact discrete Gaussian"):
        rational_base_weights(2, 3, 30)
