"""PLAN's quantile mechanisms and its default budget split: each step gets what it needs.

Paper: Lebeda thesis Listing 5.1 (the fixed split this replaces by default) and
Lemma 5.4 / 5.5 (PRIVQUANTILE's rank error); issue 28; proofs_notes/plan.md.
Everything here is a function of public values (``n``, ``d``, the grid, ``rho``,
``beta``): no privacy is spent choosing the split.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import isqrt

from ..errors import ParameterError
from ..selection.gaussianquantile import GaussianBinarySearchQuantile
from ..selection.grid import Grid
from ..selection.quantile import BinarySearchQuantile, ExponentialQuantile
from .rounds import REPAIR_CLIPPED, REPAIR_ROUNDS
from .scaling import budget_epsilon

__all__ = [
    "LIGHT_RADIUS_SHARE",
    "RADIUS_SHARE",
    "SPREAD_CAP",
    "PlanInputs",
    "Selector",
    "clipped_beyond",
    "least_share",
    "lighter_radius",
    "rank_error",
    "selector",
    "shares_by_need",
]

Selector = ExponentialQuantile | BinarySearchQuantile | GaussianBinarySearchQuantile

#: The most the spreads get.  Placing every spread can cost more (``31/128`` of
#: ``rho`` at the thesis' Gaussian A, ``n = 4000``, ``d = 512``, ``rho = 1/8``), and
#: the noise loses what the spreads take: there, l2 error 0.836 with ``31/128`` and
#: 0.765 with ``1/8`` (8 data sets; at ``rho = 1/4``: 0.583 and 0.569; IOME 0.74 and
#: 0.57).  On
#: skewed data the spreads matter more, yet the cap did not hurt: C ``d = 2048``,
#: ``rho = 1/8`` (``53/256`` -> ``1/8``): error against the empirical mean 17.5 ->
#: 16.5, 90th percentile 27.0 -> 23.3; C ``d = 512``, ``rho = 1/16``: 3.57 -> 3.64.
SPREAD_CAP = Fraction(1, 8)

#: The radius quantile's share by default (Listing 5.1 gives it ``3/16``), and with
#: repair rounds, split between them: there the rounds are what repairs a lost
#: centre, and a smaller share buys fewer of them (:func:`.rounds.repair_rounds`;
#: A ``d = 2048``, ``rho = 1/8``: 16 rounds and an l2 error of 3.39 with ``1/16``,
#: 8 rounds and 3.79 with ``1/64``).
RADIUS_SHARE = Fraction(1, 16)

#: The radius share of a single round wherever it clips at most ``n/8`` rows
#: (:func:`lighter_radius`).  The share only moves the quantile's rank error, so how
#: many rows are clipped (a few percent either way), while every bit of it taken
#: from the noise costs accuracy.  Gaussian A at the thesis' ``n = 4000, d = 512``:
#: l2 error 0.852 with ``1/16``, 0.801 with ``1/64``, 0.800 with ``1/128`` at ``rho =
#: 1/8``; 0.618 / 0.592 at ``rho = 1/4`` (IOME 0.716 / 0.563); better too on A ``d =
#: 64``, B ``alpha = 2`` and binary data (``benchmarks/plan_experiments.py``).
LIGHT_RADIUS_SHARE = Fraction(1, 64)


@dataclass(frozen=True)
class PlanInputs:
    """PLAN's public parameters, checked: what every budget decision reads.

    Attributes:
        grid: every coordinate's grid; d, n: the dimension and the public row count.
        rho, beta: the budget and the accuracy statements' failure probability.
        variance_kind: ``"gaussian"``, ``"binary"`` or ``"public"``.
        selection: the per-coordinate quantiles' mechanism (as decided so far).
        centred: the centre is the median (else the grid's lower end).
        gap_levels: the gaps' geometric grid ``T_k``.
        noise_law: the discrete Gaussian's law.
    """

    grid: Grid
    d: int
    n: int
    rho: Fraction
    beta: Fraction
    variance_kind: str
    selection: str
    centred: bool
    gap_levels: tuple[int, ...]
    noise_law: str

    @property
    def gap_grid(self) -> Grid:
        """The spread selector's grid: the gap levels' indices."""
        return Grid(0, max(1, len(self.gap_levels) - 1))

    def selector(
        self, grid: Grid, n: int, quantile: Fraction, rho: Fraction, kind: str | None = None
    ) -> Selector:
        """The quantile mechanism (``selection`` unless ``kind``) with zCDP at most ``rho``."""
        return selector(kind or self.selection, grid, n, quantile, rho, self.noise_law)


def clipped_beyond(inputs: PlanInputs, levels: Grid, share: Fraction) -> int:
    """Rows expected beyond the radius: ``ceil(sqrt(n))`` plus the radius quantile's
    rank error at ``beta/3`` with ``share`` (at most ``n``)."""
    n = inputs.n
    probe = inputs.selector(levels, n, Fraction(0), share, "exponential")
    return min(n, isqrt(n - 1) + 1 + probe.rank_error(inputs.beta / 3))


def selector(
    kind: str, grid: Grid, n: int, quantile: Fraction, rho: Fraction, noise_law: str = "convolved"
) -> Selector:
    """The quantile mechanism ``kind`` on ``grid`` with zCDP at most ``rho``.

    ``"exponential"``: bounded range, ``eps^2/8``-zCDP (fixed-precision weights);
    ``"binary"``: BV counts, ``eps^2/2``; ``"gaussian"``: discrete Gaussian counts
    (of ``noise_law``).
    """
    if kind == "gaussian":
        return GaussianBinarySearchQuantile(
            grid.lower,
            grid.upper,
            quantile=quantile,
            n=n,
            rho=rho,
            step=grid.step,
            noise_law=noise_law,
        )
    bounded = kind == "exponential"
    eps = budget_epsilon(rho, bounded)
    if bounded:
        return ExponentialQuantile.from_epsilon(
            grid.lower,
            grid.upper,
            quantile=quantile,
            n=n,
            epsilon=eps,
            step=grid.step,
            weights="fixed",
        )
    return BinarySearchQuantile(
        grid.lower, grid.upper, quantile=quantile, n=n, epsilon=eps, step=grid.step
    )


def _step_selector(plan: PlanInputs, step: str, share: Fraction) -> Selector:
    """The per-coordinate median of ``step`` (``"centre"`` or the gaps') at ``share rho``."""
    if step == "centre":
        grid, n = plan.grid, plan.n
    else:
        grid, n = plan.gap_grid, plan.n // 2
    return plan.selector(grid, n, Fraction(1, 2), share * plan.rho / plan.d)


def rank_error(plan: PlanInputs, step: str, share: Fraction) -> int | None:
    """A per-coordinate step's rank error at ``beta/(3d)`` with ``share rho`` (``None``:
    beyond what the selector can state)."""
    selector = _step_selector(plan, step, share)
    try:
        return selector.rank_error(plan.beta / (3 * plan.d))
    except ParameterError:
        return None


def rank_error_below(plan: PlanInputs, step: str, share: Fraction, target: int) -> bool:
    """Whether :func:`rank_error` is a number below ``target``, as each selector's
    ``rank_error_below`` answers it: from one look at its bound where the bound falls in
    the error (fixed-weight exponential, Gaussian search), the test a share search makes
    of up to 49 candidate shares."""
    selector = _step_selector(plan, step, share)
    try:
        return selector.rank_error_below(plan.beta / (3 * plan.d), target)
    except ParameterError:
        return False


def least_share(plan: PlanInputs, step: str, low: int, high: int, target: int) -> Fraction | None:
    """The least ``k/256`` in ``[low, high]/256`` whose rank error is below ``target``."""
    for k in range(low, high + 1):
        if rank_error_below(plan, step, Fraction(k, 256), target):
            return Fraction(k, 256)
    return None


def shares_by_need(
    plan: PlanInputs, public: bool, rounds: int | None = None
) -> tuple[tuple[Fraction, ...], int, bool]:
    """The default split and rounds: each private step gets what its statement needs.

    * centre: the least multiple of ``1/256`` in ``[1/16, 1/4]`` whose median has
      rank error below ``min(m, n - 1 - m)`` at ``beta/(3d)``: with probability at
      least ``1 - beta/3`` every coordinate's centre lies within the range of its
      data, so no coordinate's centre is lost (issue 28).  If none does, the
      centre is *repaired* rather than bought: ``REPAIR_ROUNDS`` rounds of steps
      3-4 (:mod:`.rounds`; the plan raises them to :func:`.rounds.repair_rounds`
      once the radius levels are known) unless ``rounds`` says otherwise, and the centre gets
      ``1/16``; a single round asked for has nothing else to lean on and gets the
      least share up to ``1/2`` that places it (``1/2`` if none);
    * spread (``"gaussian"``): the least in ``[1/32, 1/4]`` whose median of the
      ``n' = floor(n/2)`` gaps' levels has rank error below ``min(m', n' - 1 - m')``
      (every spread within the range of its gaps), but at most ``SPREAD_CAP =
      1/8``; if ``1/4`` is not enough, ``1/8`` all the same (and ``placed`` is
      false): a few spreads off by a factor cost less than none at all on skewed
      data (Gaussian C, ``d = 2048``, ``rho = 1/16``: l2 error 38-56 with spreads at
      ``1/8``, 178 without, IOME 120), and less than the noise the rest would take
      (see ``SPREAD_CAP``); ``"binary"``: ``1/8``;
    * radius ``1/16`` (one quantile per round; a single round then takes
      :func:`lighter_radius` where it can); noise: the rest.

    Returns ``(shares, rounds, placed)``: ``rounds`` given is kept; ``placed`` says
    whether the rule could place every centre and spread within its range (no
    repair, no fallback; the spreads' up to ``1/4`` even where the cap then gives
    them ``1/8``): ``selection="auto"`` moves to the Gaussian search where not.
    Listing 5.1's fixed split (``shares=LISTING_SHARES``) spends ``3/16`` on the
    spreads and ``3/16`` on the radius whatever ``n`` and ``d``; at ``d = 512``,
    ``n = 4000``, ``rho = 1/16`` its ``rho/16`` loses the centre.  Everything here is
    public (``n``, ``d``, the grid, ``rho``, ``beta``): no privacy is spent.
    """
    m = plan.n // 2
    placed = True
    centre = Fraction(0)
    if plan.centred:
        inside = min(m, plan.n - 1 - m)
        least = least_share(plan, "centre", 16, 64, inside)
        placed = least is not None
        if least is None and rounds == 1:
            least = least_share(plan, "centre", 65, 128, inside) or Fraction(1, 2)
        elif least is None:  # placing every centre costs too much: repair it instead
            rounds, least = rounds or REPAIR_ROUNDS, Fraction(1, 16)
        centre = least
    spread = Fraction(0)
    if plan.variance_kind == "binary":
        spread = Fraction(1, 8)
    elif not public:
        half = plan.n // 2
        least = least_share(plan, "spread", 8, 64, min(half // 2, half - 1 - half // 2))
        spread = SPREAD_CAP if least is None else min(least, SPREAD_CAP)
        placed = placed and least is not None
    radius = RADIUS_SHARE
    return (centre, spread, radius, 1 - centre - spread - radius), rounds or 1, placed


def lighter_radius(
    shares: tuple[Fraction, ...], n: int, clipped: Callable[[Fraction], int]
) -> tuple[Fraction, ...]:
    """One round's split with the radius at ``LIGHT_RADIUS_SHARE`` and the rest of its
    share given to the noise, if that radius quantile clips at most ``n/8`` rows.

    ``clipped(share)`` is the rows the radius quantile with ``share`` of ``rho``
    leaves beyond it (public: ``n``, the levels, ``rho``, ``beta``).  Where the
    lighter quantile would clip more (small ``n``: at ``n = 100``, ``d = 2``, ``rho =
    1`` it clips 71 rows against 40), the split is kept.  The bound is the one
    :func:`.rounds.repair_rounds` keeps its rounds' quantiles to.
    """
    centre, spread, radius, noise = shares
    if clipped(LIGHT_RADIUS_SHARE) > REPAIR_CLIPPED * n:
        return shares
    return centre, spread, LIGHT_RADIUS_SHARE, noise + radius - LIGHT_RADIUS_SHARE
