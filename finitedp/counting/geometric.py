"""The clamped two-sided geometric distribution, as an exact reference.

Paper: BV Alg 4.5 (GeometricMechanism), Thm 4.6; the CDF used in the proof of Lemma 4.9.

``GeometricMechanism(n, ratio)`` is ``c + Geo`` clamped to ``[0, n]``, where
the two-sided geometric has ``Pr[Z = c + j]`` proportional to ``ratio^-|j|``
and ``ratio = e^(eps/2)`` is rational (the only case whose probabilities are
rational).  Nothing here samples: it is the exact distribution every sampler
is tested against.

>>> g = GeometricMechanism(2, Fraction(3, 2))
>>> g.pmf(0)
{0: Fraction(3, 5), 1: Fraction(2, 15), 2: Fraction(4, 15)}
>>> g.cdf(1, 0), g.cdf(1, 1)
(Fraction(2, 5), Fraction(3, 5))
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import ParameterError
from ..exactmath import min_power_at_least
from ..params import (
    check_count,
    check_positive_int,
    exact_fraction,
    probability,
    short_fraction,
    short_int,
)
from ..resources import fraction_seconds, integer_bytes, require_bits, require_memory, require_time

__all__ = ["GeometricMechanism"]


class GeometricMechanism:
    """``c + Geo(2/eps)`` clamped to ``[0, n]``, with ``e^(eps/2) = ratio`` rational.

    Paper: BV Alg 4.5, Thm 4.6.

    Args:
        n: the number of rows; outputs lie in ``[0, n]``.
        ratio: ``e^(eps/2)``, a rational greater than 1.  BV's GeoSample uses
            ``1 + 2^-k``.

    Raises:
        ParameterError: ``n < 1`` or ``ratio <= 1``.
    """

    __slots__ = ("_alpha", "_n")

    def __init__(self, n: int, ratio: object) -> None:
        self._n = check_positive_int(n, "n")
        r = exact_fraction(ratio, "ratio")
        if r <= 1:
            raise ParameterError(f"ratio: got {r}; e^(eps/2) must be a rational greater than 1")
        self._alpha = 1 / r

    @property
    def n(self) -> int:
        """The largest output."""
        return self._n

    @property
    def ratio(self) -> Fraction:
        """``e^(eps/2)``: the exact privacy ratio of neighbouring counts (Thm 4.6 i)."""
        return 1 / self._alpha

    def cdf(self, c: int, z: int) -> Fraction:
        """``Pr[output <= z]`` for true count ``c`` (any integer ``z``)."""
        c = check_count(c, self._n)
        alpha = self._alpha
        if z < 0:
            return Fraction(0)
        if z >= self._n:
            return Fraction(1)
        if z < c:
            return alpha ** (c - z) / (1 + alpha)
        return 1 - alpha ** (z - c + 1) / (1 + alpha)

    def pmf(self, c: int) -> dict[int, Fraction]:
        """The exact output distribution for true count ``c``, as ``{z: probability}``.

        Its ``n + 1`` probabilities have up to ``n bits(ratio)`` bits each: memory and
        time (a CPython gcd each) are estimated first.

        Raises:
            ResourceLimitError: above the memory limit or the time budget.
        """
        c = check_count(c, self._n)
        bits = self._n * max(
            self._alpha.numerator.bit_length(), self._alpha.denominator.bit_length()
        )
        cause = f"n = {short_int(self._n)}, ratio = {short_fraction(self.ratio)}"
        require_bits(2 * bits, "each exact probability of the geometric law", cause)
        require_memory(
            (self._n + 1) * (integer_bytes(bits) + 100), "the geometric law's table", cause
        )
        require_time(
            fraction_seconds(bits, 2 * (self._n + 1)), "the geometric law's probabilities", cause
        )
        previous = Fraction(0)
        pmf: dict[int, Fraction] = {}
        for z in range(self._n + 1):
            current = self.cdf(c, z)
            pmf[z] = current - previous
            previous = current
        return pmf

    def accuracy(self, beta: object) -> int:
        """The ``a`` of Thm 4.6 ii: ``ceil((2/eps) ln(1/beta))``, computed exactly.

        Raises:
            ParameterError: ``beta`` outside ``(0, 1)``.
        """
        b = probability(beta, "beta")
        return min_power_at_least(self.ratio, 1 / b)

    def __repr__(self) -> str:
        return f"GeometricMechanism(n={self._n}, ratio={short_fraction(self.ratio)})"
