"""PLAN's quantile mechanisms and its default budget split: each step gets what it needs.

Paper: Lebeda thesis Listing 5.1 (the fixed split this replaces by default) and
Lemma 5.4 / 5.5 (PRIVQUANTILE's rank error); issue 28; proofs_notes/plan.md.
Everything here is a function of public values (``n``, ``d``, the grid, ``rho``,
``beta``): no privacy is spent choosing the split.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from ..errors import ParameterError
from ..selection.gaussianquantile import GaussianBinarySearchQuantile
from ..selection.quantile import BinarySearchQuantile, ExponentialQuantile, Grid
from .rounds import REPAIR_ROUNDS
from .scaling import budget_epsilon

if TYPE_CHECKING:
    from .plan import PLAN

__all__ = ["Selector", "least_share", "rank_error", "selector", "shares_by_need"]

Selector = ExponentialQuantile | BinarySearchQuantile | GaussianBinarySearchQuantile


def selector(kind: str, grid: Grid, n: int, quantile: Fraction, rho: Fraction) -> Selector:
    """The quantile mechanism ``kind`` on ``grid`` with zCDP at most ``rho``.

    ``"exponential"``: bounded range, ``eps^2/8``-zCDP (fixed-precision weights);
    ``"binary"``: BV counts, ``eps^2/2``; ``"gaussian"``: discrete Gaussian counts.
    """
    if kind == "gaussian":
        return GaussianBinarySearchQuantile(
            grid.lower, grid.upper, quantile=quantile, n=n, rho=rho, step=grid.step
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


def rank_error(plan: PLAN, step: str, share: Fraction) -> int | None:
    """A per-coordinate step's rank error at ``beta/(3d)`` with ``share rho`` (``None``:
    beyond what the selector can state)."""
    if step == "centre":
        grid, n = plan.grid, plan.n
    else:
        grid, n = plan._gap_grid, plan.n // 2
    selector = plan._selector(grid, n, Fraction(1, 2), share * plan.rho / plan.d)
    try:
        return selector.rank_error(plan.beta / (3 * plan.d))
    except ParameterError:
        return None


def least_share(plan: PLAN, step: str, low: int, high: int, target: int) -> Fraction | None:
    """The least ``k/256`` in ``[low, high]/256`` whose rank error is below ``target``."""
    for k in range(low, high + 1):
        error = rank_error(plan, step, Fraction(k, 256))
        if error is not None and error < target:
            return Fraction(k, 256)
    return None


def shares_by_need(
    plan: PLAN, public: bool, rounds: int | None = None
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
      ``n' = floor(n/2)`` gaps' levels has rank error below ``min(m', n' - 1 - m')``:
      every spread within the range of its gaps; if ``1/4`` is not enough, ``1/8``
      all the same: a few spreads off by a factor cost less than none at all on
      skewed data (Gaussian C, ``d = 2048``, ``rho = 1/16``: l2 error 38-56 with
      spreads at ``1/8``, 178 without, IOME 120); ``"binary"``: ``1/8``;
    * radius ``1/16`` (one quantile per round); noise: the rest.

    Returns ``(shares, rounds, placed)``: ``rounds`` given is kept; ``placed`` says
    whether every centre and spread was placed by the rule (no repair, no fallback).
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
        spread = Fraction(1, 8) if least is None else least
        placed = placed and least is not None
    radius = Fraction(1, 16)
    return (centre, spread, radius, 1 - centre - spread - radius), rounds or 1, placed
