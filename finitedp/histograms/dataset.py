"""Datasets: validation and true counts, from rows or from a histogram.

Paper: BV Section 2.1 (a dataset is an ordered tuple of n rows from X) and
Section 2.4 (``X = [m]_+``, the universe is indexed by ``1..m``).

Every histogram mechanism depends on a dataset only through its counts (BV's
algorithms read ``c_x(D)``), so each accepts the histogram ``{value: count}``
as well as the rows (:func:`dataset_counts`): same counts, same release, same
oracle calls, and memory for the distinct values only.
"""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ParameterError, ParameterTypeError
from ..params import check_positive_int, short_int

__all__ = ["check_dataset", "check_universe", "dataset_counts", "true_counts"]


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


def dataset_counts(
    data: Iterable[object] | Mapping[Any, Any], n: int, universe_size: int
) -> dict[int, int]:
    """The true counts ``{x: c_x(D)}`` of a dataset given as rows or as a histogram.

    A dataset is ``n`` rows (BV Section 2.1), or equivalently its histogram
    ``{value: count}``: every mechanism here depends on the data only through its
    counts, and both forms give the same counts, hence the same release and the
    same oracle calls.  The histogram form needs memory for the distinct values
    only.

    Args:
        data: ``n`` ints in ``[1, universe_size]``, or a mapping from such ints to
            positive int counts that sum to ``n``.
        n: the public number of rows.
        universe_size: ``|X|``.

    Returns:
        The positive counts, in increasing order of ``x``.

    Raises:
        ParameterError: a value outside the universe, a count that is not positive,
            or counts that do not sum to ``n`` (the message names the value).
        ParameterTypeError: a value or count that is not an int.

    >>> dataset_counts({7: 2, 3: 1}, 3, 10) == dataset_counts([7, 3, 7], 3, 10) == {3: 1, 7: 2}
    True
    """
    if not isinstance(data, Mapping):
        return true_counts(check_dataset(data, n, universe_size))
    counts: dict[int, int] = {}
    for key, count in data.items():
        (x,) = check_points([key], universe_size, "data value")
        if isinstance(count, bool) or not isinstance(count, numbers.Integral):
            raise ParameterTypeError(f"data[{x}]: got {count!r}; a count must be an int >= 1")
        if count < 1:
            raise ParameterError(f"data[{x}]: got {count}; a count must be >= 1 (omit zeros)")
        counts[x] = int(count)
    total = sum(counts.values())
    if total != n:
        raise ParameterError(f"data: the counts sum to {total}; the mechanism is for n = {n}")
    return dict(sorted(counts.items()))
