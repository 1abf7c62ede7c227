"""DistinctSample: a uniformly random sequence of distinct elements avoiding a set.

Paper: BV Appendix A (Lemma A.1, Prop A.2, Alg A.3).

The excluded set lives in an order-statistic structure (a
``sortedcontainers.SortedList``: rank queries in logarithmic time, BV Prop
A.2).  Each of the ``r`` elements costs one oracle draw ``z`` uniform in
``[1, m']`` with ``m' = |X| - |T|``, then a binary search over ``X`` for the
least ``x`` with ``x - rank_T(x) = z``: the ``z``-th element of ``X`` not in ``T``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from sortedcontainers import SortedList

from ..errors import ParameterError
from ..oracle import RandomSource, default_source, draw
from ..params import short_int

__all__ = ["distinct_sample"]


def distinct_sample(
    excluded: Iterable[int], universe_size: int, r: int, rng: RandomSource | None = None
) -> tuple[int, ...]:
    """``DistinctSample(A, r)``: ``r`` distinct elements of ``[1, m] \\ A``, uniformly ordered.

    Paper: BV Alg A.3, Lemma A.1.

    Oracle calls: ``r`` draws, the ``i``-th (from 0) in ``[1, m - |A| - i]``.

    Args:
        excluded: the set ``A`` (distinct ints in ``[1, m]``).
        universe_size: ``m = |X|``.
        r: how many elements, at most ``m - |A|``.
        rng: the randomness source (the OS CSPRNG by default).

    Returns:
        The sequence ``(s_1, ..., s_r)``; every sequence of distinct elements of
        ``X \\ A`` is equally likely.

    Raises:
        ParameterError: ``r`` larger than ``|X \\ A|``, or an excluded value outside ``X``.
    """
    taken = SortedList(set(excluded))
    if taken and not (taken[0] >= 1 and taken[-1] <= universe_size):
        raise ParameterError(f"excluded: values must lie in [1, {short_int(universe_size)}]")
    if not 0 <= r <= universe_size - len(taken):
        raise ParameterError(
            f"r: got {r}; it must lie in [0, |X \\ A|] = [0, {universe_size - len(taken)}]"
        )
    source = rng or default_source()
    chosen: list[int] = []
    for _ in range(r):
        z = draw(source, universe_size - len(taken))
        s = _select_free(taken, universe_size, z)
        taken.add(s)
        chosen.append(s)
    return tuple(chosen)


def _select_free(taken: SortedList, universe_size: int, z: object) -> int:
    """The least ``x`` in ``[1, m]`` with ``x - |{t in T : t <= x}| >= z`` (Alg A.3 step 3c).

    ``x - rank(x)`` counts the free elements up to ``x`` and is non-decreasing,
    so the least ``x`` reaching ``z`` is the ``z``-th free element.  Below the
    ``i``-th taken element (from 0) lie ``t_i - 1 - i`` free ones, also
    non-decreasing in ``i``: the least ``i`` with ``t_i - 1 - i >= z`` is the number
    of taken elements below the answer, which is then ``z + i``.  That is
    ``O(log^2 |T|)`` operations where a search over ``X`` costs ``O(log |X|)``
    operations on ``log |X|``-bit integers (a 60 KB key makes ``|X| = 2^524288``).
    A symbolic draw of :mod:`finitedp.checker` is only compared: its search
    continues over the run of free elements that holds the answer.
    """
    low, high = 0, len(taken)
    while low < high:
        mid = (low + high) // 2
        if taken[mid] - 1 - mid >= z:
            high = mid
        else:
            low = mid + 1
    if type(z) is int:
        return z + low
    # In the run of free elements between taken[low - 1] and taken[low], x - rank(x) = x - low.
    first = taken[low - 1] + 1 if low else 1
    last = taken[low] - 1 if low < len(taken) else universe_size
    symbolic = cast(int, z)  # compared with ints only, as the checker requires
    while first < last:
        mid = (first + last) // 2
        if mid - low >= symbolic:
            last = mid
        else:
            first = mid + 1
    return first
