"""Missing values: a declared policy per release, ``--nulls refuse|key|drop|VALUE``.

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
* ``drop`` (numeric columns, where the mechanism says how it drops): a missing value
  is left out of what the column's statistic is computed over.  A sum drops it by
  adding nothing (the sum with 0 in its place: 0 must be a grid point); a quantile
  drops it from the counts and takes its target rank from the count of the values
  present, which is then never released (``proofs_notes/missing_values.md`` shows
  the rank error keeps sensitivity 1, so the guarantee is unchanged).  PLAN's mean
  divides by the public ``n`` and does not drop.

Why the guarantee is unchanged (``proofs_notes/missing_values.md``): imputation is
a row-wise map ``f`` (each row's image depends on that row alone), so neighbouring
datasets ``D ~ D'`` (replace one row, add or remove one, or ``l1`` distance one) have
neighbouring images ``f(D) ~ f(D')``; the mechanism run on ``f(D)`` is as private
with respect to ``D`` as it is stated, and ``n`` is the same public number.  The
accuracy statements are about ``f(D)``: an imputed value counts as that value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from ..errors import FiniteDPError, ParameterError
from .inputs import InputFile

__all__ = ["DROP", "DROPPED", "NULL_KEY", "REFUSE", "fill_missing", "null_policies"]

#: The key missing values are counted as under ``--nulls key``.
NULL_KEY = "(null)"
#: The default policy.
REFUSE = "refuse"
#: The policy that leaves missing values out of a column's statistic.
DROP = "drop"
#: The text every engine reads for a dropped value of a counted column, and skips: no
#: CSV or Parquet text holds a NUL byte where a number is read (refused as a number).
DROPPED = "\u0000finitedp-dropped\u0000"


def null_policies(
    text: str | None, columns: Sequence[str], keys: bool, drops: str | None = None
) -> list[str]:
    """One policy per column from ``--nulls``: one for all, or one per column (``,``).

    Args:
        text: the flag's value (``None``: refuse).
        columns: the columns read, in order.
        keys: whether they are key columns (``key`` is allowed) or numeric ones.
        drops: how the mechanism drops a missing value (``None``: it does not; ``drop``
            is refused), :attr:`~finitedp.entries.ColumnEntry.drops`.

    Raises:
        ParameterError: a wrong number of policies, ``key`` for a numeric column, or
            ``drop`` where the mechanism cannot drop.
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
                "give refuse, drop, or a value on its grid"
            )
        if policy == DROP and (keys or drops is None):
            raise ParameterError(
                f"--nulls: 'drop' for {column!r}: "
                + (
                    "a histogram counts every row (n is public): count missing keys with "
                    "'key', or give a key to read in their place"
                    if keys
                    else "this mechanism divides by the public n and cannot leave rows out: "
                    "give a value to read in their place (or release sums or quantiles, "
                    "which drop)"
                )
            )
    return [NULL_KEY if p == "key" else p for p in parts]


def fill_missing(
    source: InputFile,
    columns: Sequence[str | None],
    policies: Sequence[str],
    check: Callable[[int, str], object],
    drops: str | None = None,
) -> InputFile:
    """``source`` with each column's replacement for missing values; each checked first.

    Args:
        source: the input.
        columns: the columns read (``None``: a text file's only column, whose lines are
            never missing).
        policies: from :func:`null_policies`.
        check: ``check(i, value)`` refuses a replacement that column ``i`` cannot hold
            (outside the universe, off the grid); called before any data is read.
        drops: how ``drop`` is read (:attr:`~finitedp.entries.ColumnEntry.drops`):
            ``"zero"``, a sum's ``0`` (a missing value adds nothing; checked on the
            grid), or ``"skip"``, :data:`DROPPED` (the engines leave it out of counts).

    Raises:
        ParameterError: a replacement refused (the message names ``--nulls``).
    """
    fills: list[tuple[str, str]] = []
    for i, (column, policy) in enumerate(zip(columns, policies, strict=True)):
        if policy == REFUSE or column is None:
            continue
        value = policy
        if policy == DROP:
            value = "0" if drops == "zero" else DROPPED
        if value != DROPPED:
            try:
                check(i, value)
            except FiniteDPError as error:
                because = (
                    "a sum drops a missing value by adding nothing, as 0 in its place does; "
                    "widen the column's bounds to hold 0, or give a value to read instead: "
                    if policy == DROP
                    else ""
                )
                shown = DROP if policy == DROP else repr(policy)
                raise ParameterError(
                    f"--nulls: {shown} for column {column!r}: {because}{error}"
                ) from None
        fills.append((column, value))
    return dataclasses.replace(source, missing=tuple(fills)) if fills else source
