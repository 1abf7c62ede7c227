"""The public construction of :class:`~.convolved.ConvolvedGaussian`: levels, tables, layout.

Paper: the law of proofs_notes/convolved_gaussian.md, ``Z = J_0 + L J_1 + ... + L^n B``.
Everything here is decided from public values (``sigma^2`` and the design):

* :func:`plan_levels`: how many levels, and ``sigma_B^2``;
* :func:`normal_table`: a symmetric table whose weights sum to exactly ``2^Q``:
  ``w(z) = floor(X exp(-z^2/(2 sigma^2)))`` for ``z != 0`` with
  ``X = floor(2^Q / G)``, ``G`` the theta sum (:func:`gaussian_scale`), and ``w(0)``
  the rest of ``2^Q``, at least ``X``;
* :func:`alias_table`: its exact alias table over ``N = 2^a`` columns (zero
  weights pad the support ``[-R, R]``), so a draw is ``a + Q`` uniform bits;
* :class:`Level`: the layout a draw reads.

>>> t = normal_table(Fraction(1), 16)
>>> t.scale, t.radius, t.weights, 2 * sum(t.weights) - t.weights[0] == 2**16
(26145, 4, (26150, 15857, 3538, 290, 8), True)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from ..errors import ParameterError
from ..params import short_fraction
from .alias import AliasTable
from .gaussiantable import largest_scaled_radius, scaled_floor_weights
from .smoothing import theta_bounds

__all__ = [
    "DEFAULT_DESIGN",
    "OFFSET",
    "GaussianDesign",
    "Level",
    "NormalTable",
    "alias_table",
    "convolve",
    "convolved_moments",
    "gaussian_scale",
    "half_moments",
    "least_tail",
    "normal_table",
    "plan_levels",
    "tail_mass",
]

#: Every value is stored plus this, so that all are long ints made for their column and
#: every partial sum has the same size (timing; see :class:`Level`).
OFFSET = 1 << 120

#: Columns are numbered from ``2^COLUMN_BITS`` (see :class:`Level`).
COLUMN_BITS = 40


@dataclass(frozen=True)
class GaussianDesign:
    """The public constants of the construction (the defaults are the law finitedp uses).

    Args:
        lattice: ``L``, the step between levels.
        base_sigma2: ``sigma_J^2`` of the table every ``J_k`` is drawn from.
        base_bits: ``Q_J``: ``J``'s weights sum to ``2^Q_J``.
        top_bits: ``Q_B``: ``B``'s weights sum to ``2^Q_B``.
        top_min_sigma2: the least ``sigma_B^2`` once ``n >= 1``.
    """

    lattice: int = 16
    base_sigma2: Fraction = Fraction(48 * 48)
    base_bits: int = 192
    top_bits: int = 192
    top_min_sigma2: Fraction = Fraction(144)

    def __post_init__(self) -> None:
        if self.lattice < 2 or self.base_bits < 4 or self.top_bits < 4:
            raise ParameterError("design: need lattice >= 2 and table bits >= 4")
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


@dataclass(frozen=True)
class NormalTable:
    """A symmetric table ``w(0..R)`` with ``w(0) + 2 (w(1) + ... + w(R)) = 2^bits``."""

    sigma2: Fraction
    bits: int  # Q
    scale: int  # X = floor(2^Q / G); w(z) = floor(X g(z)) for z != 0
    radius: int  # R: the last z with w(z) >= 1
    weights: tuple[int, ...]  # w(0), ..., w(R)

    @property
    def above(self) -> Fraction:
        """``w(0)/X - 1 >= 0``: how far the centre sits above ``X g(0) = X``."""
        return Fraction(self.weights[0] - self.scale, self.scale)


def gaussian_scale(sigma2: Fraction, bits: int) -> int:
    """``X = floor(2^Q / G)``, exactly, with ``G = sum_z exp(-z^2/(2 sigma^2))`` (the theta
    sum; :func:`~.smoothing.theta_bounds`), from brackets narrowed until they agree.

    >>> gaussian_scale(Fraction(1), 16)   # 65536 / 2.50662827...
    26145
    """
    precision = bits + 16
    while True:
        low, high = theta_bounds(sigma2, precision)
        top = Fraction(1 << bits)
        # low < G < high strictly (an infinite tail is always left out or bounded above),
        # so floor(2^Q / G) lies in [floor(2^Q / high), ceil(2^Q / low) - 1]
        x_low, above = int(top / high), top / low
        x_high = -(-above.numerator // above.denominator) - 1
        if x_low == x_high:
            return x_low
        precision *= 2


@functools.lru_cache(maxsize=64)
def normal_table(sigma2: Fraction, bits: int) -> NormalTable:
    """The table of ``sigma^2`` whose weights sum to ``2^bits`` (module notes).

    ``sum_{z != 0} floor(X g(z)) <= X (G - 1) <= 2^Q - X``, so ``w(0) >= X``: the
    centre takes what the floors leave, ``above`` it by at most ``(G + 2R)/X``.

    Raises:
        ParameterError: every weight but ``w(0)`` would be 0 (a point mass).
    """
    scale = gaussian_scale(sigma2, bits)
    radius = largest_scaled_radius(sigma2, scale)
    if radius < 1:
        raise ParameterError(
            f"sigma^2: got {short_fraction(sigma2)}; with weights summing to 2^{bits} every "
            f"weight but the centre's is 0, so the law is a point mass (no noise); use a "
            f"larger sigma"
        )
    rest = scaled_floor_weights(sigma2, radius, scale)
    centre = (1 << bits) - 2 * sum(rest)
    if centre < scale:  # pragma: no cover - X G <= 2^Q (module notes)
        raise AssertionError("the centre weight fell below X")
    return NormalTable(sigma2, bits, scale, radius, (centre, *rest))


@functools.lru_cache(maxsize=64)
def alias_table(sigma2: Fraction, bits: int) -> AliasTable:
    """The alias table of :func:`normal_table` over ``2^a >= 2R + 1`` columns."""
    table = normal_table(sigma2, bits)
    r, w = table.radius, table.weights
    columns = 1 << (2 * r).bit_length()
    return AliasTable([w[abs(i - r)] if i <= 2 * r else 0 for i in range(columns)])


def column_bits(table: AliasTable) -> int:
    """``a``: the table has ``2^a`` columns."""
    return table.columns.bit_length() - 1


def field_words(bits: int) -> int:
    """64-bit words of one level's field: ``ceil(Q/64)`` for the offset, one for the column."""
    return -(-bits // 64) + 1


class Level:
    """One level's sampling data, laid out so that CPython's work does not follow the value.

    A level reads a field of the draw: ``m = ceil(Q/64)`` words of offset ``r`` and
    one word ``h`` whose low ``a`` bits are the column ``c``.  The offset is
    compared in all ``64 m`` bits with the threshold scaled to them,
    ``t_c = thr_c 2^(64m - Q)``: ``Pr[r < t_c] = thr_c / 2^Q`` as in the table.
    The comparison is the carry out of an addition: with the field ``f``,
    ``((f + 2^(64m) - t_c) >> 64m) - h`` is 0 when ``r < t_c`` (own value) and 1
    otherwise (alias).  Every operand keeps its length whatever the outcome: ``f``
    and ``h`` have random top bits, an addition runs over every digit of its longer
    operand, and nothing is compared with ``<``, which on two ints stops at the
    first differing digit.  The column is looked up as ``2^40 + c``, made by
    ``(h | 2^40) & (2^40 + 2^a - 1)``: a fresh two-digit int (CPython shares the
    ints ``-5..256``, so a plain column number would cost less below 257).  Both
    values of a column, each plus :data:`OFFSET` (long ints made for the column),
    are added and the one not taken subtracted: a draw touches one column's
    objects, chosen uniformly, and the same ones whichever value it takes (reading
    only the own value would leave it cold in the tails, where it is rarely taken,
    and hot in the centre: a cache-timing difference).
    """

    __slots__ = ("alias", "entries", "field", "field_mask", "key_mask", "offset_bits", "own", "thr")

    def __init__(self, table: AliasTable, bits: int, radius: int, scale: int) -> None:
        words = field_words(bits)
        self.offset_bits = 64 * (words - 1)
        self.field = 64 * words
        self.field_mask = (1 << self.field) - 1
        self.key_mask = (1 << COLUMN_BITS) | ((1 << column_bits(table)) - 1)
        up = self.offset_bits - bits
        values = [(c - radius) * scale for c in range(table.columns)]
        self.thr = [t << up for t in table.thresholds]
        self.entries = {
            (1 << COLUMN_BITS) + c: (
                values[c] + OFFSET,
                values[a] + OFFSET,
                (1 << self.offset_bits) - t,
            )
            for c, (a, t) in enumerate(zip(table.aliases, self.thr, strict=True))
        }
        # the same table as flat arrays, for the vectorised path of ConvolvedGaussian
        self.own = values
        self.alias = [values[a] for a in table.aliases]


def least_tail(half: Sequence[int], beta: Fraction) -> int:
    """The least ``m`` with ``Pr[|X| > m] <= beta`` for the symmetric law of ``half``."""
    total = 2 * sum(half) - half[0]
    above = 0  # sum of w(y) for y > m, from the top down
    for m in range(len(half) - 1, -1, -1):
        if 2 * above > beta * total:
            return m + 1
        above += half[m]
    return 0


def convolve(top: Sequence[int], base: Sequence[int], lattice: int, levels: int) -> dict[int, int]:
    """The weights of ``J_0 + L J_1 + ... + L^n B`` from the half tables (small supports)."""
    rb, rj = len(top) - 1, len(base) - 1
    law = {y: top[abs(y)] for y in range(-rb, rb + 1)}
    for _ in range(levels):  # Z <- J + L Z
        nxt: dict[int, int] = {}
        for y, p in law.items():
            for j in range(-rj, rj + 1):
                z = lattice * y + j
                nxt[z] = nxt.get(z, 0) + p * base[abs(j)]
        law = nxt
    return law


def tail_mass(half: Sequence[int], m: int) -> Fraction:
    """``Pr[|X| > m]`` for the symmetric law of ``half``, exactly."""
    if m < 0:
        return Fraction(1)
    if m >= len(half) - 1:
        return Fraction(0)
    return Fraction(2 * sum(half[m + 1 :]), 2 * sum(half) - half[0])


def half_moments(half: Sequence[int], upto: int) -> list[Fraction]:
    """``E[X^q]`` for ``q = 0..upto`` of the symmetric law of ``half`` (0 for odd ``q``)."""
    total = 2 * sum(half) - half[0]
    out = [Fraction(1)]
    for q in range(1, upto + 1):
        if q % 2:
            out.append(Fraction(0))
        else:
            out.append(Fraction(2 * sum(w * z**q for z, w in enumerate(half) if z), total))
    return out


def convolved_moments(
    top: Sequence[int], base: Sequence[int], lattice: int, levels: int, upto: int
) -> list[Fraction]:
    """``E[Z^q]``, ``q = 0..upto``, of ``Z = J_0 + L J_1 + ... + L^n B`` (independent terms):
    ``E[(J + L Y)^q] = sum_i C(q, i) E[J^i] L^(q - i) E[Y^(q - i)]``, level by level."""
    moments = half_moments(top, upto)
    if levels:
        j = half_moments(base, upto)
        for _ in range(levels):
            moments = [
                sum(
                    (comb(q, i) * j[i] * lattice ** (q - i) * moments[q - i] for i in range(q + 1)),
                    Fraction(0),
                )
                for q in range(upto + 1)
            ]
    return moments
