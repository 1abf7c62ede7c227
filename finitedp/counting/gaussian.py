"""The discrete Gaussian with strict work: one draw over an integer CDF, and its exact privacy.

Paper: Canonne, Kamath & Steinke 2020 (CKS20) Def 1 and Thm 14 (the discrete
Gaussian is ``Delta^2/(2 sigma^2)``-zCDP); BV Lemma 2.13 (one draw ``u`` in
``[1, W]`` and a binary search over the integer CDF); Bun & Steinke 2016 Def
8.1 (approximate zCDP).  Lebeda thesis Algs 15 and 17 add it to sums.

:class:`DiscreteGaussian` samples the symmetric law ``Pr[z] = w(|z|)/W`` on
``[-R, R]`` for the integer weights of :mod:`.gaussiantable` (the exact law
with a rational base, or the fixed-precision law), with exactly one oracle call
``uniform(W)`` and ``ceil(log2(2R + 1))`` comparisons: the work does not depend
on the drawn value.  CKS20's own sampler (and OpenDP's, Tumult's) is a
rejection loop whose number of rounds depends on the draws.

Privacy is stated for this law, added to an integer whose neighbours differ by
at most ``Delta`` (a count, or a sum in grid units):

* :meth:`DiscreteGaussian.hockey_stick` / :meth:`~DiscreteGaussian.delta`: the
  exact least ``delta`` at ``e^eps`` (the truncation's boundary mass included);
* :meth:`DiscreteGaussian.zcdp`: ``delta0``-approximate ``rho'``-zCDP at integer
  orders, with ``rho' = rho + 1/w(T)`` (``0`` for the exact law) and ``delta0``
  the mass outside ``[-T + Delta, T]`` (proofs_notes/discrete_gaussian.md).

>>> g = DiscreteGaussian.with_base("1/2", 3)          # Pr[z] ∝ 2^(-z^2) on [-3, 3]
>>> g.d, g.pmf()[0], g.max_oracle_calls, g.max_comparisons
(1090, Fraction(256, 545), 1, 3)
>>> [g(u) for u in (1, 2, 289, 290, 801, 802, 1090)]
[-3, -2, -1, 0, 0, 1, 3]
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Sequence
from fractions import Fraction
from math import isqrt
from typing import Any

import numpy as np

from ..accounting import Guarantee
from ..errors import ParameterError, ResourceLimitError
from ..exactmath import exp_bounds, least_such_that, ln_bounds
from ..oracle import RandomSource, default_source, draw, draws
from ..params import (
    check_draw,
    check_int,
    check_positive_int,
    exact_fraction,
    positive_fraction,
    probability,
    short_fraction,
    short_int,
)
from ..resources import require_memory
from .base import bisect_cdf
from .gaussiantable import (
    MAX_PRECISION,
    fixed_precision_weights,
    largest_radius,
    rational_base_weights,
)

__all__ = ["DiscreteGaussian"]

#: The relative distortion ``1/w(T)`` the zCDP statement allows is at most ``rho / 2^GUARD``.
ZCDP_GUARD = 20

#: The largest ``sigma^2`` of a fixed-precision table.
MAX_SIGMA2 = 1 << 128

#: The default precision of tables up to ``sigma = HIGH_PRECISION_SIGMA`` (about 30 MB there).
HIGH_PRECISION = 128
HIGH_PRECISION_SIGMA = 1 << 14


class DiscreteGaussian:
    """A discrete Gaussian on ``[-R, R]`` from one oracle call (strict work).

    Paper: CKS20 Def 1 (the law), Thm 14 (its privacy, for the ideal law);
    BV Lemma 2.13 (inverse-CDF sampling with one draw).

    Build it with ``DiscreteGaussian(sigma, radius=..., precision=...)`` (the
    fixed-precision law, any rational ``sigma``) or
    :meth:`DiscreteGaussian.with_base` (the exact law ``Pr[z] ∝ alpha^(z^2)``).

    Args:
        sigma: the ideal law's ``sigma``, a positive rational (``sigma^2`` is exact).
        radius: ``R``, the public truncation; by default the largest with ``w(R) >= 1``.
        precision: ``P``, the bits of the peak weight ``w(0) = 2^P``; by default
            128 up to ``sigma = 2^14``, above it the most (up to 48) with every
            CDF value below ``2^63`` (8-byte tables).

    Raises:
        ParameterError: a parameter out of range (``w(R) = 0``: the message says
            the largest ``R``); FloatParameterError: a float; ResourceLimitError:
            a table above the memory limit.
    """

    __slots__ = (
        "_base",
        "_bulk",
        "_cdf",
        "_kind",
        "_prefix",
        "_radius",
        "_sigma2",
        "_total",
        "_weights",
    )

    def __init__(self, sigma: object, *, radius: object = None, precision: object = None) -> None:
        s = positive_fraction(sigma, "sigma")
        self._init_fixed(s * s, radius, precision)

    @classmethod
    def from_variance(
        cls, sigma2: object, *, radius: object = None, precision: object = None
    ) -> DiscreteGaussian:
        """The fixed-precision law from a rational ``sigma^2`` (``sigma`` may be irrational).

        Lebeda thesis Alg 15's ``sigma_i^2 = Delta_i^2/(2 rho b_i^2)`` is rational
        for a rational ``b`` while ``sigma_i`` is not.

        >>> DiscreteGaussian.from_variance("1/2").sigma2
        Fraction(1, 2)
        """
        self = cls.__new__(cls)
        self._init_fixed(positive_fraction(sigma2, "sigma2"), radius, precision)
        return self

    def _init_fixed(self, sigma2: Fraction, radius: object, precision: object) -> None:
        if precision is None:
            p = _default_precision(sigma2)
        else:
            p = check_positive_int(precision, "precision")
            if p > MAX_PRECISION:
                raise ParameterError(
                    f"precision: got {short_int(p)}; it must be at most {MAX_PRECISION}"
                )
        if sigma2 > MAX_SIGMA2:  # before the radius is bracketed: its bits follow sigma^2's
            raise ResourceLimitError(
                f"sigma^2: got {short_fraction(sigma2)}; at most 2^{MAX_SIGMA2.bit_length() - 1} "
                f"(a table over a radius beyond 2^64 fits no memory)"
            )
        largest = largest_radius(sigma2, p)
        if largest < 1:
            raise ParameterError(
                f"sigma^2: got {short_fraction(sigma2)}; at precision P = {p} every weight but "
                f"w(0) is 0, so the law is a point mass (no noise); use a larger sigma or precision"
            )
        r = largest if radius is None else check_positive_int(radius, "radius")
        if r > largest:
            raise ParameterError(
                f"radius: got R = {short_int(r)}; at precision P = {p} the weight floor(2^P "
                f"exp(-R^2/(2 sigma^2))) is 0 beyond R = {largest}; raise the precision or lower R"
            )
        self._kind = "fixed"
        self._sigma2: Fraction | None = sigma2
        self._base: Fraction | None = None
        self._setup(fixed_precision_weights(sigma2, r, p))

    @classmethod
    def with_base(cls, base: object, radius: object) -> DiscreteGaussian:
        """The exact discrete Gaussian ``Pr[z] ∝ alpha^(z^2)`` on ``[-R, R]``, ``alpha`` rational.

        Its ``sigma^2 = 1/(2 ln(1/alpha))``; ``w(0) = b^(R^2)`` has ``R^2 log2 b``
        bits, so it serves small ``sigma`` and the exact checker.

        Raises:
            ParameterError: ``alpha`` not in ``(0, 1)`` or ``R < 1``.
        """
        alpha = exact_fraction(base, "base")
        r = check_positive_int(radius, "radius")
        self = cls.__new__(cls)
        self._kind = "base"
        self._sigma2 = None
        self._base = alpha
        self._setup(rational_base_weights(alpha.numerator, alpha.denominator, r))
        return self

    def _setup(self, weights: Sequence[int]) -> None:
        """Keep the CDF: half prefix sums in numpy when ``W < 2^63``, else the whole CDF."""
        r = self._radius = len(weights) - 1
        self._weights = weights
        self._prefix: Any = None
        self._cdf: list[int] | None = None
        if isinstance(weights, array):
            prefix = np.cumsum(np.frombuffer(weights, dtype=np.uint64), dtype=np.uint64)
            self._total: int = 2 * int(prefix[-1]) - int(weights[0])
            self._bulk = self._total < 1 << 63
            if self._bulk:
                self._prefix = prefix
                return
        # C(z) for z = -R..R, as Python ints: searched with bisect (C code) in batches.
        running, cdf = 0, []
        for z in range(-r, r + 1):
            running += int(weights[abs(z)])
            cdf.append(running)
        self._cdf, self._total, self._bulk = cdf, running, False

    # -- the law ---------------------------------------------------------------------------------

    @property
    def radius(self) -> int:
        """``R``: the support is ``[-R, R]``."""
        return self._radius

    @property
    def d(self) -> int:
        """``W``, the total weight: each sample draws one ``u`` uniform in ``[1, W]``."""
        return self._total

    @property
    def kind(self) -> str:
        """``"base"`` (exact ``alpha^(z^2)``) or ``"fixed"`` (fixed-precision weights)."""
        return self._kind

    @property
    def sigma2(self) -> Fraction | None:
        """The ideal ``sigma^2`` of the fixed-precision law (``None`` for a rational base)."""
        return self._sigma2

    @property
    def base(self) -> Fraction | None:
        """``alpha`` of the exact law (``None`` for the fixed-precision law)."""
        return self._base

    def weight(self, z: int) -> int:
        """The integer weight ``w(|z|)`` (0 outside ``[-R, R]``)."""
        return int(self._weights[abs(z)]) if abs(z) <= self._radius else 0

    def pmf(self) -> dict[int, Fraction]:
        """The exact law ``{z: w(|z|)/W}``."""
        total = self._total
        return {z: Fraction(self.weight(z), total) for z in range(-self._radius, self._radius + 1)}

    @property
    def max_oracle_calls(self) -> int:
        """One draw ``uniform(W)`` per sample, whatever it is."""
        return 1

    @property
    def max_comparisons(self) -> int:
        """``ceil(log2(2R + 1))``: the binary search over ``[-R, R]``."""
        return (2 * self._radius).bit_length()

    @property
    def table_bytes(self) -> int:
        """Memory of the weight and CDF tables, in bytes (about)."""
        if self._bulk:
            return 16 * (self._radius + 1)
        return 3 * sum(int(w).bit_length() // 8 + 40 for w in self._weights)

    def cdf(self, z: int) -> int:
        """``W Pr[Z <= z]``, an integer, for any integer ``z``."""
        r, prefix = self._radius, self._prefix
        if z < -r:
            return 0
        if z >= r:
            return self._total
        if self._cdf is not None:
            return self._cdf[z + r]
        top = int(prefix[r])
        if z < 0:
            return top - int(prefix[-z - 1])
        return top - int(prefix[0]) + int(prefix[z])

    # -- sampling --------------------------------------------------------------------------------

    def __call__(self, u: int) -> int:
        """The sample as a function of the draw: the least ``z`` with ``cdf(z) >= u``.

        Raises:
            ParameterError: ``u`` outside ``[1, W]``.
        """
        return self._search(check_draw(u, self._total))

    def _search(self, u: Any) -> int:
        # BV's binary search over z + R in [0, 2R]; it only compares u (symbolic draws work).
        r, cdf = self._radius, self.cdf
        return bisect_cdf(lambda i: cdf(i - r), 2 * r, u) - r

    def sample(self, rng: RandomSource | None = None) -> int:
        """One sample: one oracle call ``uniform(W)`` and a binary search."""
        return self._search(draw(rng or default_source(), self._total))

    def sample_many(self, count: int, rng: RandomSource | None = None) -> list[int]:
        """``count`` samples from ``count`` draws taken in one batch (same values as one by one)."""
        count = check_positive_int(count, "count") if count else 0
        # Each sample is a Python int in a list (and a draw before it): refused before drawing.
        require_memory(count * 64, "the discrete Gaussian's samples", f"count = {short_int(count)}")
        values = draws(rng or default_source(), self._total, count)
        if not values or not all(type(u) is int for u in values):
            return [self._search(u) for u in values]  # symbolic draws: compared one by one
        if self._cdf is not None:
            cdf, low = self._cdf, -self._radius
            return [bisect_left(cdf, u) + low for u in values]
        u = np.array(values, dtype=np.uint64)
        prefix = self._prefix
        top = prefix[-1]
        negative_total = top - prefix[0]
        positive = u > negative_total
        # z >= 0: least k with prefix[k] >= u - W_neg; z < 0: -(count of prefix <= top - u).
        up = np.searchsorted(prefix, np.where(positive, u - negative_total, 1), side="left")
        down = np.searchsorted(
            prefix, np.where(positive, 0, top - np.minimum(u, top)), side="right"
        )
        return np.where(positive, up.astype(np.int64), -down.astype(np.int64)).tolist()  # type: ignore[no-any-return]

    def add(self, values: Sequence[int], rng: RandomSource | None = None) -> list[int]:
        """``x + Z`` for each integer ``x``, with independent samples in order."""
        xs = [check_int(x, f"values[{i}]") for i, x in enumerate(values)]  # no float, no text
        noise = self.sample_many(len(xs), rng) if xs else []
        return [x + z for x, z in zip(xs, noise, strict=True)]

    # -- privacy of what is sampled --------------------------------------------------------------

    def hockey_stick(self, exp_epsilon: object, sensitivity: object = 1) -> Fraction:
        """The exact least ``delta`` with ``Pr[x + Z in S] <= e^eps Pr[x' + Z in S] + delta``.

        For every ``S`` and integers ``|x - x'| <= Delta``: the hockey-stick divergence
        ``sum_o max(0, p(o) - e^eps p(o - Delta))`` of this law and its shift
        (symmetric, so either order), at the rational ``exp_epsilon``.  The
        largest shift is the worst: the divergence grows with ``Delta``.
        O(R) integer operations.
        """
        e = exact_fraction(exp_epsilon, "exp_epsilon")
        if e < 1:
            raise ParameterError(f"exp_epsilon: got {short_fraction(e)}; e^eps is at least 1")
        shift = check_positive_int(sensitivity, "sensitivity")
        num, den = e.numerator, e.denominator
        r, weight = self._radius, self.weight
        excess = 0
        for o in range(-r, r + shift + 1):
            gap = den * weight(o) - num * weight(o - shift)
            if gap > 0:
                excess += gap
        return Fraction(excess, den * self._total)

    def delta(self, epsilon: object, sensitivity: object = 1) -> Fraction:
        """A certified ``delta`` at ``epsilon``: :meth:`hockey_stick` at a rational ``<= e^eps``."""
        eps = exact_fraction(epsilon, "epsilon")
        if eps < 0:
            raise ParameterError(f"epsilon: got {short_fraction(eps)}; it must be >= 0")
        return self.hockey_stick(max(Fraction(1), exp_bounds(eps, 96)[0]), sensitivity)

    def ideal_rho(self, sensitivity: object = 1) -> Fraction:
        """``Delta^2/(2 sigma^2)`` of the ideal law.

        For a rational base it is ``Delta^2 ln(1/alpha)``, rounded up to a rational.
        """
        shift = check_positive_int(sensitivity, "sensitivity")
        if self._sigma2 is not None:
            return Fraction(shift * shift) / (2 * self._sigma2)
        assert self._base is not None
        return shift * shift * ln_bounds(1 / self._base, 96)[1]

    def zcdp(self, sensitivity: object = 1, label: str = "discrete Gaussian") -> Guarantee:
        """``delta0``-approximate ``rho'``-zCDP at integer orders for shifts up to ``Delta``.

        ``rho' = Delta^2/(2 sigma^2) + 1/w(T)`` (no ``1/w(T)`` for the exact law),
        conditioned on the output lying in ``S = [x - T + Delta, x + T]`` (and its
        mirror for ``x'``), whose complement has mass ``delta0``.  ``T`` is the
        largest radius with ``1/w(T) <= rho / 2^ZCDP_GUARD`` (all of ``R`` for the
        exact law).  Proof: proofs_notes/discrete_gaussian.md.

        Raises:
            ParameterError: ``Delta >= R`` (no common support to condition on).
        """
        return self.zcdp_vector(sensitivity, 1, label)

    def zcdp_vector(
        self, sensitivity: object, dimension: object, label: str = "discrete Gaussian vector"
    ) -> Guarantee:
        """Independent copies on ``d`` integer coordinates whose shift has l2 norm ``<= Delta``.

        ``delta0``-approximate ``rho'``-zCDP at integer orders with
        ``rho' = Delta^2/(2 sigma^2) + d/w(T)`` (no ``d/w(T)`` for the exact law) and
        ``delta0 = d`` times the mass outside ``[-T + Delta, T]``: coordinate ``i``
        with shift ``s_i`` satisfies claim 3 of the proof note with ``s_i^2`` in place
        of ``Delta^2`` and the same ``T``, on a window of mass at least that; the
        coordinates' divergences add and their windows' masses multiply (BS16 Lemma
        8.3), and ``sum s_i^2 <= Delta^2``.  ``T`` is the largest radius with
        ``d/w(T) <= rho / 2^ZCDP_GUARD``.  Paper: CKS20 Thm 14 (the multivariate
        discrete Gaussian), for this law; proofs_notes/plan.md.

        Raises:
            ParameterError: ``Delta >= R``, or ``d < 1``.
        """
        shift = check_positive_int(sensitivity, "sensitivity")
        d = check_positive_int(dimension, "dimension")
        if shift >= self._radius:
            raise ParameterError(
                f"sensitivity: got {short_int(shift)}; it must be below the radius "
                f"R = {self._radius}"
            )
        rho = self.ideal_rho(shift)
        t, extra = self._radius, Fraction(0)
        if self._kind == "fixed":
            floor_weight = rho / (d << ZCDP_GUARD)
            need = -(-floor_weight.denominator // floor_weight.numerator)
            t = least_such_that(lambda s: s > self._radius or self.weight(s) < need, 0) - 1
            if t < shift:
                t = self._radius
            extra = Fraction(d, self.weight(t))
        outside = self.cdf(-t + shift - 1) + (self._total - self.cdf(t))
        delta = min(Fraction(1), Fraction(d * outside, self._total))
        return Guarantee.zcdp(rho + extra, label, delta=delta, integer_orders=True)

    # -- accuracy --------------------------------------------------------------------------------

    def moment(self, p: object) -> Fraction:
        """``E |Z|^p``, exactly from the table (``p >= 1``)."""
        q = check_positive_int(p, "p")
        total = sum(self.weight(z) * z**q for z in range(1, self._radius + 1))
        return Fraction(2 * total, self._total)

    def accuracy(self, beta: object) -> int:
        """The least ``a`` with ``Pr[|Z| > a] <= beta``, exactly from the table.

        Raises:
            ParameterError: ``beta`` outside ``(0, 1)``.
        """
        b = probability(beta, "beta")
        return least_such_that(lambda a: self.tail_within(a, b), 0)

    def tail_within(self, a: int, beta: Fraction) -> bool:
        """Whether ``Pr[|Z| > a] <= beta``: ``accuracy(beta) <= a`` from one look at the table
        (the tail falls in ``a``), for a caller that only compares the accuracy."""
        if a < 0:
            return False
        # Pr[|Z| > a] = 2 (W - cdf(a)) / W, falling in a and 0 at a = R.
        total = self._total
        return a >= self._radius or 2 * (total - self.cdf(a)) <= beta * total

    def __repr__(self) -> str:
        if self._base is not None:
            base = short_fraction(self._base)
            return f"DiscreteGaussian.with_base({base}, radius={self._radius})"
        assert self._sigma2 is not None
        return f"DiscreteGaussian(sigma^2={short_fraction(self._sigma2)}, radius={self._radius})"


def _default_precision(sigma2: Fraction) -> int:
    """The default ``P``: 128 up to ``sigma = 2^14``, else the most (up to 48) with ``W < 2^63``.

    Small tables afford 128-bit weights (Python ints), which keep the zCDP
    statement's ``1/w(T)`` far below ``rho`` for any sensitivity; large ones
    are kept in numpy (8 bytes a weight): ``W <= 2^P (1 + sigma sqrt(2 pi))``
    and ``sqrt(2 pi) < 2.51``.
    """
    if sigma2 <= HIGH_PRECISION_SIGMA**2:
        return HIGH_PRECISION
    sigma_up = isqrt(sigma2.numerator // sigma2.denominator + 1) + 1
    spread = (251 * sigma_up) // 100 + 2
    return max(1, min(48, 62 - spread.bit_length()))
