"""``rank_error_below(beta, target)``: the share search's one-look test, law for law.

Law: for every selector PLAN may use (the fixed-weight and exact exponential mechanism,
the BV binary search, the Gaussian search over both discrete Gaussian laws), every
budget, failure probability and target, ``rank_error_below(beta, target)`` is
``rank_error(beta) < target``, and ``False`` where ``rank_error`` refuses ``beta``.
The one look is exact because each bound falls in the error it is asked at; this test
is what says so for the code as written (the search's speed comes from it).
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp.errors import ParameterError
from finitedp.mean import PLAN
from finitedp.selection.gaussianquantile import GaussianBinarySearchQuantile
from finitedp.selection.quantile import BinarySearchQuantile, ExponentialQuantile, GridQuantile


def _agrees(selector: GridQuantile, beta: Fraction) -> None:
    try:
        error: int | None = selector.rank_error(beta)
    except ParameterError:
        error = None
    top = 3 if error is None else error + 3
    for target in sorted({0, 1, *range(max(0, top - 6), top + 1), 2 * top}):
        expected = error is not None and error < target
        assert selector.rank_error_below(beta, target) is expected, (selector, beta, target)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 400),  # grid points - 1
    st.integers(20, 5000),  # n
    st.fractions(Fraction(1, 500), Fraction(4)),  # the budget (tinier: slow exact weights)
    st.integers(1, 12),  # beta = 10^-k
)
def test_the_one_look_is_the_rank_error_compared(
    units: int, n: int, budget: Fraction, k: int
) -> None:
    beta, half = Fraction(1, 10**k), Fraction(1, 2)
    makers = [
        lambda: ExponentialQuantile.from_epsilon(
            0, units, quantile=half, n=n, epsilon=budget, weights="fixed"
        ),
        lambda: ExponentialQuantile.from_epsilon(0, units, quantile=half, n=n, epsilon=budget),
        lambda: BinarySearchQuantile(0, units, quantile=half, n=n, epsilon=budget),
        lambda: GaussianBinarySearchQuantile(
            0, units, quantile=half, n=n, rho=budget, noise_law="convolved"
        ),
        lambda: GaussianBinarySearchQuantile(
            0, units, quantile=half, n=n, rho=budget, noise_law="table"
        ),
    ]
    for make in makers:
        try:
            selector: GridQuantile = make()
        except ParameterError:  # a budget a mechanism refuses (its table too large, say)
            continue
        _agrees(selector, beta)


def test_plan_shares_are_those_of_the_full_rank_errors() -> None:
    """The default split at the settings the share search is slowest at (both selections
    fall back, every candidate share asked): what the rank errors themselves decide."""
    from finitedp.mean import shares

    for d, rho in ((512, Fraction(1, 16)), (64, Fraction(1, 16)), (300, Fraction(1, 4))):
        m = int(25 * d**0.5) + 1
        fast = PLAN(-m, m, d=d, n=4000, rho=rho, step=Fraction(1, 16))

        def slow(plan: object, step: str, share: Fraction, target: int) -> bool:
            error = shares.rank_error(plan, step, share)  # type: ignore[arg-type]
            return error is not None and error < target

        original = shares.rank_error_below
        shares.rank_error_below = slow  # type: ignore[assignment]
        try:
            full = PLAN(-m, m, d=d, n=4000, rho=rho, step=Fraction(1, 16))
        finally:
            shares.rank_error_below = original
        assert fast.shares == full.shares and fast.rounds == full.rounds


def test_a_tail_exactly_at_beta_is_within() -> None:
    """At ``beta`` equal to the tail at the accuracy ``a`` itself (the edge of the
    comparison), ``a`` is within and ``a - 1`` is not, for both laws, one table or many."""
    from finitedp.counting.convolved import ConvolvedGaussian
    from finitedp.counting.convolvedtables import tail_mass
    from finitedp.counting.gaussian import DiscreteGaussian

    for sigma in (3, 1000, 2**20):
        g = ConvolvedGaussian(sigma)
        a = g.accuracy(Fraction(1, 10**6))
        edge = tail_mass(g._top_weights, a) if g.levels == 0 else g.tail_bound(a)
        assert g.tail_within(a, edge) and not g.tail_within(a - 1, edge)
        assert g.accuracy(edge) == a and not g.tail_within(-1, Fraction(1, 2))
    table = DiscreteGaussian(Fraction(100))
    a = table.accuracy(Fraction(1, 10**6))
    edge = Fraction(2 * (table._total - table.cdf(a)), table._total)
    assert table.tail_within(a, edge) and not table.tail_within(a - 1, edge)
    assert table.accuracy(edge) == a and not table.tail_within(-1, Fraction(1, 2))
