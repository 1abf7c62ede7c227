"""The exponential mechanism with a rational base: one draw over exact integer weights.

Paper: McSherry & Talwar 2007 (the exponential mechanism); Ilvento, CCS 2020,
*Implementing the exponential mechanism with base-2 differential privacy*
(a base whose powers are exact, so no floating point decides the choice);
Cesar & Rogers 2021, Lemma 3.2 (it is bounded-range, so ``eps^2/8``-zCDP).

Candidate ``i`` has an integer utility ``u_i`` and a multiplicity ``c_i >= 1``
(the grid points it stands for); it is drawn with probability proportional
to ``c_i beta^(u_i)`` for a rational ``beta = b/a > 1``.  The weights
``c_i b^(u_i - u_min) a^(u_max - u_i)`` are integers, so one oracle call
``uniform(W)`` and a binary search choose the candidate and the point inside
it (BV Lemma 2.13): ``ceil(log2 m) + ceil(log2 max c_i)`` comparisons, never
more, whatever is drawn.

Neighbour relation: any under which every utility moves by at most ``Delta``
(the caller states it).  Then ``Pr[i] / Pr'[i] <= beta^(2 Delta)``, and
``beta^Delta`` when utilities all move the same way (monotone).

>>> em = ExponentialMechanism("2", sensitivity=1)
>>> em.weights([0, -1, -2], [1, 1, 2])          # 2^0, 2^-1, 2 * 2^-2, times 4
[4, 2, 2]
>>> em.privacy_ratio, [em.choose([0, -1, -2], [1, 1, 2], u) for u in (1, 4, 5, 7, 8)]
(Fraction(4, 1), [(0, 0), (0, 0), (1, 0), (2, 0), (2, 1)])
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import accumulate
from typing import Any

from ..accounting import Guarantee
from ..counting.base import bisect_cdf
from ..errors import ParameterError
from ..oracle import RandomSource, default_source, draw
from ..params import check_positive_int, exact_fraction, short_fraction
from ..resources import require_bits

__all__ = ["ExponentialMechanism", "fixed_weights", "invert", "table_ratio"]


class ExponentialMechanism:
    """Choose a candidate with probability ``∝ c_i beta^(u_i)``: one oracle call.

    Paper: McSherry-Talwar 2007; Ilvento 2020 (a rational base); Cesar-Rogers
    2021 Lemma 3.2 (bounded range: ``eps^2/8``-zCDP).

    Args:
        base: ``beta > 1``, a rational (``e^(eps/(2 Delta))`` or below it for ``eps``-DP).
        sensitivity: ``Delta``, the most any utility moves between neighbours.
        monotone: utilities of neighbours all move the same way (ratio ``beta^Delta``).

    Raises:
        ParameterError: ``beta <= 1`` or ``Delta < 1``.
    """

    __slots__ = ("_a", "_b", "_monotone", "_sensitivity")

    def __init__(self, base: object, *, sensitivity: object = 1, monotone: bool = False) -> None:
        beta = exact_fraction(base, "base")
        if beta <= 1:
            raise ParameterError(f"base: got {short_fraction(beta)}; it must be a rational above 1")
        self._b, self._a = beta.numerator, beta.denominator
        self._sensitivity = check_positive_int(sensitivity, "sensitivity")
        self._monotone = bool(monotone)

    @property
    def base(self) -> Fraction:
        """``beta``."""
        return Fraction(self._b, self._a)

    @property
    def privacy_ratio(self) -> Fraction:
        """``e^eps``: ``beta^(2 Delta)``, or ``beta^Delta`` for monotone utilities (exact)."""
        return self.base ** (self._sensitivity * (1 if self._monotone else 2))

    def guarantee(self, label: str = "exponential mechanism") -> Guarantee:
        """Pure DP at :attr:`privacy_ratio` and, bounded range, ``eps^2/8``-zCDP."""
        return Guarantee.pure_ratio(self.privacy_ratio, label, bounded_range=True)

    def weights(self, utilities: Sequence[int], counts: Sequence[int] | None = None) -> list[int]:
        """The integer weights ``c_i b^(u_i - u_min) a^(u_max - u_i)``.

        Raises:
            ParameterError: no candidates, a utility or count that is not an int,
            a count below 1, or weights above the memory limit.
        """
        if not utilities:
            raise ParameterError("utilities: got no candidates; give at least one")
        us = [_integer(u, "utility", i) for i, u in enumerate(utilities)]
        cs = (
            [1] * len(us)
            if counts is None
            else [_integer(c, "count", i) for i, c in enumerate(counts)]
        )
        if len(cs) != len(us):
            raise ParameterError(f"counts: got {len(cs)} for {len(us)} utilities")
        if min(cs) < 1:
            raise ParameterError(f"counts: got {min(cs)}; every multiplicity must be >= 1")
        low, high = min(us), max(us)
        spread = high - low
        require_bits(
            spread * max(self._a, self._b).bit_length() + max(cs).bit_length(),
            "the exponential mechanism's weights",
            f"utilities spanning {spread} with base {short_fraction(self.base)}",
            copies=2 * len(us) + 4,
        )
        a, b = self._a, self._b
        pow_a = _powers(a, spread)
        pow_b = _powers(b, spread)
        return [c * pow_b[u - low] * pow_a[high - u] for u, c in zip(us, cs, strict=True)]

    def choose(
        self, utilities: Sequence[int], counts: Sequence[int] | None, u: Any
    ) -> tuple[int, int]:
        """The candidate and the point inside it for the draw ``u`` in ``[1, W]``.

        Only compares ``u`` with integers (symbolic draws work).
        """
        weights, cs = self._weighted(utilities, counts)
        return _invert(weights, cs, u)

    def sample(
        self,
        utilities: Sequence[int],
        counts: Sequence[int] | None = None,
        rng: RandomSource | None = None,
    ) -> tuple[int, int]:
        """``(i, j)``: candidate ``i`` and its point ``j`` in ``[0, c_i)``, from one draw."""
        weights, cs = self._weighted(utilities, counts)
        return _invert(weights, cs, draw(rng or default_source(), sum(weights)))

    def _weighted(
        self, utilities: Sequence[int], counts: Sequence[int] | None
    ) -> tuple[list[int], list[int]]:
        weights = self.weights(utilities, counts)
        return weights, [1] * len(weights) if counts is None else [int(c) for c in counts]

    def pmf(
        self, utilities: Sequence[int], counts: Sequence[int] | None = None
    ) -> dict[int, Fraction]:
        """The exact law of the chosen candidate."""
        weights = self.weights(utilities, counts)
        total = sum(weights)
        return {i: Fraction(w, total) for i, w in enumerate(weights)}

    def max_comparisons(self, candidates: int, largest_count: int = 1) -> int:
        """``ceil(log2 m) + ceil(log2 max c_i)``: the two binary searches of one draw."""
        return (candidates - 1).bit_length() + (largest_count - 1).bit_length()

    def __repr__(self) -> str:
        extra = ", monotone=True" if self._monotone else ""
        base = short_fraction(self.base)
        return f"ExponentialMechanism({base}, sensitivity={self._sensitivity}{extra})"


def _powers(base: int, top: int) -> list[int]:
    out = [1]
    for _ in range(top):
        out.append(out[-1] * base)
    return out


def _integer(value: object, name: str, index: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterError(f"{name} {index}: got {value!r}; it must be an int")
    return value


def fixed_weights(base: Fraction, top: int, precision: int) -> list[int]:
    """``w(t) = floor(2^P base^-t)`` for ``t = 0..top``, every floor exact.

    A lower and an upper fixed-point chain with 64 guard bits run the recurrence
    ``g(t + 1) = g(t) a/b`` (``base = b/a``); each step moves each chain by less
    than one unit, so their floors agree unless ``2^P base^-t`` is within
    ``t 2^-64`` of an integer, and then the floor is computed from ``a^t`` and
    ``b^t`` exactly.  The weights have ``P + 1`` bits, whatever ``top``: the
    exponential mechanism over ``K`` clipped errors costs ``O(K P)`` bits, not
    ``O(K^2 log b)`` as exact rational weights do.

    >>> fixed_weights(Fraction(2), 3, 4)
    [16, 8, 4, 2]
    >>> fixed_weights(Fraction(3, 2), 3, 4)          # 16 (2/3)^t = 16, 10.67, 7.11, 4.74
    [16, 10, 7, 4]
    """
    a, b = base.denominator, base.numerator
    guard = 64
    low = high = 1 << (precision + guard)
    out = [1 << precision]
    for t in range(1, top + 1):
        low = low * a // b
        high = -(-high * a // b)
        w = low >> guard
        if w != high >> guard:
            w = (a**t << precision) // b**t
        out.append(w)
    return out


def table_ratio(weights: Sequence[int]) -> Fraction:
    """``max_t w(t)/w(t + 1)``: the most one unit of utility moves a weight (exact).

    Raises:
        ParameterError: a weight of 0 (the precision is too low for the table's length).
    """
    if min(weights) < 1:
        raise ParameterError("precision: a weight of the table is 0; raise the precision")
    best = 0
    for t in range(1, len(weights)):
        if best == 0 or weights[t - 1] * weights[best] > weights[best - 1] * weights[t]:
            best = t
    return Fraction(weights[best - 1], weights[best]) if best else Fraction(1)


def invert(weights: list[int], counts: list[int], u: Any) -> tuple[int, int]:
    """:func:`_invert`, for mechanisms that build their own integer weights."""
    return _invert(weights, counts, u)


def _invert(weights: list[int], counts: list[int], u: Any) -> tuple[int, int]:
    """The least ``i`` with ``prefix_i >= u``, then the point inside it.

    The point is the least ``j`` with ``prefix_(i-1) + (j + 1) w_i / c_i >= u``; both
    are BV's binary search (Lemma 2.13), comparing ``u`` only.
    """
    prefix = list(accumulate(weights))
    i = bisect_cdf(prefix.__getitem__, len(prefix) - 1, u)
    start, per = prefix[i] - weights[i], weights[i] // counts[i]
    return i, bisect_cdf(lambda j: start + (j + 1) * per, counts[i] - 1, u)
