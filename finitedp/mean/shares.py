"""PLAN's default budget split: each private step gets what its statement needs.

Paper: Lebeda thesis Listing 5.1 (the fixed split this replaces by default) and
Lemma 5.4 / 5.5 (PRIVQUANTILE's rank error); issue 28; proofs_notes/plan.md.
Everything here is a function of public values (``n``, ``d``, the grid, ``rho``,
``beta``): no privacy is spent choosing the split.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from ..errors import ParameterError

if TYPE_CHECKING:
    from .plan import PLAN

__all__ = ["least_share", "rank_error", "shares_by_need"]


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


def shares_by_need(plan: PLAN, public: bool) -> tuple[Fraction, ...]:
    """The default split: each private step gets what its statement needs, the noise the rest.

    * centre: the least multiple of ``1/256`` in ``[1/16, 1/2]`` whose median has
      rank error below ``min(m, n - 1 - m)`` at ``beta/(3d)``: with probability at
      least ``1 - beta/3`` every coordinate's centre lies within the range of its
      data, so no coordinate's centre is lost (issue 28);
    * spread (``"gaussian"``): the least in ``[1/32, 1/4]`` whose median of the
      ``n' = floor(n/2)`` gaps' levels has rank error below ``min(m', n' - 1 - m')``:
      every spread within the range of its gaps; if ``1/4`` is not enough, no
      spreads at all (``variance_kind = "uniform"``, Thm 5.4's ``sigma^ = 1``)
      and their budget goes to the noise; ``"binary"``: ``1/8``;
    * radius ``1/16`` (one quantile); noise: the rest.

    Listing 5.1's fixed split (``shares=LISTING_SHARES``) spends ``3/16`` on the
    spreads and ``3/16`` on the radius whatever ``n`` and ``d``; at ``d = 512``,
    ``n = 4000``, ``rho = 1/16`` its ``rho/16`` loses the centre.  Everything here
    is public (``n``, ``d``, the grid, ``rho``, ``beta``): no privacy is spent.
    """
    m = plan.n // 2
    centre = Fraction(0)
    if plan.centred:
        inside = min(m, plan.n - 1 - m)
        centre = least_share(plan, "centre", 16, 128, inside) or Fraction(1, 2)
    spread = Fraction(0)
    if plan.variance_kind == "binary":
        spread = Fraction(1, 8)
    elif not public:
        half = plan.n // 2
        least = least_share(plan, "spread", 8, 64, min(half // 2, half - 1 - half // 2))
        if least is None:  # no reliable spreads within 1/4: no rescaling (Thm 5.4)
            plan.variance_kind, plan._public = "uniform", (Fraction(1),) * plan.d
        else:
            spread = least
    radius = Fraction(1, 16)
    return (centre, spread, radius, 1 - centre - spread - radius)
