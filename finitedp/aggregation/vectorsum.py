"""Sums of vectors on public grids with per-coordinate noise: thesis Algs 15 and 16, exactly.

Paper: Lebeda thesis Ch. 4 (Lebeda & Pagh, TPDP 2022): Alg 15 (Elliptical
Gaussian, Lemma 4.6, 4.7, 4.8, Thm 4.1) and Alg 16 (Parallelotope Laplace,
Lemma 4.9, 4.10, 4.11, Thm 4.2).

Each of ``n`` rows (``n`` public) is a vector whose coordinate ``i`` lies on
the public grid ``lower_i + k step_i``, ``k = 0..D_i``; neighbours *replace one
row*, so coordinate ``i``'s sum moves by at most ``Delta_i = upper_i - lower_i``
(``D_i`` grid units).  The sums are exact integers in grid units, and so is the
noise:

* :class:`ParallelotopeLaplace` (Alg 16): coordinate ``i`` gets
  :class:`~finitedp.counting.mixedgeometric.MixedGeometric` noise with budget
  ``eps b_i`` for ``D_i`` units, ``sum b_i = 1`` exactly.  Pure ``eps``-DP for
  replacing a row (per coordinate certified, composed by the accountant).
* :class:`EllipticalGaussian` (Alg 15): coordinate ``i`` gets the discrete
  Gaussian with ``sigma_i^2 = D_i^2/(2 rho' b_i^2)`` (rational), ``sum b_i^2 <= 1``
  exactly, ``rho' = rho (1 - 2^-20)``; the guarantee is the accountant's sum of
  what each table states (approximate zCDP at integer orders,
  ``Delta_i``-shifts), at most ``rho``.

The split ``b`` comes from :func:`~.split.budget_split` (optimal by default,
with its certified distance to Lemma 4.8's / 4.11's optimum).  Proof notes:
proofs_notes/vector_sums.md.

>>> from finitedp.selection import Grid
>>> m = ParallelotopeLaplace([Grid(-2, 2), Grid(0, 1)], n=3, epsilon=1, p=1)
>>> m.split.b, m.guarantee.epsilon, m.ideal_moment()
((Fraction(2, 3), Fraction(1, 3)), Fraction(1, 1), Fraction(9, 1))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..accounting import Accountant, Guarantee
from ..counting.gaussiannoise import DEFAULT_LAW, GaussianNoise, check_law, gaussian_noise
from ..counting.mixedgeometric import MAX_MOMENT, MixedGeometric
from ..errors import ParameterError
from ..jsonvalues import json_int, rational
from ..oracle import RandomSource, default_source
from ..params import (
    check_positive_int,
    exact_fraction,
    positive_fraction,
    probability,
    short_fraction,
    short_int,
)
from ..selection.grid import Grid
from .split import BudgetSplit, budget_split, exact_sum

__all__ = [
    "NEIGHBOURS",
    "VECTOR_RELEASE_VERSION",
    "EllipticalGaussian",
    "ParallelotopeLaplace",
    "VectorSumRelease",
]

#: The neighbour relation of every guarantee here.
NEIGHBOURS = "replace one row (a whole vector); n is public"

#: Version of :meth:`VectorSumRelease.to_json_dict`'s layout.
VECTOR_RELEASE_VERSION = 1

#: Alg 15 aims at ``rho (1 - 2^-RHO_GUARD_BITS)``, leaving room for the tables' ``1/w(T)``.
RHO_GUARD_BITS = 20


@dataclass(frozen=True)
class VectorSumRelease:
    """A released vector sum: exact rational estimates on the grids, and the guarantee."""

    mechanism: str
    n: int
    estimates: tuple[Fraction, ...]
    guarantee: Guarantee
    neighbours: str = NEIGHBOURS
    version: int = VECTOR_RELEASE_VERSION

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready: rationals as ``"a/b"`` strings, integers above ``2^53`` as strings."""
        return {
            "version": self.version,
            "type": "vector-sum",
            "mechanism": self.mechanism,
            "neighbours": self.neighbours,
            "n": json_int(self.n),
            "estimates": [rational(e) for e in self.estimates],
            "guarantee": self.guarantee.to_json_dict(),
        }


class _VectorSum:
    """What Algs 15 and 16 share: grids, ``n``, the split, the sums, the release."""

    name = ""

    def __init__(self, grids: Sequence[Grid], n: object, split: BudgetSplit) -> None:
        self.grids = tuple(grids)
        self.n = check_positive_int(n, "n")
        self.units = tuple(g.size - 1 for g in self.grids)
        self.split = split
        self.accountant = Accountant(NEIGHBOURS)
        # Coordinates with the same grid units and the same share get the same noise.
        ids: dict[tuple[int, int], int] = {}
        self._kind = [
            ids.setdefault(key, len(ids)) for key in zip(self.units, split.groups, strict=True)
        ]
        self._count = [0] * len(ids)
        self._first = [0] * len(ids)
        for i, k in reversed(list(enumerate(self._kind))):
            self._count[k] += 1
            self._first[k] = i

    @staticmethod
    def _check_grids(grids: Sequence[Grid]) -> list[Fraction]:
        if not isinstance(grids, Sequence) or isinstance(grids, (str, bytes)):
            raise ParameterError(
                f"grids: got {type(grids).__name__}; give a list with one Grid per coordinate"
            )
        if not grids:
            raise ParameterError("grids: got none; give one Grid per coordinate")
        for i, g in enumerate(grids):
            if not isinstance(g, Grid):
                raise ParameterError(f"grids[{i}]: got {type(g).__name__}; use a Grid")
            if g.size < 2:
                raise ParameterError(
                    f"grids[{i}]: a one-point grid has sensitivity 0 (no information); drop it"
                )
        return [g.upper - g.lower for g in grids]

    @property
    def d(self) -> int:
        """The number of coordinates."""
        return len(self.grids)

    @property
    def guarantee(self) -> Guarantee:
        """The composed guarantee of all coordinates (one accountant)."""
        return self.accountant.total()

    def index_sums(self, rows: Iterable[Sequence[object]], clamp: bool = False) -> list[int]:
        """Each coordinate's sum in grid units, every value checked (row and column named).

        With ``clamp``, a value beyond its grid's bounds is moved to the nearer bound
        first (per row, so a replaced row still moves each sum by at most
        ``Delta_i``); a value off the grid is refused either way.

        Raises:
            ParameterError: a row of the wrong length, a value off its grid or out of
                bounds, or a number of rows other than ``n``.
        """
        sums = [0] * self.d
        count = 0
        for r, row in enumerate(rows):
            if len(row) != self.d:
                raise ParameterError(f"rows[{r}]: got {len(row)} values; need d = {self.d}")
            for i, (grid, value) in enumerate(zip(self.grids, row, strict=True)):
                where = f"rows[{r}][{i}]"
                if clamp:
                    value = min(max(exact_fraction(value, where), grid.lower), grid.upper)
                sums[i] += grid.index(value, where)
            count += 1
        if count != self.n:
            raise ParameterError(f"rows: got {count}; n = {self.n} is public")
        return sums

    def release(
        self,
        rows: Iterable[Sequence[object]],
        rng: RandomSource | None = None,
        *,
        clamp: bool = False,
    ) -> VectorSumRelease:
        """The noisy sum of ``rows`` (exactly ``n`` vectors on the grids; ``clamp``: see
        :meth:`index_sums`)."""
        return self.release_sums(self.index_sums(rows, clamp), rng)

    def release_sums(
        self, sums: Sequence[int], rng: RandomSource | None = None
    ) -> VectorSumRelease:
        """The release from the sums in grid units (``0 <= sums[i] <= n D_i``).

        Raises:
            ParameterError: a sum out of its range (nothing is drawn then).
        """
        if len(sums) != self.d:
            raise ParameterError(f"sums: got {len(sums)}; need d = {self.d}")
        for i, (s, units) in enumerate(zip(sums, self.units, strict=True)):
            if type(s) is not int or not 0 <= s <= self.n * units:
                raise ParameterError(
                    f"sums[{i}]: got {s!r}; it must be an integer in "
                    f"[0, {short_int(self.n * units)}]"
                )
        noisy = self._noisy(list(sums), rng or default_source())
        estimates = tuple(
            self.n * g.lower + g.step * v for g, v in zip(self.grids, noisy, strict=True)
        )
        return VectorSumRelease(self.name, self.n, estimates, self.guarantee)

    def _noisy(self, sums: list[int], rng: RandomSource) -> list[int]:
        raise NotImplementedError  # pragma: no cover

    def _noise_moment(self, i: int, p: int) -> Fraction:
        raise NotImplementedError  # pragma: no cover

    def noise_within(self, beta: object) -> tuple[Fraction, ...] | None:
        """Each coordinate's ``a_i`` in the data's units with every ``|noise_i| <= a_i`` at
        once with probability ``>= 1 - beta`` (``beta/d`` each, a union bound), from the
        noise's exact tails; ``None`` where ``beta`` is too small for them."""
        share = probability(beta, "beta") / self.d
        out = []
        for i, g in enumerate(self.grids):
            try:
                units = self._noise_within(i, share)
            except ParameterError:
                return None
            if units is None:
                return None
            out.append(g.step * units)
        return tuple(out)

    def _noise_within(self, i: int, beta: Fraction) -> int | None:
        raise NotImplementedError  # pragma: no cover

    def noise_variances(self) -> tuple[Fraction, ...]:
        """Each coordinate's ``E[eta_i^2]`` in the data's units, exactly (as :meth:`moment`:
        the worst case over data, which moves it only through Alg 16's ``2^-64`` mixing)."""
        return tuple(
            g.step**2 * self._noise_moment(self._first[k], 2)
            for g, k in zip(self.grids, self._kind, strict=True)
        )

    def moment(self, p: object = None) -> Fraction:
        """``E ||eta||_p^p`` of the implemented noise in the data's units, exactly.

        The worst case over data (it depends on the data only through the mixing
        of Alg 16's noise with the uniform, a ``2^-64`` share).  Default ``p``:
        the split's.  For Alg 15 with the convolved law and an odd ``p``, a certified
        upper bound where a table has levels (``ConvolvedGaussian.moment``).
        """
        q = self.split.p if p is None else check_positive_int(p, "p")
        if q > MAX_MOMENT:
            raise ParameterError(
                f"p: got {short_int(q)}; moments up to p = {MAX_MOMENT} are computed"
            )
        steps: list[dict[Fraction, int]] = [{} for _ in self._count]
        for g, k in zip(self.grids, self._kind, strict=True):
            steps[k][g.step] = steps[k].get(g.step, 0) + 1
        return exact_sum(
            [
                exact_sum([c * step**q for step, c in by_step.items()])
                * self._noise_moment(self._first[k], q)
                for k, by_step in enumerate(steps)
            ]
        )


class ParallelotopeLaplace(_VectorSum):
    """Alg 16 on grids: per-coordinate geometric noise, budget ``eps b_i``, ``sum b_i = 1``.

    Paper: Lebeda thesis Alg 16, Lemma 4.9 (privacy), 4.10 (error), 4.11
    (optimal ``b``), Thm 4.2; BV Lemma 3.2 (the mixing that keeps it pure).
    Pure ``eps``-DP when one row (vector) is replaced, ``n`` public.

    Args:
        grids: one :class:`~finitedp.selection.Grid` per coordinate.
        n: the public number of rows.
        epsilon: the budget.
        p: the error moment ``E ||eta||_p^p`` the split minimises (default 1).
        exponent: ``b_i ∝ Delta_i^exponent``; default ``p/(p+1)`` (Lemma 4.11).

    Raises:
        ParameterError: a parameter out of range; ResourceLimitError: a noise
            table above the memory limit.
    """

    name = "parallelotope-laplace"

    def __init__(
        self,
        grids: Sequence[Grid],
        n: object,
        epsilon: object,
        *,
        p: object = 1,
        exponent: object = None,
    ) -> None:
        deltas = self._check_grids(grids)
        eps = positive_fraction(epsilon, "epsilon")
        super().__init__(grids, n, budget_split(deltas, "l1", p=p, exponent=exponent))
        self.epsilon = eps
        self._samplers: list[MixedGeometric] = []
        for first, count in zip(self._first, self._count, strict=True):
            units, b = self.units[first], self.split.b[first]
            # MixedGeometric certifies its own eps b_i (privacy_holds) when it is built.
            try:
                self._samplers.append(MixedGeometric(eps * b, units, 0, self.n * units))
            except ParameterError as error:  # name the caller's grid and epsilon, not ours
                raise type(error)(
                    f"epsilon: got {short_fraction(eps)}; the noise for a sensitivity of "
                    f"{short_int(units)} grid units (upper - lower)/step cannot be built: "
                    f"use a coarser step, narrower bounds or a larger epsilon ({error})"
                ) from None
            self.accountant.add(
                Guarantee.pure(eps * b, f"geometric noise, sensitivity {units} grid units"), count
            )

    def epsilon_for(self, delta: object) -> Fraction:
        """``eps``: the release is pure ``eps``-DP, so ``(eps, delta)``-DP for every ``delta``."""
        return self.accountant.epsilon_for(delta)

    def sampler(self, i: int) -> MixedGeometric:
        """The noise of coordinate ``i``."""
        return self._samplers[self._kind[i]]

    def _noisy(self, sums: list[int], rng: RandomSource) -> list[int]:
        return [self.sampler(i).sample(s, rng) for i, s in enumerate(sums)]

    def _noise_moment(self, i: int, p: int) -> Fraction:
        return self.sampler(i).moment(p)

    def _noise_within(self, i: int, beta: Fraction) -> int | None:
        return self.sampler(i).accuracy(beta)

    def ideal_moment(self) -> Fraction:
        """Lemma 4.10 for this ``b``: ``Gamma(p + 1)/eps^p sum (Delta_i/b_i)^p`` (exact: ``p!``)."""
        p = self.split.p
        factorial = 1
        for k in range(2, p + 1):
            factorial *= k
        return factorial * self.split.objective / self.epsilon**p


class EllipticalGaussian(_VectorSum):
    """Alg 15 on grids: per-coordinate discrete Gaussian, ``sigma_i = Delta_i/(b_i sqrt(2 rho))``.

    Paper: Lebeda thesis Alg 15, Lemma 4.6 (privacy), 4.7 (error), 4.8
    (optimal ``b``), Thm 4.1; CKS20 (the discrete Gaussian).  Approximate
    zCDP at integer orders (what the truncated tables state, composed) when one
    row (vector) is replaced, ``n`` public; :meth:`epsilon_for` converts it.

    Args:
        grids: one :class:`~finitedp.selection.Grid` per coordinate.
        n: the public number of rows.
        rho: the zCDP budget.
        p: the error moment the split minimises (default 2).
        exponent: ``b_i ∝ Delta_i^exponent``; default ``p/(p+2)`` (Lemma 4.8).
        noise_law: the discrete Gaussian's law (:mod:`~finitedp.counting.gaussiannoise`):
            ``"convolved"`` (default) or ``"table"`` (the vectors made before issue 41).

    Raises:
        ParameterError: a parameter out of range (``rho`` so large that a noise
            table is narrower than a sensitivity); ResourceLimitError: a table
            above the memory limit.
    """

    name = "elliptical-gaussian"

    def __init__(
        self,
        grids: Sequence[Grid],
        n: object,
        rho: object,
        *,
        p: object = 2,
        exponent: object = None,
        noise_law: object = DEFAULT_LAW,
    ) -> None:
        deltas = self._check_grids(grids)
        r = positive_fraction(rho, "rho")
        self.noise_law = check_law(noise_law)
        super().__init__(grids, n, budget_split(deltas, "l2", p=p, exponent=exponent))
        self.rho = r
        target = r * (1 - Fraction(1, 1 << RHO_GUARD_BITS))
        self._tables: dict[Fraction, GaussianNoise] = {}
        self._variances: list[Fraction] = []
        for first in self._first:
            units, b = self.units[first], self.split.b[first]
            self._variances.append(Fraction(units * units) / (2 * target * b * b))
        # The widest noise first: a table beyond the limits is refused before any other is built.
        widest = max(range(len(self._first)), key=lambda k: self._variances[k])
        self._noise_for(self._variances[widest], self.units[self._first[widest]])
        for k, count in enumerate(self._count):
            units, sigma2 = self.units[self._first[k]], self._variances[k]
            table = self._noise_for(sigma2, units)
            if units >= table.radius:
                raise ParameterError(
                    f"rho: got {short_fraction(r)}; the noise for sensitivity {units} grid units "
                    f"is truncated at R = {table.radius} <= {units}; use a smaller rho"
                )
            self.accountant.add(
                table.zcdp(units, f"discrete Gaussian, sensitivity {units} grid units"), count
            )

    def _noise_for(self, sigma2: Fraction, units: int) -> GaussianNoise:
        """The law of variance ``sigma2`` (built once), its refusal naming ``rho``."""
        table = self._tables.get(sigma2)
        if table is None:
            try:
                table = gaussian_noise(sigma2, self.noise_law)
            except ParameterError as error:
                # Too little noise (a point mass: rho too large) or too much (a table
                # beyond memory: the grid too fine for its bounds, or rho too small).
                advice = (
                    "use a smaller rho"
                    if sigma2 < 1
                    else "use a coarser step, narrower bounds or a larger rho"
                )
                raise type(error)(
                    f"rho: got {short_fraction(self.rho)}; the noise for a sensitivity of "
                    f"{short_int(units)} grid units cannot be tabulated: {advice} ({error})"
                ) from None
            self._tables[sigma2] = table
        return table

    def table(self, i: int) -> GaussianNoise:
        """The noise of coordinate ``i``."""
        return self._tables[self._variances[self._kind[i]]]

    def epsilon_for(self, delta: object) -> Fraction:
        """The certified ``epsilon`` at ``delta`` (the accountant's CKS20 conversion)."""
        return self.accountant.epsilon_for(delta)

    def _noisy(self, sums: list[int], rng: RandomSource) -> list[int]:
        out = list(sums)
        by_table: dict[Fraction, list[int]] = {}
        for i, k in enumerate(self._kind):
            by_table.setdefault(self._variances[k], []).append(i)
        for v in sorted(by_table):  # a fixed order of tables: the draws replay
            idx = by_table[v]
            noise = self._tables[v].sample_many(len(idx), rng)
            for i, z in zip(idx, noise, strict=True):
                out[i] += z
        return out

    def _noise_moment(self, i: int, p: int) -> Fraction:
        return self.table(i).moment(p)

    def _noise_within(self, i: int, beta: Fraction) -> int | None:
        return self.table(i).accuracy(beta)

    def ideal_moment(self) -> Fraction | None:
        """Lemma 4.7 for this ``b`` at ``rho``: ``Gamma((p+1)/2)/(rho^(p/2) sqrt(pi)) F(b)``.

        Exact for even ``p`` (``Gamma((p+1)/2)/sqrt(pi) = (p-1)!!/2^(p/2)``); ``None``
        for odd ``p`` (the constant is irrational).
        """
        p = self.split.p
        if p % 2:
            return None
        double_factorial = 1
        for k in range(p - 1, 0, -2):
            double_factorial *= k
        half = p // 2
        return Fraction(double_factorial, 2**half) * self.split.objective / self.rho**half
