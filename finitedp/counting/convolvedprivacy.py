"""The privacy statement of :class:`~.convolved.ConvolvedGaussian`: windows, sandwich, tails.

Paper: CKS20 Thm 14 (the ideal shape's zCDP); Bun & Steinke 2016 Def 8.1;
proofs_notes/convolved_gaussian.md, "One level" and "Privacy".  A
:class:`Certifier` holds the public numbers of one law (its tables and level
shapes) and answers, from them alone:

* :meth:`Certifier.certificate`: ``(eps, eta)`` of the sandwich on a window,
  carried through the levels from the outside in (:mod:`.smoothing`);
* :meth:`Certifier.statement`: the window ``T`` at which ``d u <= rho / 2^ZCDP_GUARD``
  (or the largest certified), and ``d u``;
* :meth:`Certifier.tail_bound`: a certified ``Pr[|Z| > t]``.
"""

from __future__ import annotations

from fractions import Fraction
from math import isqrt

from ..errors import ParameterError
from ..params import short_int
from .convolvedtables import GaussianDesign, NormalTable, tail_mass
from .smoothing import LevelShape, gaussian_tail, level_bounds, statement

__all__ = ["ZCDP_GUARD", "Certifier"]

#: The relative distortion the zCDP statement allows is at most ``rho / 2^ZCDP_GUARD``.
ZCDP_GUARD = 20


class Certifier:
    """The statement's arithmetic for one law (public values only)."""

    def __init__(
        self,
        sigma2: Fraction,
        design: GaussianDesign,
        top_table: NormalTable,
        base_table: NormalTable | None,
        shapes: list[LevelShape],
        radius: int,
    ) -> None:
        self._sigma2, self._design, self._n = sigma2, design, len(shapes)
        self._top_table, self._base_table, self._shapes = top_table, base_table, shapes
        self._top_radius, self._top_weights = top_table.radius, top_table.weights
        self._base_radius = base_table.radius if base_table else 0
        self.radius = radius
        self._certificates: dict[int, tuple[Fraction, Fraction] | None] = {}
        self._statements: dict[tuple[int, int], tuple[int, Fraction]] = {}

    def certificate(self, window: int) -> tuple[Fraction, Fraction] | None:
        """``(eps, eta)``: ``p(z) <= K (1 + eps) g(z)`` everywhere and
        ``p(z) >= K (1 - eta) g(z)`` for ``|z| <= window`` (``None``: out of reach).

        Public values only; proofs_notes/convolved_gaussian.md, "One level".
        """
        if window in self._certificates:
            return self._certificates[window]
        result = self._certify(window)
        if len(self._certificates) < 4096:
            self._certificates[window] = result
        return result

    def _windows(self, window: int) -> list[int] | None:
        """Each level's window, outermost first, or ``None`` if the lemma does not reach.

        Level ``k``'s window leaves :func:`~.smoothing.margin` lattice steps around
        the centre ``c`` at level ``k + 1``'s window (capped by ``z*``, or ``R_B``).
        """
        if window < 0:
            return None
        windows = [window]
        for k in range(self._n - 1, -1, -1):  # shapes[k] builds level k + 1 from level k
            cap = self._top_radius if k == 0 else int(self._shapes[k - 1].largest_window())
            inner = self._shapes[k].inner_window(windows[-1], cap)
            if not self._shapes[k].reaches(windows[-1], inner):
                return None
            windows.append(inner)
        return windows if windows[-1] <= self._top_radius else None

    def _certify(self, window: int) -> tuple[Fraction, Fraction] | None:
        windows = self._windows(window)
        if windows is None:
            return None
        top = self._top_table
        eps, eta = top.above, Fraction(1, self._top_weights[windows[-1]])
        if eta >= 1:
            return None
        for k in range(self._n):
            bounds = level_bounds(self._shapes[k], windows[-2 - k], windows[-1 - k], eps, eta)
            if bounds is None:
                return None
            eps, eta = bounds
        return eps, eta

    def _largest_window(self) -> int:
        """The largest window the lemma reaches (it stops reaching monotonically), or -1."""
        if self._windows(0) is None:
            return -1
        low, high = 0, self.radius + 1  # reaches at low, not at high
        while high - low > 1:
            mid = (low + high) // 2
            if self._windows(mid) is None:
                high = mid
            else:
                low = mid
        return low

    def _upper_constant(self) -> Fraction:
        """``K (1 + eps)`` rounded up: ``p(z) <= K (1 + eps) exp(-z^2/(2 sigma^2))`` for all ``z``.

        ``K = (X_B / 2^Q_B) prod_k (X_J / 2^Q_J) sqrt(2 pi v_k)``.
        """
        top = self._top_table
        constant = Fraction(top.scale, 1 << top.bits) * (1 + top.above)
        for shape in self._shapes:
            base = self._base_table
            assert base is not None
            constant *= Fraction(base.scale, 1 << base.bits) * (1 + base.above)
            constant *= shape.root_high * (1 + shape.excess)
        return constant

    def tail_bound(self, t: int) -> Fraction:
        """A certified upper bound of ``Pr[|Z| > t]`` (exact when ``n = 0``).

        The smaller of two bounds: the sandwich's upper side summed over ``|z| > t``
        (:func:`~.smoothing.gaussian_tail` at centre 0), and ``L^n |B| > t - R_J (L^n - 1)/(L - 1)``
        (the ``J`` part is bounded by the tables' radius), exact from ``B``'s table.
        """
        big_l, n = self._design.lattice, self._n
        rest = t + 1 - self._base_radius * (big_l**n - 1) // (big_l - 1)
        least = -(-rest // big_l**n)  # |B| >= least
        by_table = tail_mass(self._top_weights, least - 1)
        if n == 0 or t < 1:
            return by_table
        by_shape = self._upper_constant() * gaussian_tail(Fraction(t), self._sigma2)
        return min(by_table, by_shape)

    def statement(self, shift: int, d: int, rho: Fraction) -> tuple[int, Fraction]:
        """``(T, d u)``: the window and what the sandwich adds to ``rho`` there."""
        key = (shift, d)
        if key in self._statements:
            return self._statements[key]
        top = self._largest_window()
        if top <= shift:
            raise ParameterError(
                f"sensitivity: got {short_int(shift)}; it must be below {max(top, 1)}, the "
                f"largest window this law's statement reaches"
            )

        def cost(window: int) -> Fraction | None:
            bounds = self.certificate(window)
            return None if bounds is None else d * statement(*bounds)

        def meets(window: int) -> bool:
            c = cost(window)
            return c is not None and c * (1 << ZCDP_GUARD) <= rho

        # The window need not be the largest that meets the guard, only a good one: a
        # bisection down to sigma/16 (a few certificates, not one per bit of T).
        step = max(1, isqrt(self._sigma2.numerator // self._sigma2.denominator) // 16)
        low, high = shift, top
        if meets(low):
            while high - low > step:
                mid = (low + high) // 2
                if meets(mid):
                    low = mid
                else:
                    high = mid
            window = low
        else:
            window = high
            while cost(window) is None and window > shift + 1:  # the largest certified window
                window -= max(1, (window - shift) // 16)
        final = cost(window)
        if final is None:
            raise ParameterError(
                f"sensitivity: got {short_int(shift)}; no window above it has a certificate"
            )
        if len(self._statements) < 256:
            self._statements[key] = (window, final)
        return window, final
