"""Certified conversions between privacy notions: every figure a rational bound, never a float.

Paper: Bun & Steinke, *Concentrated Differential Privacy* (TCC 2016; BS16),
Prop 1.3 (``rho``-zCDP gives ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP) and
Prop 1.4 (pure ``eps``-DP gives ``eps^2/2``-zCDP); Canonne, Kamath & Steinke,
*The Discrete Gaussian for Differential Privacy* (2020; CKS20), Prop 12 and
Cor 13: ``(alpha, tau)``-RDP gives ``(eps, delta)``-DP with

    delta = exp((alpha - 1)(tau - eps)) / (alpha - 1) * (1 - 1/alpha)^alpha,

and ``rho``-zCDP is ``(alpha, alpha rho)``-RDP at every order.

Every irrational quantity (a logarithm, an exponential, a square root) is
bracketed between rationals (:mod:`finitedp.exactmath`), and the side of the
bracket that keeps the statement true is the one returned: an ``epsilon`` is
rounded up, a ``delta`` up.  The order ``alpha`` at which CKS20's bound is
evaluated is a choice, not a claim: any ``alpha > 1`` gives a valid bound, so
the search for a good one may be approximate, and it is done in rationals.

>>> zcdp_to_dp_bs(Fraction(1, 2), Fraction(1, 10**6)) > 5   # 0.5 + 2 sqrt(0.5 ln 10^6) = 5.75...
True
>>> eps = zcdp_epsilon(Fraction(1, 2), Fraction(1, 10**6))
>>> Fraction(52, 10) < eps < Fraction(53, 10)                # CKS20 Cor 13: tighter
True
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import isqrt

from ..errors import ParameterError
from ..exactmath import exp_bounds, ln_bounds, simplest_between
from ..params import short_fraction

__all__ = [
    "cks_delta",
    "integer_order_epsilon",
    "sqrt_upper",
    "zcdp_epsilon",
    "zcdp_to_dp_bs",
]

#: Bits of every bracket: the rounding it adds to a figure is about ``2^-PRECISION``.
PRECISION = 80

#: Bisection steps of :func:`zcdp_epsilon`: the epsilon returned is within
#: ``2^-STEPS`` (relative) of the least the bound allows.
STEPS = 32


def sqrt_upper(x: Fraction, bits: int = PRECISION) -> Fraction:
    """A rational ``>= sqrt(x)``, within ``2^-bits`` of it (``x >= 0``).

    >>> sqrt_upper(Fraction(4))
    Fraction(2, 1)
    """
    if x < 0:
        raise ParameterError(f"sqrt_upper: got {short_fraction(x)}; need x >= 0")
    scaled = x * (1 << (2 * bits))
    top = -(-scaled.numerator // scaled.denominator)
    root = isqrt(top)
    if root * root < top:
        root += 1
    return Fraction(root, 1 << bits)


def ln_upper(x: Fraction) -> Fraction:
    """A rational ``>= ln x``."""
    return ln_bounds(x, PRECISION)[1]


def ln_lower(x: Fraction) -> Fraction:
    """A rational ``<= ln x``."""
    return ln_bounds(x, PRECISION)[0]


def exp_upper(x: Fraction) -> Fraction:
    """A rational ``>= e^x``."""
    return exp_bounds(x, PRECISION)[1]


def zcdp_to_dp_bs(rho: Fraction, delta: Fraction) -> Fraction:
    """BS16 Prop 1.3: ``rho``-zCDP gives ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP.

    The ``epsilon`` returned is rounded up.
    """
    rho, delta = Fraction(rho), Fraction(delta)
    if rho < 0 or not 0 < delta < 1:
        raise ParameterError(
            f"need rho >= 0 and delta in (0, 1), got rho = {short_fraction(rho)}, "
            f"delta = {short_fraction(delta)}"
        )
    return rho + 2 * sqrt_upper(rho * ln_upper(1 / delta))


_ORDER_TERMS: dict[Fraction, Fraction] = {}


def _order_term(alpha: Fraction) -> Fraction:
    """An upper bound of ``alpha ln(1 - 1/alpha) - ln(alpha - 1)``, kept per order."""
    term = _ORDER_TERMS.get(alpha)
    if term is None:
        term = alpha * ln_upper(1 - 1 / alpha) - ln_lower(alpha - 1)
        if len(_ORDER_TERMS) < 4096:
            _ORDER_TERMS[alpha] = term
    return term


def _orders(rho: Fraction, epsilon: Fraction, integer_orders: bool) -> list[Fraction]:
    """Orders near the best one: integers, and (for all orders) quarters.

    ``d/d alpha`` of the log of the bound is ``(2 alpha - 1) rho - eps + ln(1 - 1/alpha)``;
    with ``ln(alpha/(alpha - 1)) ~ 2/(2 alpha - 1)`` its root is about
    ``(y + 1)/2``, ``y = (eps + sqrt(eps^2 + 8 rho))/(2 rho)``: well above
    ``(eps + rho)/(2 rho)`` when ``rho`` is small (34 against 19 at ``rho = 1/1000``,
    ``eps = 0.037``).  Both neighbourhoods are tried; every order gives a valid bound,
    so more candidates only tighten it.
    """
    y = (epsilon + sqrt_upper(epsilon * epsilon + 8 * rho)) / (2 * rho)
    found: set[Fraction] = set()
    for centre in ((epsilon + rho) / (2 * rho), (y + 1) / 2):
        whole = centre.numerator // centre.denominator
        found |= {Fraction(max(2, whole + j)) for j in (-1, 0, 1, 2)}
        if not integer_orders:
            quarter = (4 * centre).numerator // (4 * centre).denominator
            found |= {Fraction(quarter + j, 4) for j in (-1, 0, 1, 2)}
            if centre < 2:  # large rho: the best order is near 1, where quarters are coarse
                fine = (64 * centre).numerator // (64 * centre).denominator
                found |= {Fraction(fine + j, 64) for j in (-1, 0, 1, 2)}
    return sorted(a for a in found if a > 1)


def _log_delta_upper(
    rho: Fraction, epsilon: Fraction, integer_orders: bool
) -> tuple[Fraction, Fraction]:
    """The least certified upper bound of ``ln delta`` over :func:`_orders`, and its order."""
    best: tuple[Fraction, Fraction] | None = None
    for alpha in _orders(rho, epsilon, integer_orders):
        # CKS20 Prop 12 at tau = alpha rho: ln delta = (alpha - 1)(tau - eps) + the order term.
        value = (alpha - 1) * (alpha * rho - epsilon) + _order_term(alpha)
        if best is None or value < best[0]:
            best = (value, alpha)
    assert best is not None
    return best


def cks_delta(
    rho: Fraction, epsilon: Fraction, *, integer_orders: bool = False
) -> tuple[Fraction, Fraction]:
    """A certified ``delta`` for ``rho``-zCDP at ``epsilon`` (CKS20 Cor 13), and the order used.

    The orders tried are near ``alpha = (eps + rho) / (2 rho)`` (the minimiser of
    the exponent's leading term; BS16's proof of Prop 1.3): the integers
    around it and, unless ``integer_orders`` (guarantees that hold at integer
    orders only), the quarters around it; the best certified bound is kept.

    Returns:
        ``(delta, alpha)``: ``delta`` is at most 1.

    >>> delta, alpha = cks_delta(Fraction(1, 2), Fraction(5))
    >>> alpha, Fraction(1, 10**6) < delta < Fraction(4, 10**6)
    (Fraction(23, 4), True)
    """
    rho, epsilon = Fraction(rho), Fraction(epsilon)
    if rho < 0 or epsilon < 0:
        raise ParameterError(
            f"need rho >= 0 and epsilon >= 0, got {short_fraction(rho)}, {short_fraction(epsilon)}"
        )
    if rho == 0:
        return Fraction(0), Fraction(2)
    log_delta, alpha = _log_delta_upper(rho, epsilon, integer_orders)
    return (exp_upper(log_delta), alpha) if log_delta < 0 else (Fraction(1), alpha)


def zcdp_epsilon(rho: Fraction, delta: Fraction, *, integer_orders: bool = False) -> Fraction:
    """The least ``epsilon`` (to ``2^-STEPS`` relative, rounded up) with CKS20's ``delta <= delta``.

    Starts from BS16 Prop 1.3's ``epsilon`` (always valid) and bisects below
    it, deciding ``delta(eps) <= delta`` as ``ln delta(eps) <= ln delta`` between
    certified bounds; the answer is one at which that was decided, so it never
    claims more than the bound proves.

    Raises:
        ParameterError: ``rho < 0`` or ``delta`` outside ``(0, 1)``.
    """
    rho, delta = Fraction(rho), Fraction(delta)
    high = zcdp_to_dp_bs(rho, delta)
    if rho == 0:
        return Fraction(0)
    if integer_orders:
        # BS16 Prop 1.3 and the bisection's start need every real order; a statement at
        # integer orders is converted by Prop 12 at integer orders alone.
        return integer_order_epsilon(rho, delta)[0]
    target = ln_lower(delta)

    def holds(epsilon: Fraction) -> bool:
        return _log_delta_upper(rho, epsilon, integer_orders)[0] <= target

    if not holds(high):
        return high  # pragma: no cover - at real orders CKS20's bound is never worse than BS16's
    if holds(Fraction(0)):  # a large delta: (0, delta)-DP already
        return Fraction(0)
    unit = high / (1 << STEPS)
    # from 0, not rho: with a large delta the least epsilon lies below rho
    steps_low, steps_high = 0, high // unit
    if steps_high * unit < high and not holds(steps_high * unit):
        steps_high += 1  # pragma: no cover - the floor of a valid epsilon is checked too
    while steps_high - steps_low > 1:  # invariant: the bound holds at steps_high * unit
        mid = (steps_low + steps_high) // 2
        if holds(mid * unit):
            steps_high = mid
        else:
            steps_low = mid
    return _simplest_valid(steps_high * unit, unit, holds)


def integer_order_epsilon(rho: Fraction, delta: Fraction) -> tuple[Fraction, int]:
    """CKS20 Prop 12 at the best integer order: an ``epsilon`` rounded up, and that order.

    For ``rho``-zCDP proved at integer orders only, order ``alpha`` gives
    ``(eps_alpha, delta)``-DP with

        eps_alpha = alpha rho + (ln(1/delta) + alpha ln(1 - 1/alpha) - ln(alpha - 1)) / (alpha - 1),

    each logarithm replaced by the side of its bracket that makes ``eps_alpha`` larger.
    The order is a choice, not a claim (every order gives a valid figure): the search
    doubles ``alpha`` while ``eps_alpha`` falls, then narrows the last bracket by
    ternary search and looks at the integers left; the least figure seen is returned.

    >>> eps, alpha = integer_order_epsilon(Fraction(20), Fraction(1, 1000))
    >>> alpha, Fraction(4552, 100) < eps < Fraction(4553, 100)   # 45.5214...
    (2, True)
    >>> integer_order_epsilon(Fraction(20), Fraction(1, 1000))[0] > zcdp_to_dp_bs(
    ...     Fraction(20), Fraction(1, 1000))                   # BS16 needs every real order
    True

    Raises:
        ParameterError: ``rho <= 0`` or ``delta`` outside ``(0, 1)``.
    """
    rho, delta = Fraction(rho), Fraction(delta)
    if rho <= 0 or not 0 < delta < 1:
        raise ParameterError(
            f"need rho > 0 and delta in (0, 1), got rho = {short_fraction(rho)}, "
            f"delta = {short_fraction(delta)}"
        )
    log_inverse = ln_upper(1 / delta)
    seen: dict[int, Fraction] = {}

    def at(alpha: int) -> Fraction:
        if alpha not in seen:
            order = Fraction(alpha)
            seen[alpha] = order * rho + (log_inverse + _order_term(order)) / (order - 1)
        return seen[alpha]

    # eps_alpha >= alpha rho, so no order above at(2)/rho + 1 can beat order 2.
    limit = max(3, (at(2) / rho).__ceil__() + 1)
    low, high = 2, 4
    while high < limit and at(high) < at(high // 2):
        low, high = high // 2, 2 * high
    high = min(high, limit)
    while high - low > 2:
        first, second = low + (high - low) // 3, high - (high - low) // 3
        if at(first) <= at(second):
            high = second
        else:
            low = first
    for alpha in range(low, high + 1):
        at(alpha)
    alpha, value = min(seen.items(), key=lambda item: (item[1], item[0]))
    if value <= 0:
        return Fraction(0), alpha
    return simplest_between(value, value + value / (1 << STEPS)), alpha


def _simplest_valid(
    value: Fraction, slack: Fraction, holds: Callable[[Fraction], bool]
) -> Fraction:
    """The simplest rational in ``[value, value + slack]`` if the bound holds there, else ``value``.

    A shorter figure, and still a valid (larger) one.
    """
    simpler = simplest_between(value, value + slack)
    return simpler if holds(simpler) else value
