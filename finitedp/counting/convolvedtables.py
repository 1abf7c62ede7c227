"""The public construction of :class:`~.convolved.ConvolvedGaussian`: levels, tables, layout.

Paper: Lebeda thesis ch. 4-5 need the discrete Gaussian at any sigma; the law
is proofs_notes/convolved_gaussian.md's ``Z = J_0 + L J_1 + ... + L^n B``.
Everything here is decided from public values (``sigma^2`` and the design):
how many levels, ``sigma_B^2``, the two fixed-precision tables
(:mod:`.gaussiantable`), their alias tables (:mod:`.alias`), and the layout a
draw reads (:class:`Level`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..errors import ParameterError
from ..params import short_fraction
from .alias import AliasTable
from .gaussiantable import fixed_precision_weights, largest_radius

__all__ = [
    "DEFAULT_DESIGN",
    "OFFSET",
    "GaussianDesign",
    "Level",
    "alias_table",
    "floor_table",
    "least_tail",
    "plan_levels",
]

#: Every value is stored plus this, so that all are long ints made for their column and
#: every partial sum has the same size (timing; see :class:`_Level`).
OFFSET = 1 << 120

#: Columns are numbered from ``2^_COLUMN_BITS`` (see :class:`_Level`).
_COLUMN_BITS = 40


@dataclass(frozen=True)
class GaussianDesign:
    """The public constants of the construction (the defaults are the law finitedp uses).

    Args:
        lattice: ``L``, the step between levels.
        base_sigma2: ``sigma_J^2`` of the table every ``J_k`` is drawn from.
        base_precision: ``P_J``, bits of ``J``'s peak weight.
        top_precision: ``P_B``, bits of ``B``'s peak weight.
        top_min_sigma2: the least ``sigma_B^2`` once ``n >= 1``.
    """

    lattice: int = 16
    base_sigma2: Fraction = Fraction(48 * 48)
    base_precision: int = 128
    top_precision: int = 192
    top_min_sigma2: Fraction = Fraction(144)

    def __post_init__(self) -> None:
        if self.lattice < 2 or self.base_precision < 4 or self.top_precision < 4:
            raise ParameterError("design: need lattice >= 2 and precisions >= 4")
        if self.top_min_sigma2 <= 0 or self.base_sigma2 <= 0:
            raise ParameterError("design: variances must be positive")


DEFAULT_DESIGN = GaussianDesign()


def plan_levels(sigma2: Fraction, design: GaussianDesign) -> tuple[int, Fraction]:
    """``(n, sigma_B^2)``: the most levels with ``sigma_B^2 >= top_min_sigma2`` (public values).

    >>> plan_levels(Fraction(10**6), DEFAULT_DESIGN)
    (1, Fraction(15589, 4))
    """
    step = design.lattice * design.lattice
    levels, top = 0, sigma2
    while (top - design.base_sigma2) / step >= design.top_min_sigma2:
        levels, top = levels + 1, (top - design.base_sigma2) / step
    return levels, top


@functools.lru_cache(maxsize=64)
def floor_table(sigma2: Fraction, precision: int) -> tuple[int, tuple[int, ...]]:
    """``(R, (w(0), ..., w(R)))`` of the fixed-precision law, ``R`` the largest radius."""
    radius = largest_radius(sigma2, precision)
    if radius < 1:
        raise ParameterError(
            f"sigma^2: got {short_fraction(sigma2)}; at precision P = {precision} every weight "
            f"but w(0) is 0, so the law is a point mass (no noise); use a larger sigma"
        )
    return radius, tuple(int(w) for w in fixed_precision_weights(sigma2, radius, precision))


@functools.lru_cache(maxsize=64)
def alias_table(sigma2: Fraction, precision: int) -> AliasTable:
    radius, half = floor_table(sigma2, precision)
    return AliasTable([half[abs(z)] for z in range(-radius, radius + 1)])


class Level:
    """One level's sampling data, laid out so that CPython's work does not follow the value.

    A digit ``t`` in ``[0, N W)`` (column ``c = t // W``, offset ``t % W``) is read as
    ``y = t + 2^40 W``: every ``y`` has the same number of machine digits, and
    ``y // W = 2^40 + c`` is a fresh two-digit int (CPython shares the ints
    ``-5..256``, so a plain column number would cost less below 257).  The entry of
    column ``c`` is ``[own value, alias value, 2^Q - (2^40 W + c W + thr_c)]``: the
    own value is taken when ``y < 2^40 W + c W + thr_c``, that is when
    ``(y + entry[2]) >> Q`` is 0.  An addition runs over every digit of its
    longer operand and ``Q`` sits mid-digit, so the sum has the same length
    whatever the outcome: no comparison stops early on a shared prefix, as
    ``<`` on two ints does.  Every value is a separate object made for its
    column: a draw touches one column's objects, chosen uniformly, and none
    shared with other columns (a shared object would be hot for central values
    and cold for tail ones).
    """

    __slots__ = ("domain", "entries", "shift", "top", "total")

    def __init__(self, table: AliasTable, radius: int, scale: int) -> None:
        total = table.total
        self.domain, self.total = table.domain, total
        self.shift = total << _COLUMN_BITS
        bound_bits = (self.shift + table.domain).bit_length() + 2
        self.top = bound_bits + (15 - bound_bits) % 30  # Q = 15 mod 30: mid-digit
        self.entries = {
            (1 << _COLUMN_BITS) + c: [
                (c - radius) * scale + OFFSET,
                (a - radius) * scale + OFFSET,
                (1 << self.top) - (self.shift + c * total + t),
            ]
            for c, (a, t) in enumerate(zip(table.aliases, table.thresholds, strict=True))
        }


def least_tail(half: Sequence[int], beta: Fraction) -> int:
    """The least ``m`` with ``Pr[|X| > m] <= beta`` for the symmetric law of ``half``."""
    total = 2 * sum(half) - half[0]
    above = 0  # sum of w(y) for y > m, from the top down
    for m in range(len(half) - 1, -1, -1):
        if 2 * above > beta * total:
            return m + 1
        above += half[m]
    return 0
