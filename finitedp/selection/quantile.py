"""Private quantiles of values on a public grid: the exponential mechanism and binary search.

Paper: Smith 2011, *Privacy-preserving statistical estimation with optimal
convergence rates* (the exponential mechanism over the intervals between
sorted data points); Huang, Liang & Yi 2021, *Instance-optimal mean
estimation under differential privacy* (binary search with noisy counts);
Lebeda thesis Alg 17 (PRIVQUANTILE in PLAN).

Values lie on the public grid ``lower, lower + step, ..., upper`` (``N`` points);
``n`` is public and neighbours replace one value.  For a grid point ``y`` with
``below = #{x < y}`` and ``upto = #{x <= y}``, ``y`` is an exact ``m``-th
quantile when ``below <= m <= upto`` (``m = floor(q n)``), and its *rank error*
is ``max(0, below - m, m - upto)``.  Replacing one value moves ``below`` and
``upto`` by at most 1, so the rank error has sensitivity 1.

* :class:`ExponentialQuantile`: utility ``-min(rank error, K)`` with weight
  ``beta^utility`` per grid point; points of equal utility between consecutive
  data values form one candidate, so at most ``4K + 6`` candidates, one draw.
  Pure DP with ratio ``beta^2``; ``Pr[rank error > t] <= N beta^(-(t+1))`` for
  ``t < K`` whatever the data.
* :class:`BinarySearchQuantile`: ``ceil(log2 N)`` steps, each a noisy count
  ``#{x <= mid}`` (clamped to a window of ``2L + 3`` around ``m``) from BV's
  GeoSample (ratio ``e^(eps_step)`` per unit change), all of them made whatever
  the answers; pure DP, ratio ``(b/a)^steps``.

>>> q = ExponentialQuantile(0, 10, quantile="1/2", n=4, base=2)
>>> q.candidates([1, 2, 2, 9])[:3]             # (first point, points, rank error)
[(0, 1, 2), (1, 1, 1), (2, 1, 0)]
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Literal

import numpy as np

from ..accounting import Guarantee
from ..counting.geosample import GeoSample
from ..errors import ParameterError, ResourceLimitError
from ..exactmath import exp_bounds, least_such_that, min_power_at_least, simplest_between
from ..oracle import RandomSource, default_source, draw
from ..params import (
    check_positive_int,
    positive_fraction,
    probability,
    short_fraction,
    short_int,
)
from ..ratio import GeometricRatio
from ..resources import describe_bytes, require_bits
from ..statistics import GridCounts
from .exponential import ExponentialMechanism, fixed_weights, invert, table_ratio
from .grid import Grid

__all__ = ["BinarySearchQuantile", "ExponentialQuantile", "Grid", "GridQuantile"]

#: The exponential quantile clips rank errors at ``K`` with ``N beta^-K <= 2^-CLIP_BITS``.
CLIP_BITS = 64

#: The largest ``epsilon`` :meth:`ExponentialQuantile.from_epsilon` takes.
MAX_EPSILON = 128

#: The most weights an exponential quantile's clip ``K`` may ask for.
MAX_CLIP = 1 << 20

#: The binary search refuses to read more randomness than this (its steps times ``bits(d)/8``).
MAX_DRAWN_BYTES = 256 << 20


def bisect_counts(
    data: GridCounts, size: int, steps: int, reaches: Callable[[int, int], bool]
) -> int:
    """The binary search of the noisy-count quantiles: ``steps`` steps over ``[0, size)``.

    Step ``s`` asks ``reaches(s, #{x <= mid})`` whether the noisy count reaches the
    target rank; it is asked at every step, also once the interval is a single point,
    so each step makes its draws whatever the answers.
    """
    low, high = 0, size - 1
    for step in range(steps):
        mid = (low + high) >> 1
        answer = reaches(step, data.count_at_most(mid))
        if low < high:
            if answer:
                high = mid
            else:
                low = mid + 1
    return low


def _on_grid(
    lower: object, upper: object, step: object, quantile: object, n: object
) -> tuple[Grid, int, Fraction, int]:
    """The grid, the public ``n``, ``q`` and the target rank ``m = floor(q n)``, checked."""
    grid = Grid(lower, upper, step)
    if grid.size > 1 << 63:  # the values' indices and the counts are int64
        raise ParameterError(
            f"step: got {short_fraction(grid.step)}; the grid [{short_fraction(grid.lower)}, "
            f"{short_fraction(grid.upper)}] then has about 2^{grid.size.bit_length() - 1} "
            "points, and a quantile's grid has at most 2^63: use a coarser step"
        )
    size = check_positive_int(n, "n")
    q = probability(quantile, "quantile", allow_zero=True, allow_one=True)
    return grid, size, q, (q * size).numerator // (q * size).denominator


class GridQuantile:
    """What the grid quantiles share: the grid, ``n``, and values checked against them."""

    grid: Grid
    n: int
    quantile: Fraction
    rank: int

    def release_counts(self, counts: GridCounts, rng: RandomSource | None = None) -> Fraction:
        """The private quantile of the values given as counts on the grid (their
        sufficient statistic: the release depends on the data only through them).

        Raises:
            ParameterError: not ``n`` values, or an index outside ``[0, N)``.
        """
        raise NotImplementedError

    def release_indices(
        self, indices: np.ndarray, rng: RandomSource | None = None, *, presorted: bool = False
    ) -> Fraction:
        """:meth:`release` for values given as grid indices (``int64``, any order; with
        ``presorted``, already sorted: checked in one pass, not sorted again).

        Raises:
            ParameterError: not ``n`` indices, or one outside ``[0, N)``.
        """
        data = np.asarray(indices, dtype=np.int64)
        ordered = presorted and bool(np.all(data[1:] >= data[:-1]))
        return self.release_counts(GridCounts.from_indices(data, presorted=ordered), rng)

    def release(self, values: Sequence[object], rng: RandomSource | None = None) -> Fraction:
        """The private quantile of ``n`` values on the grid (each checked), a grid point."""
        if len(values) != self.n:
            raise ParameterError(f"values: got {len(values)}; n = {self.n} is public")
        return self.release_indices(self.grid.indices(values), rng)

    def rank_error(self, beta: object) -> int:
        """``a`` with ``Pr[rank error > a] <= beta`` (each mechanism states its own)."""
        raise NotImplementedError

    def release_present(self, counts: GridCounts, rng: RandomSource | None = None) -> Fraction:
        """The ``q``-quantile of the values present (``--nulls drop``), target rank
        ``floor(q c)`` for their count ``c`` (never released): as private when a value is
        added, removed or replaced, since the rank error keeps sensitivity 1
        (``proofs_notes/missing_values.md``); the rank error is about the values present.

        Raises:
            ParameterError: more than ``n`` values, or an index outside ``[0, N)``.
        """
        if not 0 <= counts.n <= self.n:
            raise ParameterError(f"counts: got {counts.n} values; at most n = {self.n}")
        present = copy.copy(self)
        present.n, present.rank = counts.n, (self.quantile * counts.n).__floor__()
        return present.release_counts(counts, rng)

    def rank_error_below(self, beta: object, target: int) -> bool:
        """Whether :meth:`rank_error` is a number below ``target`` (``False`` where it
        refuses ``beta``): what a budget search asks of many candidate budgets.  A
        mechanism whose bound falls in ``a`` answers from one look instead of its search."""
        try:
            return self.rank_error(beta) < target
        except ParameterError:
            return False


class ExponentialQuantile(GridQuantile):
    """The exponential-mechanism quantile over grid intervals (Smith 2011): one draw.

    Paper: Smith 2011 (Section 3); Lebeda thesis Alg 17 (PRIVQUANTILE). Neighbours:
    ``n`` values, one replaced.

    Args:
        lower, upper, step: the public grid.
        quantile: ``q`` in ``[0, 1]``; the target rank is ``m = floor(q n)``.
        n: the public number of values.
        base: ``beta > 1``; the mechanism is pure DP with ``e^eps = beta^2``.
        clip: ``K``; by default the least with ``N beta^-K <= 2^-64``.
        weights: ``"exact"`` (``beta^-t`` as exact rationals: ``O(K log b)`` bits each)
            or ``"fixed"`` (``floor(2^P beta^-t)`` with ``P = 64 + bits(N) + 64``,
            :func:`~.exponential.fixed_weights`: ``e^eps`` is then the square of the
            table's largest step ratio, exactly, a hair above ``beta``).
    """

    def __init__(
        self,
        lower: object,
        upper: object,
        *,
        quantile: object,
        n: object,
        base: object,
        step: object = 1,
        clip: object = None,
        weights: Literal["exact", "fixed"] = "exact",
    ) -> None:
        self.grid, self.n, self.quantile, self.rank = _on_grid(lower, upper, step, quantile, n)
        self.mechanism = ExponentialMechanism(base, sensitivity=1)
        beta = self.mechanism.base
        default = min_power_at_least(beta, Fraction(self.grid.size << CLIP_BITS))
        self.clip = default if clip is None else check_positive_int(clip, "clip")
        if self.clip > MAX_CLIP:  # a weight per clipped error: refused before the table
            raise ResourceLimitError(
                f"base: got {short_fraction(beta)}; its clip K = {short_int(self.clip)} passes "
                f"2^{MAX_CLIP.bit_length() - 1} weights (e^eps = base^2 too close to 1): use a "
                f"larger epsilon or a coarser grid"
            )
        if weights not in ("exact", "fixed"):
            raise ParameterError(f"weights: got {weights!r}; use 'exact' or 'fixed'")
        self.fixed = weights == "fixed"
        self._precision = 0
        self._table: list[int] | None = None
        if self.fixed:
            # beta^K is about N 2^64 beta: w(K) keeps about 64 bits (ceil(beta) for large beta)
            top = -(-beta.numerator // beta.denominator)
            precision = 2 * CLIP_BITS + self.grid.size.bit_length() + top.bit_length()
            require_bits(
                precision,
                "the quantile's weight table",
                f"clip K = {self.clip}",
                copies=self.clip + 1,
            )
            self._precision = precision  # the table itself is built at its first use

    @property
    def table(self) -> list[int] | None:
        """The fixed-precision weights ``w(t) = floor(2^P beta^-t)``, ``t = 0..K`` (``None``
        for exact weights); built once, at the first draw or privacy statement."""
        if self.fixed and self._table is None:
            self._table = fixed_weights(self.mechanism.base, self.clip, self._precision)
        return self._table

    def _weight(self, t: int) -> int:
        """``w(t) = floor(2^P beta^-t)`` exactly (fixed weights), from the table if built."""
        if self._table is not None:
            return self._table[t]
        a, b = self.mechanism.base.denominator, self.mechanism.base.numerator
        return int((a**t << self._precision) // b**t)

    @property
    def privacy_ratio(self) -> Fraction:
        """``e^eps``: ``beta^2`` (exact weights), or the fixed table's ``(max w(t)/w(t+1))^2``.

        A neighbour moves each point's clipped error by at most 1, so each weight and
        the total by at most the largest step ratio ``r``: ``Pr/Pr' <= r^2``.
        """
        if self.table is None:
            return self.mechanism.privacy_ratio
        return table_ratio(self.table) ** 2

    def guarantee(self, label: str = "exponential quantile") -> Guarantee:
        """Pure DP at :attr:`privacy_ratio`; ``eps^2/8``-zCDP (bounded range: the
        log-ratio ``ln(w(t)/w(t')) + ln(W'/W)`` ranges over at most ``2 ln r``)."""
        return Guarantee.pure_ratio(self.privacy_ratio, label, bounded_range=True)

    def candidates(self, values: Sequence[object]) -> list[tuple[int, int, int]]:
        """``(first grid index, number of points, clipped rank error)`` in grid order."""
        if len(values) != self.n:
            raise ParameterError(f"values: got {len(values)}; n = {self.n} is public")
        data = GridCounts.from_indices(self.grid.indices(values))
        return self._candidates(data)

    def _candidates(self, data: GridCounts) -> list[tuple[int, int, int]]:
        n, m, k, size = self.n, self.rank, self.clip, self.grid.size

        def error(below: int, upto: int) -> int:
            return min(k, max(0, below - m, m - upto))

        out: list[tuple[int, int, int]] = []
        # Points y < x_(m-K+1) have upto <= m - K: rank error >= K, one clipped block.
        first_rank = max(0, m - k)  # data indices [first_rank, last_rank) are looked at
        last_rank = min(n, m + k)
        start = data.at_rank(first_rank) if first_rank < n else size
        if m - k >= 0 and start > 0:
            out.append((0, start, k))
        position = start if m - k >= 0 else 0
        i = first_rank
        while position < size:
            if i >= last_rank:  # y > x_(m+K): below >= m + K, the other clipped block
                out.append((position, size - position, error(i, i)))
                break
            value = data.at_rank(i)
            if position < value:  # the gap before the next data value
                out.append((position, value - position, error(i, i)))
            j = data.count_at_most(value)
            out.append((value, 1, error(i, j)))
            position, i = value + 1, j
        return out

    @classmethod
    def from_epsilon(
        cls,
        lower: object,
        upper: object,
        *,
        quantile: object,
        n: object,
        epsilon: object,
        step: object = 1,
        weights: Literal["exact", "fixed"] = "exact",
    ) -> ExponentialQuantile:
        """The quantile with the simplest base ``beta`` such that ``beta^2 <= e^eps``.

        ``beta`` is the simplest rational in ``[1 + (l - 1)(1 - 2^-16), l]`` for a
        certified lower bound ``l`` of ``e^(eps/2)``: pure ``eps'``-DP with
        ``eps (1 - 2^-16)``-ish ``<= eps' <= eps`` (:attr:`privacy_ratio` is exact).

        Raises:
            ParameterError: ``epsilon`` not a positive rational, or above 128.

        >>> ExponentialQuantile.from_epsilon(0, 10, quantile="1/2", n=4, epsilon=1).mechanism
        ExponentialMechanism(643/390, sensitivity=1)
        """
        eps = positive_fraction(epsilon, "epsilon")
        if eps > MAX_EPSILON:
            raise ParameterError(
                f"epsilon: got {short_fraction(eps)}; at most {MAX_EPSILON} (the quantile is "
                f"then exact with probability above 1 - N e^-64)"
            )
        low = exp_bounds(eps / 2, 64)[0]
        if low == 1:  # eps below about 2^-64: no base of 64 bits separates it from 1
            raise ResourceLimitError(f"epsilon: got {short_fraction(eps)}; its clip K passes 2^20")
        base = simplest_between(1 + (low - 1) * (1 - Fraction(1, 1 << 16)), low)
        try:
            return cls(lower, upper, quantile=quantile, n=n, base=base, step=step, weights=weights)
        except ParameterError as error:
            if not str(error).startswith("base: got "):
                raise
            raise type(error)(
                f"epsilon: got {short_fraction(eps)}, so base {str(error)[len('base: got ') :]}"
            ) from None

    def release_counts(self, counts: GridCounts, rng: RandomSource | None = None) -> Fraction:
        """:meth:`release` for values given as counts on the grid (checked)."""
        cands = self._candidates(counts.check(self.n, self.grid.size))
        source = rng or default_source()
        if self.table is None:
            index, offset = self.mechanism.sample(
                [-c[2] for c in cands], [c[1] for c in cands], source
            )
        else:
            table = self.table
            weights = [c[1] * table[c[2]] for c in cands]
            sizes = [c[1] for c in cands]
            index, offset = invert(weights, sizes, draw(source, sum(weights)))
        return self.grid.value(cands[index][0] + offset)

    def rank_error(self, beta: object) -> int:
        """The least ``t`` with ``Pr[rank error > t] <= beta`` for every dataset.

        The points of rank error above ``t`` weigh at most ``N beta^-(t+1)`` against
        the weight 1 of an exact quantile, so ``t`` is the least with that at most ``beta``.

        Raises:
            ParameterError: ``beta`` outside ``(0, 1)`` or below what the clip allows.
        """
        b = probability(beta, "beta")
        if not self.fixed:
            t = min_power_at_least(self.mechanism.base, Fraction(self.grid.size) / b) - 1
        else:  # N w(t + 1) <= beta w(0): the least such t (w(K + 1) taken as 0)
            size, top = self.grid.size, self._weight(0)
            t = least_such_that(
                lambda s: s >= self.clip or size * self._weight(s + 1) <= b * top, 0
            )
        if t >= self.clip:
            raise ParameterError(
                f"beta: got {short_fraction(b)}; below what the clip K = {self.clip} allows"
            )
        return max(0, t)

    def rank_error_below(self, beta: object, target: int) -> bool:
        """Whether :meth:`rank_error` is below ``target`` (``False`` where it refuses): with
        fixed weights one comparison at ``s = min(target, K) - 1``, not a bisection.

        The condition ``N w(s + 1) <= beta w(0)`` holds from the rank error on (the
        weights fall in ``s``), so the error is below ``target`` and the clip ``K``
        exactly when it holds at ``s``.
        """
        if not self.fixed:
            return super().rank_error_below(beta, target)
        b = probability(beta, "beta")
        s = min(target, self.clip) - 1
        return s >= 0 and self.grid.size * self._weight(s + 1) <= b * self._weight(0)


class BinarySearchQuantile(GridQuantile):
    """Binary search for a quantile with BV's noisy counts (Huang, Liang & Yi 2021).

    Paper: Huang-Liang-Yi 2021 (Section 3, the private quantile by binary
    search); BV Alg 4.8 (GeoSample) for each count. Neighbours: ``n`` values,
    one replaced, so each count ``#{x <= mid}`` moves by at most 1.

    Each step only asks whether the count reaches ``m``, so the count is first
    clamped to ``[m - L - 1, m + L + 1]`` (1-Lipschitz: privacy is unchanged)
    and noised by GeoSample over that window of ``2L + 3`` values: the work
    follows ``L``, not ``n``.  A wrong answer needs noise beyond ``min(|c - m|, L)``.

    Args:
        lower, upper, step: the public grid.
        quantile: ``q``; target rank ``m = floor(q n)``.
        n: the public number of values.
        epsilon: the total budget, ``eps / steps`` per count (ratio ``b/a <= e^(eps/steps)``).
        clip: ``L``; by default the least with ``Pr[|noise| > L] <= 2^-64``.
    """

    def __init__(
        self,
        lower: object,
        upper: object,
        *,
        quantile: object,
        n: object,
        epsilon: object,
        step: object = 1,
        clip: object = None,
    ) -> None:
        self.grid, self.n, self.quantile, self.rank = _on_grid(lower, upper, step, quantile, n)
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.steps = max(1, (self.grid.size - 1).bit_length())
        # Public bounds first, before the ratio is bracketed: above 2^7 a step, hundreds of
        # bits for no privacy; below 2^-32, a clip L past 2^37 (a window no table holds).
        per_step = self.epsilon / self.steps
        if per_step > MAX_EPSILON:
            raise ParameterError(
                f"epsilon: got {short_fraction(self.epsilon)} over {self.steps} steps; at most "
                f"{MAX_EPSILON} a step (a count is then exact but for probability 2e^-64)"
            )
        if per_step < Fraction(1, 1 << 32):
            raise ParameterError(
                f"epsilon: got {short_fraction(self.epsilon)} over {self.steps} steps; at "
                f"least 2^-32 a step (below, the noise's window 2L + 3 passes 2^38 values); "
                f"choose a larger epsilon or a coarser grid"
            )
        # GeoSample with budget 2 eps' is eps'-DP per unit change of one count.
        budget = 2 * per_step
        ratio = GeometricRatio.tight(budget)
        if clip is None:
            self.clip = min_power_at_least(ratio.exp_epsilon, Fraction(1 << CLIP_BITS))
        else:
            self.clip = check_positive_int(clip, "clip")
        try:
            self.sampler = GeoSample(2 * self.clip + 2, budget, noise="tight", samples=self.steps)
        except ParameterError as error:  # name what the user chose, not the inner sampler's n
            mine = clip is None  # the clip is derived from epsilon, or the caller's own
            raise type(error)(
                (
                    f"epsilon: got {short_fraction(self.epsilon)} over {self.steps} steps"
                    if mine
                    else f"clip: got {short_int(self.clip)}"
                )
                + f"; the counts' noise over a window"
                f" of 2L + 3 = {short_int(2 * self.clip + 3)} values is too large ({error}); "
                + ("choose a larger epsilon or a coarser grid" if mine else "choose a smaller clip")
            ) from None
        drawn = self.steps * (self.sampler.d.bit_length() // 8 + 1)
        if drawn > MAX_DRAWN_BYTES:
            raise ParameterError(
                f"step: got {short_fraction(self.grid.step)}; {self.steps} steps of draws of "
                f"{self.sampler.d.bit_length()} bits would read about {describe_bytes(drawn)} "
                f"of randomness, above the limit of {describe_bytes(MAX_DRAWN_BYTES)}; use a "
                f"coarser grid, a larger epsilon, or ExponentialQuantile (one draw)"
            )

    @property
    def privacy_ratio(self) -> Fraction:
        """``(b/a)^steps``: the exact worst ratio of the whole search."""
        return self.sampler.privacy_ratio**self.steps

    def guarantee(self, label: str = "binary-search quantile") -> Guarantee:
        """Pure DP at :attr:`privacy_ratio` (adaptive composition of the steps)."""
        return Guarantee.pure_ratio(self.privacy_ratio, label)

    @property
    def max_oracle_calls(self) -> int:
        """``ceil(log2 N)`` draws (one per step, made whatever the answers)."""
        return self.steps

    def release_counts(self, counts: GridCounts, rng: RandomSource | None = None) -> Fraction:
        """:meth:`release` for values given as counts on the grid (checked)."""
        data = counts.check(self.n, self.grid.size)
        source = rng or default_source()
        offset, top = self.rank - self.clip - 1, 2 * self.clip + 2

        def reaches(_: int, count: int) -> bool:  # the noisy count reaches m
            return self.sampler.sample(min(max(count - offset, 0), top), source) >= self.clip + 1

        return self.grid.value(bisect_counts(data, self.grid.size, self.steps, reaches))

    def rank_error(self, beta: object) -> int:
        """``a`` with ``Pr[rank error > a] <= beta``.

        Every step answers rightly unless its noise exceeds ``min(|c - m|, L)``;
        with GeoSample's ``a`` at ``beta/steps`` (BV Thm 4.7 i) and ``a <= L``, the
        search ends at ``y`` with ``#{x <= y} >= m - a`` and ``#{x < y} <= m + a - 1``.

        Raises:
            ParameterError: ``beta`` outside ``(0, 1)``, or so small that ``a > L``.
        """
        b = probability(beta, "beta")
        a = self.sampler.accuracy(b / self.steps)
        if a > self.clip:
            raise ParameterError(
                f"beta: got {short_fraction(b)}; below what the clip L = {self.clip} allows"
            )
        return a
