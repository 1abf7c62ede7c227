"""The public grid of values that the quantiles and the vector sums read.

Values ``lower, lower + step, ..., upper`` (``N`` points, ``step > 0`` rational) are
kept as their indices ``0..N-1``: ``int64`` arrays, so the mechanisms compare and
count integers.  The grid is public; a value off it or out of bounds is refused by
name, never moved.

Paper: Lebeda thesis Section 4.1 (the grid of a column) and Alg 17 (PLAN's grid).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import cast

import numpy as np

from ..errors import ParameterError
from ..params import exact_fraction, positive_fraction, short_fraction

__all__ = ["Grid"]


class Grid:
    """The public grid ``lower + step * i`` for ``i = 0..N-1``, ``step > 0`` rational.

    >>> g = Grid("-1", "1", "1/2")
    >>> g.size, g.index(Fraction(1, 2)), g.value(4)
    (5, 3, Fraction(1, 1))
    """

    __slots__ = ("lower", "size", "step", "upper")

    def __init__(self, lower: object, upper: object, step: object = 1) -> None:
        self.lower = exact_fraction(lower, "lower")
        self.upper = exact_fraction(upper, "upper")
        self.step = positive_fraction(step, "step")
        span = (self.upper - self.lower) / self.step
        if span < 0 or span.denominator != 1:
            raise ParameterError(
                f"upper: got {short_fraction(self.upper)}; it must be lower + a whole number "
                f"of steps (lower = {short_fraction(self.lower)}, "
                f"step = {short_fraction(self.step)})"
            )
        self.size = int(span) + 1

    def index(self, value: object, where: str = "value") -> int:
        """The grid index of ``value``; refused off the grid or out of bounds."""
        if type(value) is int and self.step == 1 and self.lower.denominator == 1:
            i = value - int(self.lower)
        else:
            v = (exact_fraction(value, where) - self.lower) / self.step
            if v.denominator != 1:
                raise ParameterError(
                    f"{where}: got {short_fraction(exact_fraction(value, where))}; it is not "
                    f"on the grid {short_fraction(self.lower)} + k * {short_fraction(self.step)}"
                )
            i = int(v)
        if not 0 <= i < self.size:
            raise ParameterError(
                f"{where}: got {short_fraction(exact_fraction(value, where))}; it must lie in "
                f"[{short_fraction(self.lower)}, {short_fraction(self.upper)}]"
            )
        return i

    def indices(self, values: Sequence[object]) -> np.ndarray:
        """Every value's index, checked (the message names the first bad value's position).

        Plain ``int`` values on an integer grid of step 1 are checked in one numpy pass;
        anything else, or any value out of range, goes through :meth:`index` one by one.
        """
        plain = self.step == 1 and self.lower.denominator == 1 and self.size < 1 << 62
        if plain and all(type(v) is int for v in values):
            ints = cast("Sequence[int]", values)
            low = int(self.lower)
            if not ints or (low <= min(ints) and max(ints) < low + self.size):
                if low >= -(1 << 63) and low + self.size <= 1 << 63:
                    return np.array(ints, dtype=np.int64) - low
                return np.array([v - low for v in ints], dtype=np.int64)  # past int64: offsets
        if self.size > 1 << 63:
            raise ParameterError(
                f"values: the grid has about 2^{self.size.bit_length() - 1} points; indices "
                f"are int64, so at most 2^63"
            )
        return np.array(
            [self.index(v, f"values[{i}]") for i, v in enumerate(values)], dtype=np.int64
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Grid):
            return NotImplemented
        return (self.lower, self.step, self.size) == (other.lower, other.step, other.size)

    def __hash__(self) -> int:
        return hash((self.lower, self.step, self.size))

    def value(self, index: int) -> Fraction:
        """The grid point with this index."""
        return self.lower + index * self.step
