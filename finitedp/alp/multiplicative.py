"""ALP with multiplicative error: a 1-Lipschitz logarithm that is exact on rationals (Section 2.6).

Paper: Lebeda thesis Section 2.6 (Lemma 2.28: the map ``x -> max(log_B(x ln B), 0)``
has slope at most 1, so ALP on the mapped vector is still ``eps``-DP; Lemma 2.29:
expected multiplicative error ``O(1)`` with evaluation time ``O(log psi)``).

Neighbours: vectors at l1 distance at most 1 (as ALP; the map shrinks distances).

``log_B`` is transcendental, so finitedp replaces it by ``g``, a piecewise-linear
increasing map with integer breakpoints ``t_0 < t_1 < ...`` and ``g(t_j) = j``:

    t_0 = the least power of two >= max(1, 1/(B - 1)),
    t_(j+1) = t_j + D_j,  D_j = the largest power of two <= t_j (B - 1),
    g(x) = 0 for x <= t_0,   g(x) = j + (x - t_j) / D_j on [t_j, t_(j+1)].

Each piece has slope ``1/D_j <= 1`` (``D_j >= 1``), so ``|g(x) - g(x')| <= |x - x'|``
and Lemma 2.28's argument holds exactly; ``g`` maps rationals to rationals, and
its inverse on ``[j, j+1]`` is ``t_j + (y - j) D_j``.  Consecutive breakpoints
grow by a factor ``t_(j+1)/t_j`` in ``(1 + (B - 1)/2, B]``, so ``g`` is a logarithm
of a base between ``(B + 1)/2`` and ``B``: an error of ``e`` in ``g``-space is a
factor of at most ``B^(|e| + 1)`` in value.  Because every ``D_j`` is a power of
two, every ``g(x)`` with ``x`` on the grid of ``step`` is a multiple of
``1/(den(step) D_max)``: ALP rounds it with one public oracle call.  (The thesis'
``B`` is irrational, finitedp takes a rational one, :func:`thesis_base`.)

>>> g = LogMap(Fraction(2), Fraction(100))     # B = 2: t = 1, 2, 4, 8, ..., 128
>>> g.breakpoints[:5], [str(g(Fraction(v))) for v in (0, 1, 3, 6, 100)]
((1, 2, 4, 8, 16), ['0', '0', '3/2', '5/2', '105/16'])
>>> g.inverse(Fraction(5, 2))
Fraction(6, 1)
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise

from ..errors import ParameterError
from ..exactmath import exp_bounds, ln_bounds
from ..guarantees import Privacy
from ..oracle import RandomSource, default_source
from ..params import exact_fraction, positive_fraction
from .bounds import gamma
from .mechanism import ALP, DEFAULT_ALPHA
from .projection import check_sparse
from .release import ALPRelease

__all__ = ["LogMap", "MultiplicativeALP", "MultiplicativeRelease", "thesis_base"]


@dataclass(frozen=True)
class LogMap:
    """``g``: a piecewise-linear, 1-Lipschitz stand-in for ``log_B`` (module notes).

    Paper: Lebeda thesis Section 2.6, Lemma 2.28.

    Attributes:
        base: ``B > 1``.
        top: the largest value mapped (``psi``); breakpoints run up to it.
    """

    base: Fraction
    top: Fraction
    breakpoints: tuple[int, ...] = field(default=(), init=False)

    def __post_init__(self) -> None:
        if not self.base > 1:
            raise ParameterError(f"B: got {self.base}; the base must exceed 1")
        first = 1
        while first * (self.base - 1) < 1:
            first *= 2
        points = [first]
        while points[-1] < self.top:
            width = 1 << int(points[-1] * (self.base - 1)).bit_length() - 1
            points.append(points[-1] + width)
        object.__setattr__(self, "breakpoints", tuple(points))

    @property
    def finest(self) -> int:
        """``D_max``: the largest piece (a power of two)."""
        pts = self.breakpoints
        return max((b - a for a, b in pairwise(pts)), default=1)

    def __call__(self, x: Fraction) -> Fraction:
        x = min(Fraction(x), Fraction(self.breakpoints[-1]))
        pts = self.breakpoints
        if x <= pts[0]:
            return Fraction(0)
        j = bisect_right(pts, x) - 1
        if j == len(pts) - 1:
            return Fraction(j)
        return j + (x - pts[j]) / (pts[j + 1] - pts[j])

    def inverse(self, y: Fraction) -> Fraction:
        """``g^-1(y)`` for ``0 < y <= J``; ``t_0`` for ``y <= 0`` (every ``x <= t_0`` maps to 0)."""
        y = Fraction(y)
        pts = self.breakpoints
        if y <= 0:
            return Fraction(pts[0])
        j = min(int(y), len(pts) - 2) if len(pts) > 1 else 0
        if len(pts) == 1:
            return Fraction(pts[0])
        return pts[j] + (y - j) * (pts[j + 1] - pts[j])

    def denominator(self, step: Fraction) -> int:
        """``q = den(step) D_max``: ``q g(x)`` is an integer for ``x`` on the ``step`` grid."""
        return step.denominator * self.finest


def thesis_base(alpha: Fraction, collision: Fraction, epsilon: Fraction) -> Fraction:
    """A rational ``B``, at most the thesis' ``(4(p - p^2))^(-eps/(4 alpha))`` (Lemma 2.29).

    ``p = 1/(gamma + 2)`` with Lemma 2.10's ``gamma``.  Any ``B > 1`` keeps privacy;
    this one keeps Lemma 2.29's error analysis (a smaller ``B`` only refines the scale).
    """
    p = 1 / (gamma(alpha, collision) + 2)
    epsilon, alpha = exact_fraction(epsilon, "epsilon"), exact_fraction(alpha, "alpha")
    c = 4 * (p - p * p)
    # B = c^(-eps/(4 alpha)) = exp(eps ln(1/c) / (4 alpha)); bracket it from below (3 digits).
    low = exp_bounds(epsilon * ln_bounds(1 / c)[0] / (4 * alpha), 32)[0]
    return max(Fraction(1001, 1000), Fraction(int(low * 1000), 1000))


@dataclass(frozen=True)
class MultiplicativeRelease:
    """An ALP release of ``g(x)``; ``estimate(i) = g^-1(ALP's estimate)``."""

    alp: ALPRelease
    log_map: LogMap

    def estimate(self, i: int) -> Fraction:
        """Section 2.6's estimate ``B^(x..)/ln B``, with ``g^-1`` for the exact inverse."""
        return self.log_map.inverse(self.alp.estimate(i))

    def __getitem__(self, i: int) -> Fraction:
        return self.estimate(i)


class MultiplicativeALP:
    """ALP on ``g(x)``: ``eps``-DP, estimates within a multiplicative factor (Section 2.6).

    Paper: Lebeda thesis Section 2.6, Lemmas 2.28-2.29.

    Neighbours: vectors at l1 distance at most 1.

    Args:
        universe_size: ``d``.
        epsilon: the budget.
        k: the public sparsity bound.
        psi: the largest value (values above it are encoded as ``psi``).
        base: ``B > 1``, rational (default: :func:`thesis_base`).
        alpha: ALP's scale.
        s: ALP's buckets.
        step: the public grid of the values (default 1).
    """

    def __init__(
        self,
        universe_size: int,
        epsilon: object,
        k: int,
        psi: object,
        base: object | None = None,
        alpha: object = DEFAULT_ALPHA,
        s: int | None = None,
        step: object = 1,
    ) -> None:
        eps = positive_fraction(epsilon, "epsilon")
        a = positive_fraction(alpha, "alpha")
        top = positive_fraction(psi, "psi")
        grid = positive_fraction(step, "step")
        b = thesis_base(a, Fraction(1, 10), eps) if base is None else exact_fraction(base, "base")
        self.log_map = LogMap(b, top)
        # The mapped values lie on the grid of 1/q: Alg 4 rounds them with one public call each.
        q = self.log_map.denominator(grid)
        self.alp = ALP(
            universe_size,
            eps,
            k,
            max(self.log_map(top), Fraction(1, q)),
            alpha=a,
            s=s,
            step=Fraction(1, q),
        )
        self.psi, self.step = top, grid

    @property
    def privacy(self) -> Privacy:
        """``(eps, 0)`` for l1 distance 1 (Lemma 2.28: ``g`` is 1-Lipschitz)."""
        return self.alp.privacy

    def project(
        self, x: Mapping[int, object], rng: RandomSource | None = None
    ) -> MultiplicativeRelease:
        """Map every entry by ``g`` (capped at ``psi``), then ALP-Projection."""
        rng = default_source() if rng is None else rng
        entries = check_sparse(x, self.alp.universe_size, self.alp.k, self.step)
        mapped = {i: self.log_map(v) for i, v in entries.items()}
        return MultiplicativeRelease(self.alp.project(mapped, rng), self.log_map)
