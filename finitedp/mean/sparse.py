"""PLAN on sparse 0/1 rows (each row the set of its 1s): the dense release, without ``n x d``.

Paper: Lebeda thesis Alg 17 and Section 5.7 (binary data: Kosarak, POS);
proofs_notes/plan.md.

Every step of :meth:`PLAN.release_indices` depends on a row only through values
that sparse rows give directly, so :func:`release_sets` makes the same draws and
returns the same release as the dense path on the same rows:

* a column's sorted values are ``n - c_i`` zeros then ``c_i`` ones (``c_i`` its count);
* a pair's gap is 0 or 1, whose level is 0: every gap column is zeros;
* the column sums are the counts;
* row ``j``'s squared norm is ``sum_i (m_i P_i)^2`` plus, over its items,
  ``((1 - m_i) P_i)^2 - (m_i P_i)^2`` (exact integers: the same ``ceil`` as the dense
  :func:`~.scaling.norm_bounds`);
* rows that are not clipped share one factor ``K/C``, so their rounded coordinates
  are one of two values per column and sum from counts; the clipped rows (about
  ``k`` of them) are summed densely, one at a time.

Memory: the sets, ``O(d)`` per column block of ``n x 256`` bytes for the medians,
and ``O(d)`` per clipped row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import isqrt
from typing import Protocol

import numpy as np

from ..errors import ParameterError
from ..oracle import RandomSource
from .release import MeanRelease
from .rounds import RoundPlan, run_rounds
from .scaling import ceil_sqrt, integer_scales, level_of
from .shares import Selector


class SetsPlan(RoundPlan, Protocol):
    """What the sparse path reads of a PLAN: its public values and steps."""

    @property
    def p(self) -> int: ...
    @property
    def span(self) -> int: ...
    @property
    def radius(self) -> Selector: ...
    def centres(self, columns: Callable[[slice], np.ndarray], rng: RandomSource) -> list[int]: ...
    def spreads(
        self,
        gaps: Callable[[slice], np.ndarray],
        sums: Callable[[], list[int]],
        rng: RandomSource,
    ) -> list[Fraction]: ...
    def levels(self, scales: list[int]) -> list[int]: ...


__all__ = ["release_sets"]


def _rounded(w: np.ndarray, num: int, den: int) -> np.ndarray:
    """``round(w num/den)`` as :func:`~.scaling.clipped_sum` rounds (half up)."""
    return (2 * w * num + den) // (2 * den)


def release_sets(plan: SetsPlan, sets: Sequence[Sequence[int]], rng: RandomSource) -> MeanRelease:
    """:meth:`PLAN.release_indices` of the 0/1 rows whose 1s are ``sets[j]``.

    Raises:
        ParameterError: a grid other than ``{0, 1}``, not ``n`` rows, or an item
            outside ``[0, d)`` (the row is named).
    """
    grid, n, d = plan.grid, plan.n, plan.d
    if (grid.lower, grid.upper, grid.step) != (Fraction(0), Fraction(1), Fraction(1)):
        raise ParameterError("sets: rows given as sets need the grid {0, 1} (lower 0, upper 1)")
    if len(sets) != n:
        raise ParameterError(f"sets: got {len(sets)} rows; n = {n} is public")
    rows: list[np.ndarray] = []
    for j, items in enumerate(sets):
        row = np.unique(np.asarray(items, dtype=np.int64))
        if row.size and (int(row[0]) < 0 or int(row[-1]) >= d):
            raise ParameterError(f"sets[{j}]: every item must lie in [0, {d - 1}]")
        rows.append(row)
    flat = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    counts = np.bincount(flat, minlength=d).astype(np.int64)

    def columns(cols: slice) -> np.ndarray:  # sorted: zeros, then the column's ones
        ones = counts[cols]
        return (np.arange(n)[:, None] >= (n - ones)[None, :]).astype(np.int64)

    centre = plan.centres(columns, rng)
    half = n // 2
    tau = plan.spreads(
        lambda cols: np.zeros((half, len(range(d)[cols])), dtype=np.int64),
        lambda: counts.tolist(),
        rng,
    )
    scales = integer_scales(tau, plan.p, plan.span)
    p = np.array(scales, dtype=np.int64)
    levels = plan.levels(scales)
    units = plan.units
    c = isqrt(d - 1) + 1 if d > 1 else 1

    def clip(centre: list[int]) -> tuple[int, list[int]]:
        m = np.array(centre, dtype=np.int64)
        absent, present = -m * p, (1 - m) * p  # each coordinate's w for a 0 and for a 1
        base = sum(int(a) * int(a) for a in absent.tolist())
        delta = [int(b) * int(b) - int(a) * int(a) for a, b in zip(absent, present, strict=True)]
        bounds = [ceil_sqrt(base + sum(delta[i] for i in row.tolist())) for row in rows]
        radius = levels[int(plan.radius.release_indices(level_of(bounds, levels), rng))]
        kept = np.zeros(d, dtype=np.int64)  # the ones of the rows that are not clipped
        total = np.zeros(d, dtype=np.int64)
        unclipped = 0
        for row, bound in zip(rows, bounds, strict=True):
            if 2 * bound * units <= radius * (2 * units - c):
                unclipped += 1
                kept[row] += 1
            else:
                w = absent.copy()
                w[row] = present[row]
                total += _rounded(w, 2 * units - c, 2 * bound)
        low, high = _rounded(absent, units, radius), _rounded(present, units, radius)
        total += (unclipped - kept) * low + kept * high
        return radius, total.tolist()

    return run_rounds(plan, centre, scales, clip, rng)
