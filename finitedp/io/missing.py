"""Missing values: a declared policy per release, ``--nulls refuse|key|VALUE``.

A value is *missing* when Parquet holds a NULL, or (under a policy other than
``refuse``) a CSV field is empty.  Each policy is decided from public values before
the file is read:

* ``refuse`` (the default): a missing value stops the release, and the message
  names the column, the row and these options.  In a CSV key column an empty field
  is then the empty string, a key like any other (the reading before policies).
* ``VALUE``: every missing value is replaced by the public ``VALUE`` (a key of the
  universe, or a point of the column's grid), checked before reading.
* ``key`` (key columns): missing values are counted as their own key, ``(null)``;
  a declared key list gets it as one more key.

Why the guarantee is unchanged (``proofs_notes/missing_values.md``): imputation is
a row-wise map ``f`` (each row's image depends on that row alone), so neighbouring
datasets ``D ~ D'`` (replace one row, add or remove one, or ``l1`` distance one) have
neighbouring images ``f(D) ~ f(D')``; the mechanism run on ``f(D)`` is as private
with respect to ``D`` as it is stated, and ``n`` is the same public number.  The
accuracy statements are about ``f(D)``: an imputed value counts as that value.
Dropping rows (which makes the count of present values private) is not offered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from ..errors import FiniteDPError, ParameterError
from .inputs import InputFile

__all__ = ["NULL_KEY", "REFUSE", "fill_missing", "null_policies"]

#: The key missing values are counted as under ``--nulls key``.
NULL_KEY = "(null)"
#: The default policy.
REFUSE = "refuse"


def null_policies(text: str | None, columns: Sequence[str], keys: bool) -> list[str]:
    """One policy per column from ``--nulls``: one for all, or one per column (``,``).

    Args:
        text: the flag's value (``None``: refuse).
        columns: the columns read, in order.
        keys: whether they are key columns (``key`` is allowed) or numeric ones.

    Raises:
        ParameterError: a wrong number of policies, or ``key`` for a numeric column.
    """
    if text is None:
        return [REFUSE] * len(columns)
    parts = [text] if keys else text.split(",")
    if len(parts) == 1:
        parts *= len(columns)
    if len(parts) != len(columns):
        raise ParameterError(
            f"--nulls: got {len(parts)} policies for {len(columns)} columns; give one for "
            "all, or one per column (refuse, or a value to put in place of a missing one)"
        )
    for column, policy in zip(columns, parts, strict=True):
        if policy == "key" and not keys:
            raise ParameterError(
                f"--nulls: 'key' counts missing keys as a bin; {column!r} is a numeric column: "
                "give refuse or a value on its grid"
            )
    return [NULL_KEY if p == "key" else p for p in parts]


def fill_missing(
    source: InputFile,
    columns: Sequence[str | None],
    policies: Sequence[str],
    check: Callable[[int, str], object],
) -> InputFile:
    """``source`` with each column's replacement for missing values; each checked first.

    Args:
        source: the input.
        columns: the columns read (``None``: a text file's only column, whose lines are
            never missing).
        policies: from :func:`null_policies`.
        check: ``check(i, value)`` refuses a replacement that column ``i`` cannot hold
            (outside the universe, off the grid); called before any data is read.

    Raises:
        ParameterError: a replacement refused (the message names ``--nulls``).
    """
    fills: list[tuple[str, str]] = []
    for i, (column, policy) in enumerate(zip(columns, policies, strict=True)):
        if policy == REFUSE or column is None:
            continue
        try:
            check(i, policy)
        except FiniteDPError as error:
            raise ParameterError(f"--nulls: {policy!r} for column {column!r}: {error}") from None
        fills.append((column, policy))
    return dataclasses.replace(source, missing=tuple(fills)) if fills else source
