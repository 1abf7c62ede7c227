"""Datasets: validation and true counts.

Paper: BV Section 2.1 (a dataset is an ordered tuple of n rows from X) and
Section 2.4 (``X = [m]_+``, the universe is indexed by ``1..m``).
"""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Iterable

from ..errors import ParameterError, ParameterTypeError
from ..params import check_positive_int, short_int

__all__ = ["check_dataset", "check_universe", "true_counts"]


def check_universe(universe_size: object, n: int | None = None, *, at_least: int = 1) -> int:
    """Validate ``|X| = m``: a positive int, at least ``at_least``.

    Raises:
        ParameterError: ``m`` is too small (the message names the bound).
    """
    m = check_positive_int(universe_size, "universe_size")
    if m < at_least:
        raise ParameterError(f"universe_size: got {m}; it must be at least {at_least}")
    return m


def check_dataset(data: Iterable[object], n: int, universe_size: int) -> tuple[int, ...]:
    """Validate a dataset of exactly ``n`` rows, each an int in ``[1, universe_size]``.

    Returns:
        The rows as a tuple of Python ints.

    Raises:
        ParameterError: a wrong number of rows, or a row outside the universe
            (the message names the first offending index).
        ParameterTypeError: a row that is not an int.
    """
    rows = tuple(data)
    if len(rows) != n:
        raise ParameterError(f"data: got {len(rows)} rows; the mechanism was built for n = {n}")
    return check_points(rows, universe_size, "data")


def check_points(values: Iterable[object], universe_size: int, name: str) -> tuple[int, ...]:
    """Every value an int (not a bool or float) in ``[1, universe_size]``, as Python ints.

    Raises:
        ParameterError: a value outside the universe (the message names its index).
        ParameterTypeError: a value that is not an int.
    """
    checked = []
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ParameterTypeError(f"{name}[{i}]: got {value!r}; it must be an int in [1, m]")
        point = int(value)
        if not 1 <= point <= universe_size:
            raise ParameterError(
                f"{name}[{i}]: got {short_int(point)}; it must lie in the universe "
                f"[1, {short_int(universe_size)}]"
            )
        checked.append(point)
    return tuple(checked)


def true_counts(rows: Iterable[int]) -> dict[int, int]:
    """``{x: c_x(D)}`` for the bins with a positive count, in increasing order of ``x``."""
    return dict(sorted(Counter(rows).items()))
