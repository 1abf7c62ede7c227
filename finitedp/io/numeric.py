"""Numeric columns on public grids: parsed from the command line, read exactly, summed.

``finitedp release FILE --mechanism vector-laplace --columns a,b --bounds -1:1,0:10
--grid 1/100,1`` declares, for each column, a public interval ``[lower, upper]`` and
grid step: every value must be ``lower + k step`` with ``0 <= k <= D``.  Values
are read as text (CSV fields, or Parquet values cast to ``VARCHAR`` by DuckDB;
never as floating point) and parsed exactly (``3``, ``-2.5``, ``7/4``); a value
off its grid or out of its bounds is refused, naming the file, the row (the CSV
line) and the column.  Memory follows the number of columns, not of rows.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import ParameterError, ResourceLimitError
from ..params import exact_fraction, positive_fraction, short_fraction
from ..resources import require_memory
from .missing import DROPPED
from .progress import Progress
from .tables import InputFile, labels_in_order, name_the_line
from .values import exact_value, shorten

__all__ = [
    "MAX_COLUMNS",
    "IntegerGrid",
    "NumericColumn",
    "check_rows",
    "parse_columns",
    "read_column_sums",
    "read_column_values",
]

#: Rows between progress updates.
PROGRESS_ROWS = 1 << 16

#: The most numeric columns one release reads from a CSV or Parquet file: DuckDB
#: keeps a buffer per column (10^4 of them passed its 1 GB after 20 s; 7,000 took 8 s).
MAX_COLUMNS = 4096


@dataclass(frozen=True)
class NumericColumn:
    """One column's public grid ``lower + k step``, ``k = 0..units``."""

    name: str
    lower: Fraction
    upper: Fraction
    step: Fraction

    @property
    def units(self) -> int:
        """``D = (upper - lower)/step``: the sensitivity in grid units."""
        return int((self.upper - self.lower) / self.step)

    def index(self, text: str, where: str, clamp: bool = False) -> int:
        """``k`` of one value, checked; with ``clamp``, a value outside the bounds is
        moved to the nearer bound first (``--clamp``: 1-Lipschitz per row, so the
        guarantee is unchanged; the document says the clamp was applied).

        Raises:
            ParameterError: naming ``where`` and the column, for a value that is not an
                exact number, outside ``[lower, upper]`` (without ``clamp``) or off the grid.
        """
        at = f"{where}, column {self.name!r}"
        if text == "":
            raise ParameterError(
                f"{at}: the value is missing (an empty field); give --nulls VALUE to read a "
                "public value in its place, or --nulls drop (sums and quantiles) to leave it out"
            )
        value = exact_value(text, at, "a bounded number", "3, -2.5 or 7/4")
        shown = shorten(text)
        if clamp:
            value = min(max(value, self.lower), self.upper)
        if not self.lower <= value <= self.upper:
            raise ParameterError(
                f"{at}: value {shown} is outside [{short_fraction(self.lower)}, "
                f"{short_fraction(self.upper)}] (--bounds)"
            )
        k = (value - self.lower) / self.step
        if k.denominator != 1:
            raise ParameterError(
                f"{at}: value {shown} is not on the grid {short_fraction(self.lower)} + k * "
                f"{short_fraction(self.step)} (--grid)"
            )
        return int(k)


def _per_column(text: str | None, count: int, flag: str, default: str | None) -> list[str]:
    if text is None:
        if default is None:
            raise ParameterError(f"{flag}: required with --columns (one per column, or one)")
        return [default] * count
    parts = [p.strip() for p in text.split(",")]
    if len(parts) == 1:
        return parts * count
    if len(parts) != count:
        raise ParameterError(
            f"{flag}: got {len(parts)} entries for {count} columns; give one per column, or one"
        )
    return parts


def parse_columns(columns: str | None, bounds: str | None, grid: str | None) -> list[NumericColumn]:
    """``--columns a,b``, ``--bounds lo:hi[,lo:hi]`` and ``--grid step[,step]`` (default 1).

    Raises:
        ParameterError: a missing or malformed flag, an empty or repeated name, an
            interval that is empty or not a whole number of steps.
    """
    if columns is None:
        raise ParameterError("--columns: required (the numeric columns to sum, a,b,c)")
    names = [c.strip() for c in columns.split(",")]
    if len(names) > MAX_COLUMNS:
        raise ResourceLimitError(
            f"--columns: got {len(names):,} columns; a CSV or Parquet release reads at most "
            f"{MAX_COLUMNS:,} (DuckDB holds a buffer per column); for wide 0/1 rows write one "
            "line of item ids per row and use --format baskets --items D"
        )
    if any(not n for n in names):
        raise ParameterError(f"--columns: got {shorten(columns)!r}; an empty column name")
    if len(set(names)) != len(names):
        raise ParameterError(f"--columns: got {shorten(columns)!r}; a column is named twice")
    out = []
    pairs = zip(
        names,
        _per_column(bounds, len(names), "--bounds", None),
        _per_column(grid, len(names), "--grid", "1"),
        strict=True,
    )
    for name, interval, step_text in pairs:
        low_text, sep, high_text = interval.partition(":")
        if not sep:
            raise ParameterError(f"--bounds: got {interval!r} for {name!r}; write lower:upper")
        lower = exact_fraction(low_text.strip(), "--bounds")
        upper = exact_fraction(high_text.strip(), "--bounds")
        step = positive_fraction(step_text, "--grid")
        span = (upper - lower) / step
        if span <= 0 or span.denominator != 1:
            raise ParameterError(
                f"--bounds: got {interval} for {name!r}; upper must be lower plus a positive "
                f"whole number of --grid steps ({short_fraction(step)})"
            )
        out.append(NumericColumn(name, lower, upper, step))
    return out


def _read(
    source: InputFile,
    columns: Sequence[NumericColumn],
    progress: Progress,
    clamp: bool,
    keep: list[array[int]] | None,
) -> tuple[int, list[int]]:
    """Every row's grid indices, checked: their sums, and each column's indices in ``keep``."""
    wanted = tuple((c.name, "--columns") for c in columns)
    if source.kind == "text":
        raise ParameterError(f"{source.name}: numeric columns need a CSV or Parquet file")
    sums = [0] * len(columns)
    n = 0

    def check(where: str, values: list[str]) -> None:
        for column, text in zip(columns, values, strict=True):
            if text != DROPPED:
                column.index(text, where, clamp)

    try:
        for where, values in labels_in_order(source, *wanted):
            for i, (column, text) in enumerate(zip(columns, values, strict=True)):
                if text == DROPPED:  # --nulls drop (counts only: no sum reads it)
                    continue
                k = column.index(text, where, clamp)
                sums[i] += k
                if keep is not None:
                    keep[i].append(k)
            n += 1
            if n % PROGRESS_ROWS == 0:
                progress.advance(PROGRESS_ROWS)
                if keep is not None:  # 8 bytes a value, and room for the arrays to grow
                    require_memory(
                        2 * 8 * n * len(columns),
                        "the columns' values",
                        f"{n} rows of {len(columns)} columns so far",
                    )
    except ParameterError as error:
        raise name_the_line(source, wanted, check, error) from None
    return n, sums


def read_column_values(
    source: InputFile, columns: Sequence[NumericColumn], progress: Progress, clamp: bool = False
) -> tuple[int, list[np.ndarray]]:
    """``n`` and each column's grid indices in file order (``int64``), every value checked.

    Memory is 8 bytes per value (twice while an array grows); above the memory limit
    (:func:`finitedp.resources.max_memory`) the read stops with a clear refusal.

    Raises:
        ParameterError: a value refused (naming the file, line or row, and column).
        ResourceLimitError: the values would not fit the memory limit.
    """
    for column in columns:  # the indices are int64: a grid of 2^62 points or more is refused
        if column.units >= 1 << 62:
            raise ParameterError(
                f"--bounds: column {column.name!r} has a grid of about "
                f"2^{column.units.bit_length()} points (--bounds and --grid); at most 2^62 "
                f"for a mechanism that reads each value"
            )
    keep: list[array[int]] = [array("q") for _ in columns]
    n, _ = _read(source, columns, progress, clamp, keep)
    return n, [np.frombuffer(column, dtype=np.int64) for column in keep]


def read_column_sums(
    source: InputFile, columns: Sequence[NumericColumn], progress: Progress, clamp: bool = False
) -> tuple[int, list[int]]:
    """``n`` and each column's sum in grid units (``sum of k``), every value checked
    (with ``clamp``, values beyond the bounds are moved to them first).

    Raises:
        ParameterError: a value refused (naming the file, the line of a CSV file or
            the row of a Parquet file, and the column), or an unreadable file.
    """
    return _read(source, columns, progress, clamp, None)


def check_rows(
    source: InputFile, columns: Sequence[NumericColumn], progress: Progress, clamp: bool = False
) -> int:
    """Read every row and check each value (the statistics engines' error path: the
    first refusal names its row or line).

    Returns:
        ``n``, if every value passes.
    """
    return _read(source, columns, progress, clamp, None)[0]


class IntegerGrid:
    """A column's grid seen from integer values: what the engines compute in SQL.

    With ``lower = a/b`` and ``step = p/q`` an integer ``v`` has index
    ``k = (v b - a) q / (b p)``, linear in ``v``: a column's sum of indices is
    ``(b q sum(v) - m a q) / (b p)`` over its ``m`` values inside the bounds, plus ``D`` for
    each value clamped down to ``upper``.  Where every integer is on the grid
    (:attr:`every_integer`) an engine needs only ``sum``, ``count`` and range counts, in
    its fast integer arithmetic.

    Attributes:
        low, high: the least and greatest integers in ``[lower, upper]``.
        every_integer: whether every integer in ``[low, high]`` is a grid point.
    """

    def __init__(self, column: NumericColumn, clamp: bool) -> None:
        self.column, self.clamp = column, clamp
        a, b = column.lower.numerator, column.lower.denominator
        p, q = column.step.numerator, column.step.denominator
        self._a, self._b, self._q, self._den = a, b, q, b * p
        self.low = -(-a // b)
        self.high = column.upper.numerator // column.upper.denominator
        self.every_integer = (b * q) % self._den == 0 and (a * q) % self._den == 0

    def index(self, v: int) -> int | None:
        """``k`` of the integer ``v`` (clamped first with ``clamp``), or ``None`` if refused."""
        if self.clamp and v < self.low:
            return 0
        if self.clamp and v > self.high:
            return self.column.units
        if not self.low <= v <= self.high:
            return None
        t = (v * self._b - self._a) * self._q
        return t // self._den if t % self._den == 0 else None

    def sum_of_indices(self, inside_sum: int, inside: int, above: int) -> int:
        """``sum k`` from ``sum(v)`` and ``count`` over ``[low, high]`` and the count above
        ``high`` (``every_integer`` only; below ``low`` a clamped value has ``k = 0``)."""
        t = (self._b * self._q) * inside_sum - inside * self._a * self._q
        assert self.every_integer and t % self._den == 0
        return t // self._den + above * self.column.units

    def sums_from(
        self, n: int, found: Sequence[Any], clamped: bool = False
    ) -> tuple[int, int] | None:
        """``(sum k, refused rows)`` of ``n`` rows from an engine's aggregates of ``v``
        (``every_integer`` only), or ``None`` where values beyond the bounds are to be
        clamped: then ask again with ``clamped``.

        Args:
            found: ``count(v)``, ``sum(v)``, ``min(v)``, ``max(v)``; with ``clamped``,
                ``count(v)`` and ``sum(v)``, ``count(v)`` over ``[low, high]``, and the
                count above ``high``.
        """
        if clamped:
            present, inside_sum, inside, above = (int(x or 0) for x in found)
            return self.sum_of_indices(inside_sum, inside, above), n - present
        present, total = int(found[0]), int(found[1] or 0)
        if present and not self.low <= int(found[2]) <= int(found[3]) <= self.high:
            return None if self.clamp else (0, 1)
        return self.sum_of_indices(total, present, 0), n - present
