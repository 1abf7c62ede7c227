"""BV's empty-bin sampler ``M0`` (Alg 8.5) and the draws of ``S_v`` (Lemma 8.4).

Paper: BV Lemma 8.4, Alg 8.5.

``M0`` maps a uniform draw of ``[d0]_+`` (``d0 = 2^L``, a field element read as an
integer by ``T``) to a count with nearly the distribution of ``M(0, U)``; the
preimage of a count ``v`` is an interval ``supp(S_v)``, which is what the
release polynomial must hit at an occupied bin.

>>> from finitedp import GeoSample
>>> empty = EmptyBinSampler(GeoSample(2, 1), 64)
>>> empty.preimage(0), empty.q, empty.r
((1, 40), 4, 4)
"""

from __future__ import annotations

from bisect import bisect_left
from fractions import Fraction
from typing import Any

from ..counting.base import CountingSampler
from ..errors import ParameterError
from ..oracle import RandomSource, draw
from ..params import check_positive_int, short_int

__all__ = ["EmptyBinSampler"]


class EmptyBinSampler:
    """BV's ``M0: [d0]_+ -> [n]``: ``M(0, f(u0))`` with ``f`` spreading ``[d0]_+`` onto ``[d]_+``.

    Paper: BV Alg 8.5, Lemma 8.4.  With ``d0 = q d + r`` (``0 <= r < d``),
    ``f(u0) = ceil(u0/(q+1))`` for ``u0 <= r (q+1)`` and ``ceil((u0 - r)/q)`` above,
    so each ``u`` in ``[d]_+`` has ``q + 1`` (``u <= r``) or ``q`` preimages.

    Args:
        sampler: the counting sampler ``M`` (non-decreasing in ``u`` at ``c = 0``).
        d0: the size of ``M0``'s domain; at least ``(4/3) d``.

    Raises:
        ParameterError: ``d0 < (4/3) d``.
    """

    __slots__ = ("_bounds", "_d", "_d0", "_q", "_r", "_sampler")

    def __init__(self, sampler: CountingSampler, d0: int) -> None:
        d0 = check_positive_int(d0, "d0")
        d = sampler.d
        if 3 * d0 < 4 * d:
            raise ParameterError(
                f"d0: got {short_int(d0)}; Lemma 8.4 needs d0 >= (4/3) d with d = {short_int(d)}"
            )
        self._sampler, self._d, self._d0 = sampler, d, d0
        self._q, self._r = divmod(d0, d)
        # bounds[v] = max{u0 : M0(u0) <= v} = G(F_M(v)) (Lemma 8.4 v); bounds[n] = d0.
        self._bounds = [self.max_preimage(sampler.cdf(0, v)) for v in range(sampler.n + 1)]

    @property
    def sampler(self) -> CountingSampler:
        """The counting sampler ``M``."""
        return self._sampler

    @property
    def d0(self) -> int:
        """The domain size ``d0``."""
        return self._d0

    @property
    def q(self) -> int:
        """``q = floor(d0 / d)``."""
        return self._q

    @property
    def r(self) -> int:
        """``r = d0 mod d``."""
        return self._r

    def f(self, u0: int) -> int:
        """Alg 8.5 step 2: the non-decreasing map ``[d0]_+ -> [d]_+``."""
        q, r = self._q, self._r
        if r and u0 <= r * (q + 1):
            return (u0 + q) // (q + 1)
        return (u0 - r + q - 1) // q

    def max_preimage(self, u: int) -> int:
        """``max{u0 : f(u0) <= u}`` for ``u`` in ``[0, d]`` (Lemma 8.4 v)."""
        q, r = self._q, self._r
        if r and u <= r:
            return (q + 1) * u
        return q * u + r

    def __call__(self, u0: int) -> int:
        """Alg 8.5 literally: ``M(0, f(u0))`` for an int ``u0`` in ``[1, d0]``."""
        if isinstance(u0, bool) or not isinstance(u0, int) or not 1 <= u0 <= self._d0:
            raise ParameterError(f"u0: got {u0!r}; it must be an int in [1, d0]")
        return self._sampler(0, self.f(u0))

    def search(self, u0: Any) -> int:
        """``M0(u0)`` by bisection over ``max{u0' : M0(u0') <= v}``: comparisons of ``u0`` only.

        Equal to :meth:`__call__` (``f`` and ``M(0, .)`` are non-decreasing); the
        checker can run it on symbolic draws.
        """
        return bisect_left(self._bounds, u0)

    def preimage(self, v: int) -> tuple[int, int]:
        """``supp(S_v) = [low, high]``, the draws ``u0`` with ``M0(u0) = v`` (Lemma 8.4 v).

        Raises:
            ParameterError: ``v`` outside ``[0, n]`` or with an empty preimage.
        """
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= self._sampler.n:
            raise ParameterError(f"v: got {v!r}; it must be an int in [0, {self._sampler.n}]")
        low = self._bounds[v - 1] + 1 if v else 1
        high = self._bounds[v]
        if low > high:
            raise ParameterError(
                f"v: M0 never outputs {v} (M(0, U) = {v} has probability 0), so no histogram "
                f"of the family has this count"
            )
        return low, high

    def sample_preimage(self, v: int, rng: RandomSource) -> Any:
        """A draw of ``S_v``, uniform on :meth:`preimage` ``(v)``: one call ``uniform(size)``."""
        low, high = self.preimage(v)
        return draw(rng, high - low + 1) + (low - 1)

    def pmf(self) -> dict[int, Fraction]:
        """The exact distribution of ``M0(U0)``, ``U0`` uniform on ``[d0]_+`` (no zero entries)."""
        result, previous = {}, 0
        for v, bound in enumerate(self._bounds):
            if bound > previous:
                result[v] = Fraction(bound - previous, self._d0)
            previous = bound
        return result

    @property
    def bounds(self) -> tuple[int, ...]:
        """``(max{u0 : M0(u0) <= v} for v in [0, n])``."""
        return tuple(self._bounds)
