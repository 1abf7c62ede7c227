"""PLAN, variance-aware private mean estimation, on a finite computer: thesis Alg 17, exactly.

Paper: Lebeda thesis Ch. 5 (Aumüller, Lebeda, Nelson & Pagh, *PLAN: variance-aware
private mean estimation*): Alg 17, Listing 5.1 and Section 5.7.1 (the variance
estimators); proofs_notes/plan.md.

``n`` rows (``n`` public) in ``[lower, upper]^d`` on the public grid of ``step``;
neighbours *replace one row* (a whole vector).  Four private steps, each given
its share of ``rho`` and reported to one :class:`~finitedp.accounting.Accountant`:

1. **centre** ``mu~``: each coordinate's private median (``rho_c/d`` each), a grid
   point; or the grid's lower end, public (``centre="lower"``, the default for
   binary data);
2. **spread** ``tau``: each coordinate's private median of the level of
   ``|x_2j - x_2j+1|`` on the geometric grid ``ceil((6/5)^k)`` (``variance=
   "gaussian"``: Section 5.7.1's ``(X - Y)^2/2`` median, by a monotone map), or the
   private mean ``q~`` with ``sqrt((q~ - lower)(upper - q~))`` (``"binary"``: Alg 15
   on the column sums), or public variances; regularised
   by adding the mean spread (Section 5.7.1);
3. **clipping radius** ``C``: the ``(n - k)/n`` private quantile of the rows' norms
   after centring and scaling by ``P_i ∝ tau_i^(-2/(p+2))``, on a geometric grid,
   ``k = ceil(sqrt(n)) + `` the quantile's rank error at ``beta/3``;
4. **noise**: every row scaled to ``||v_j||_2 <= K`` grid units of ``C/K``
   (clipped where its norm exceeds ``C``), summed exactly, and the discrete
   Gaussian with ``sigma^2 = (2K)^2/(2 rho_3')`` added to each coordinate;
5. **repair rounds** (``rounds = R > 1``): steps 3-4 again around the estimate so
   far, each with ``1/R`` of their shares, the estimates combined by inverse
   variance (:mod:`.rounds`); the default where the centre cannot be placed.

The shares of ``rho`` are sized by need (:func:`.shares.shares_by_need`: the
centre's least share that keeps every median inside its data, the spreads'
likewise, ``1/16`` to the radius, or ``1/64`` where one round's quantile then
clips at most ``n/8`` rows, the rest to the noise) or given (``LISTING_SHARES`` is
Listing 5.1's).  The estimate
``mu~_i + (S_i + eta_i) C step/(K n P_i)`` is exact and rational.  The
per-coordinate quantiles are the exponential mechanism (bounded range:
``eps^2/8``-zCDP), the binary search with BV counts (``eps^2/2``) or with discrete
Gaussian counts (zCDP); the noise is approximate zCDP at integer orders for an l2
shift of ``2K`` (:meth:`DiscreteGaussian.zcdp_vector`).  0/1 rows may be given as
sets (:meth:`PLAN.release_sets`, :mod:`.sparse`).

>>> plan = PLAN(-20, 20, d=8, n=1000, rho="1/2", step="1/16")
>>> plan.guarantee.rho <= Fraction(1, 2), [str(s) for s in plan.shares]
(True, ['1/16', '1/32', '1/64', '57/64'])
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import isqrt
from typing import Unpack

import numpy as np

from ..accounting import Accountant, Guarantee
from ..aggregation.vectorsum import EllipticalGaussian
from ..errors import ParameterError
from ..oracle import RandomSource, default_source
from ..params import (
    decimal_nearest,
    short_fraction,
    short_int,
)
from ..selection.grid import Grid
from ..selection.quantile import ExponentialQuantile
from ..statistics import ArrayStatistics, ColumnStatistics, RowStatistics
from .budget import PlanOptions, plan_budget
from .release import (
    LISTING_SHARES,
    NEIGHBOURS,
    PLAN_RELEASE_VERSION,
    MeanRelease,
    naming_rho,
)
from .rounds import (
    noise_guarantees,
    round_noises,
    run_rounds,
)
from .scaling import (
    binary_variances,
    clip_levels,
    clip_rows,
    index_rows,
    integer_scales,
    kept_within,
    sqrt_floor,
)
from .shares import Selector, clipped_beyond, rank_error
from .sparse import SetsStatistics

__all__ = ["LISTING_SHARES", "NEIGHBOURS", "PLAN", "PLAN_RELEASE_VERSION", "MeanRelease"]

#: The most ``delta0`` (the noise tables' tail mass in the zCDP statement) that the default
#: ``K`` and tables may state: above it the constructor refuses.
MAX_DELTA0 = Fraction(1, 1 << 20)


def check_total(total: Guarantee, rho: Fraction, d: int, units: int, defaults: bool) -> None:
    """Refuse a composition above ``rho``, and with the default ``K`` and tables one whose
    ``delta0`` passes ``MAX_DELTA0`` (a statement that says little)."""
    if total.rho is None or total.rho > rho:
        raise ParameterError(
            f"rho: the steps compose to "
            f"{'nothing' if total.rho is None else short_fraction(total.rho)}, above rho = "
            f"{short_fraction(rho)}; use larger noise tables (noise_precision) or a larger rho"
        )
    if defaults and total.rho_delta > MAX_DELTA0:
        shown = decimal_nearest(total.rho_delta, 2, up=True)
        raise ParameterError(
            f"rho: got {short_fraction(rho)}; the default noise tables cannot certify it at "
            f"d = {d}: their tails leave delta0 = {shown} > 2^-20 (a "
            f"round's share too small for K = {units}, or above about 10); use another rho, "
            f"or give units or noise_precision to accept that delta0"
        )


class PLAN:
    """Alg 17 with Listing 5.1's steps, Section 5.7.1's spread estimates and a split sized by need.

    Paper: Lebeda thesis Alg 17, Listing 5.1, Section 5.7.1; Smith 2011 /
    Huang-Liang-Yi 2021 for PRIVQUANTILE; CKS20 for the noise.  Neighbours:
    :data:`NEIGHBOURS`.

    Args:
        lower, upper, step: the public grid of every coordinate.
        d: the dimension; n: the public number of rows (``n >= 2``).
        rho: the total zCDP budget (the release is approximate zCDP at most ``rho``).
        p: the error norm targeted (2 for Gaussian-like data, 1 for binary).
        variance: ``"gaussian"``, ``"binary"`` or a sequence of ``d`` public variances.
        selection: the per-coordinate quantiles' mechanism (centre and spread):
            ``"exponential"`` (Smith; the thesis' experiments), ``"gaussian"`` (binary
            search with discrete Gaussian counts, IOME's), ``"binary"`` (binary search
            with BV's counts, pure DP) or ``"auto"`` (the default): the exponential
            mechanism where its bound places every centre and spread within a
            quarter of ``rho`` each (it is the more precise near the median), else
            the Gaussian search, whose failures are rarer far from the data (issue
            28); with ``shares`` given, ``"auto"`` is the exponential mechanism.  The
            clipping radius, one quantile, is always the exponential mechanism.
        beta: the failure probability the clipping count ``k`` allows for.
        shares: ``(centre, spread, radius, noise)`` fractions of ``rho``; by default
            each step gets what its statement needs (:func:`.shares.shares_by_need`), and
            ``LISTING_SHARES`` is Listing 5.1's fixed split.
        clipped: ``k``, the rows expected beyond ``C`` (Line 5); by default
            ``ceil(sqrt(n))`` plus the radius quantile's rank error at ``beta/3``, and
            at least ``n/10`` for ``variance="binary"`` (basket sizes are heavy-tailed).
        centre: ``"median"`` (Alg 17 Line 3) or ``"lower"`` (no recentring: the
            grid's lower end, public; the default for ``variance="binary"``, as the
            authors' binary PLAN does).
        units: ``K``, the grid of ``C/K`` on which rows are summed (default
            ``16 ceil(sqrt(d))``, grown towards ``ceil(n/2)``, at most ``8191``, and
            never beyond where the lightest round's noise has ``sigma^2 <= 2^28`` (its
            table exact at 128 bits) unless that is below ``ceil(sqrt(d))``, the least
            ``K``: :func:`.rounds.grown_units`).  With the default ``units``, noise
            tables and radius, a statement whose tables leave ``delta0 > 2^-20`` is
            refused (``MAX_DELTA0``).
        clip_ratio, clip_count: the radii's geometric grid (default ``65/64``, as
            many levels as reach 1 unit).
        noise_radius, noise_precision: the ``"table"`` law's table (defaults: its own).
        noise_law: ``"convolved"`` (default) or ``"table"`` (the default when
            ``noise_radius`` or ``noise_precision`` is given): the discrete Gaussian of
            the noise and the Gaussian steps (:mod:`~finitedp.counting.gaussiannoise`).
        rounds: ``R``, how many times steps 3-4 run (each recentred on the estimate so
            far, :mod:`.rounds`; at most ``MAX_ROUNDS``); by default 1, or
            8 to 16 (:func:`.rounds.repair_rounds`) where no centre share up to 1/4
            keeps every median inside its data (:func:`.shares.shares_by_need`; with
            ``shares`` given, 1), unless eight rounds' radius quantiles would clip
            more than half the rows (``REPAIR_VIABLE``): then 1.
        noise_split: the rounds' fractions of the noise's share, in order (``R``
            positive fractions summing to 1; the combination weighs round ``t`` by
            ``share_t/C_t^2``); by default even, except in repair rounds, where the first
            ``R // 4`` take a quarter of an even share each (:func:`.rounds.light_split`).

    Raises:
        ParameterError: any parameter out of range, named.
    """

    @naming_rho
    def __init__(
        self,
        lower: object,
        upper: object,
        *,
        d: object,
        n: object,
        rho: object,
        **options: Unpack[PlanOptions],
    ) -> None:
        # Every decision first, from public values (mean/budget.py), then the steps' mechanisms.
        self.budget = b = plan_budget(lower, upper, d=d, n=n, rho=rho, **options)
        i = b.inputs
        self.grid, self.d, self.n, self.rho, self.beta = i.grid, i.d, i.n, i.rho, i.beta
        self.p, self.variance_kind, self.selection, self.noise_law = (
            b.p,
            i.variance_kind,
            i.selection,
            i.noise_law,
        )
        self.centred, self.gap_levels, self.span = i.centred, list(i.gap_levels), i.grid.size - 1
        self.shares, self.rounds, self.noise_split, self.units = (
            b.shares,
            b.rounds,
            b.noise_split,
            b.units,
        )
        self.clip_ratio, self.clip_count, self.clipped = b.clip_ratio, b.clip_count, b.clipped
        c_share, v_share = (s * self.rho for s in b.shares[:2])
        self.accountant = Accountant(NEIGHBOURS)
        self.centre: Selector | None = None  # 1. the centre: a median per coordinate
        if self.centred:
            self.centre = i.selector(self.grid, self.n, Fraction(1, 2), c_share / self.d)
            self.accountant.add(self.centre.guarantee("centre (median per coordinate)"), self.d)
        self.spread: Selector | EllipticalGaussian | None = None  # 2. the spread
        if self.variance_kind == "gaussian":
            self.spread = i.selector(i.gap_grid, self.n // 2, Fraction(1, 2), v_share / self.d)
            self.accountant.add(self.spread.guarantee("spread (median |x - y| per pair)"), self.d)
        elif self.variance_kind == "binary":
            grids = [self.grid] * self.d
            self.spread = EllipticalGaussian(grids, self.n, v_share, p=2, noise_law=i.noise_law)
            self.accountant.add(self.spread.guarantee)
        # 3. the radius: a quantile of the norms' levels (the levels are set per release)
        levels, q = Grid(0, max(1, self.clip_count - 1)), Fraction(self.n - self.clipped, self.n)
        self.radius = i.selector(levels, self.n, q, b.radius_share, "exponential")
        self.accountant.add(self.radius.guarantee("clipping radius (quantile of norms)"), b.rounds)
        # 4. the noise of each round: l2 sensitivity 2K units
        self.noises = round_noises(
            b.round_shares, b.units, b.noise_radius, b.noise_precision, i.noise_law
        )
        self.noise = self.noises[-1]
        for guarantee, count in noise_guarantees(b.noise_split, self.noises, b.units, self.d):
            self.accountant.add(guarantee, count)
        check_total(self.accountant.total(), self.rho, self.d, self.units, b.defaults)

    def _selector(
        self, grid: Grid, n: int, quantile: Fraction, rho: Fraction, kind: str | None = None
    ) -> Selector:
        """The quantile mechanism with zCDP at most ``rho`` (:func:`.shares.selector`)."""
        return self.budget.inputs.selector(grid, n, quantile, rho, kind)

    def _clipped(self, levels: Grid, share: Fraction) -> int:
        """Rows expected beyond the radius (:func:`.shares.clipped_beyond`)."""
        return clipped_beyond(self.budget.inputs, levels, share)

    def _rank_error(self, step: str, share: Fraction) -> int | None:
        return rank_error(self.budget.inputs, step, share)

    @property
    def centre_bound(self) -> int | None:
        """The centre's rank error at ``beta/(3d)``: all coordinates at once w.p. ``1 - beta/3``."""
        return self._rank_error("centre", self.shares[0]) if self.centred else None

    @property
    def guarantee(self) -> Guarantee:
        """The composed guarantee of the four steps (one accountant), at most ``rho``."""
        return self.accountant.total()

    def epsilon_for(self, delta: object) -> Fraction:
        """The ``eps`` the accountant certifies at ``delta`` (CKS20 / BS16 conversions)."""
        return self.accountant.epsilon_for(delta)

    # -- the steps, each a function of the data's statistics and of earlier (public) outputs --

    def centres(self, stats: ColumnStatistics, rng: RandomSource) -> list[int]:
        """Step 1: each coordinate's private median as a grid index (``centre="lower"``: 0)."""
        if self.centre is None:
            return [0] * self.d
        selector = self.centre
        return [
            self.grid.index(selector.release_counts(stats.column_counts(i), rng))
            for i in range(self.d)
        ]

    def spreads(self, stats: RowStatistics, rng: RandomSource) -> list[Fraction]:
        """Step 2: the standard-deviation estimates ``tau`` (up to a public factor), regularised.

        ``"gaussian"``: the median of ``|x - y|`` over the pairs of rows ``(2j, 2j+1)``
        is ``sqrt(2 (7/9)^3) sigma`` for Gaussian data, a public factor that cancels;
        each gap is read as its level on the geometric grid ``ceil((6/5)^k)``
        (:meth:`~finitedp.statistics.RowStatistics.gap_counts`).
        """
        if self.variance_kind == "gaussian":
            selector = self.spread
            assert not isinstance(selector, EllipticalGaussian | None)
            counts = stats.gap_counts(self.gap_levels)
            tau = [Fraction(self.gap_levels[int(selector.release_counts(c, rng))]) for c in counts]
        else:
            if self.variance_kind == "binary":
                assert isinstance(self.spread, EllipticalGaussian)
                estimates = self.spread.release_sums(stats.column_sums(), rng).estimates
                variances = binary_variances(estimates, self.grid, self.d, self.n)
            else:
                assert self.budget.public_variances is not None
                variances = list(self.budget.public_variances)
            tau = [sqrt_floor(v) for v in variances]
        mean = sum(tau, Fraction(0)) / self.d
        return [t + mean for t in tau]

    def clip(
        self,
        stats: RowStatistics,
        centre: list[int],
        scales: list[int],
        levels: list[int],
        rng: RandomSource,
    ) -> tuple[int, list[int]]:
        """Steps 3-4's data part: the radius ``C`` (a private quantile of the rows' norm
        levels) and the clipped sums ``sum_j v_j`` in units of ``C/K``.

        The rows within ``C (2K - c)/(2K)`` share the factor ``K/C`` (:func:`.scaling.
        clipped_sum`), so the engine sums them; the others, about ``k``, are clipped here
        (:func:`.scaling.clip_rows`).
        """
        chosen = self.radius.release_counts(stats.norm_counts(centre, scales, levels), rng)
        radius = levels[int(chosen)]
        within = kept_within(radius, self.units, self.d)
        total = np.array(stats.rounded_sums(centre, scales, self.units, radius, within))
        m, p = np.array(centre, dtype=np.int64), np.array(scales, dtype=np.int64)
        for block, bounds in stats.rows_beyond(centre, scales, within):
            total += clip_rows(block, m, p, bounds, self.units)
        return radius, [int(t) for t in total]

    def spread_of(self, rows: np.ndarray, rng: RandomSource) -> list[Fraction]:
        """:meth:`spreads` of an ``n x d`` array of grid indices."""
        return self.spreads(ArrayStatistics(list(np.asarray(rows, dtype=np.int64).T)), rng)

    def scaled(self, rows: np.ndarray, centre: list[int], scales: list[int]) -> np.ndarray:
        """``w_j = (k_j - m) P`` per coordinate: the centred, scaled rows in int64."""
        shifted = rows.astype(np.int64) - np.array(centre, dtype=np.int64)
        return shifted * np.array(scales, dtype=np.int64)

    def levels(self, scales: list[int]) -> list[int]:
        """The clipping radii ``C_k`` in the units of ``w`` (the top is the largest norm)."""
        largest = isqrt(sum((self.span * s) ** 2 for s in scales)) + 1
        return clip_levels(largest, self.clip_ratio, self.clip_count)

    def release_statistics(
        self, stats: RowStatistics, rng: RandomSource | None = None
    ) -> MeanRelease:
        """The private mean of the rows whose statistics ``stats`` gives (any engine:
        numpy, DuckDB, Spark, sparse sets): the same release for the same draws.

        Raises:
            ParameterError: not ``n`` rows of ``d`` columns.
        """
        if (stats.n, stats.d) != (self.n, self.d):
            raise ParameterError(
                f"rows: got {short_int(stats.n)} x {stats.d}; need n x d = "
                f"{short_int(self.n)} x {self.d}"
            )
        source = rng or default_source()
        centre = self.centres(stats, source)
        scales = integer_scales(self.spreads(stats, source), self.p, self.span)
        levels = self.levels(scales)
        return run_rounds(
            self, centre, scales, lambda m: self.clip(stats, m, scales, levels, source), source
        )

    def release_indices(self, rows: object, rng: RandomSource | None = None) -> MeanRelease:
        """The private mean of rows given as grid indices (an ``n x d`` integer array).

        Raises:
            ParameterError: the wrong shape, or an index outside the grid.
        """
        data = index_rows(rows, self.n, self.d, self.span)
        # the columns and row blocks as views: no copy of n x d when the rows are int64
        return self.release_statistics(ArrayStatistics(list(data.T), rows=data), rng)

    def release_sets(
        self, sets: Sequence[Sequence[int]], rng: RandomSource | None = None
    ) -> MeanRelease:
        """The private mean of 0/1 rows given sparsely: row ``j`` is the set of its 1s.

        Memory follows the total size of the sets plus ``d`` (never ``n x d``), and the
        release equals :meth:`release_indices` of the dense rows draw for draw
        (:class:`.sparse.SetsStatistics`).

        Raises:
            ParameterError: a grid other than ``{0, 1}``, not ``n`` rows, or an item
                outside ``[0, d)`` (the row is named).
        """
        if self.grid != Grid(0, 1):
            raise ParameterError("sets: rows given as sets need the grid {0, 1} (lower 0, upper 1)")
        return self.release_statistics(SetsStatistics(sets, self.n, self.d), rng)

    def release(
        self, rows: Sequence[Sequence[object]], rng: RandomSource | None = None
    ) -> MeanRelease:
        """The private mean of ``n`` rows of ``d`` exact values on the grid (checked)."""
        if len(rows) != self.n:
            raise ParameterError(f"rows: got {len(rows)}; n = {short_int(self.n)} is public")
        indices = np.empty((self.n, self.d), dtype=np.int64)
        for j, row in enumerate(rows):
            if len(row) != self.d:
                raise ParameterError(f"rows[{j}]: got {len(row)} values; need d = {self.d}")
            for i, value in enumerate(row):
                indices[j, i] = self.grid.index(value, f"rows[{j}][{i}]")
        return self.release_indices(indices, rng)

    @property
    def max_oracle_calls(self) -> int:
        """The draws of one release, whatever the data: the quantiles' draws, then per
        round the radius' draws and ``d`` noise draws."""

        def calls(selector: Selector) -> int:
            return 1 if isinstance(selector, ExponentialQuantile) else selector.max_oracle_calls

        spread = 0
        if not isinstance(self.spread, EllipticalGaussian | None):
            spread = self.d * calls(self.spread)
        elif self.spread is not None:
            spread = self.d
        centre = 0 if self.centre is None else self.d * calls(self.centre)
        return centre + spread + self.rounds * (calls(self.radius) + self.d)
