"""Misra-Gries sketches with dummy counters (Alg 12), streaming, O(1) amortised decrements.

Paper: Lebeda thesis Alg 12 (Misra-Gries with ``k`` dummy keys ``d+1..d+k`` and
zero counters kept), Fact 3.1 ([BKMT03]: ``f(x) - n/(k+1) <= f^(x) <= f(x)``),
Lemma 3.1 (neighbouring streams give sketches sharing ``k - 2`` keys), and
Section 3.5.1 (the standard sketch: zero counters dropped).

Neighbours: streams that differ by adding or removing one element (thesis
Def 3.1); the sketch itself is not private (see :mod:`.private`).

How the decrement stays O(1).  A counter is stored as ``s_x = c_x + gamma``,
where ``gamma`` counts the executions of Branch 2 ("decrement every counter"):
Branch 2 is ``gamma += 1``.  Keys are grouped by stored value in
``sortedcontainers.SortedList`` buckets, so the zero counters are the bucket
at ``gamma``: Branch 2 applies when it is empty, and Branch 3 replaces its
smallest key.  Branches 1 and 3 cost ``O(log k)``; memory is ``O(k)``.

>>> mg = MisraGries(k=2, universe_size=10)
>>> mg.extend([3, 3, 5, 7, 3])
>>> sketch = mg.sketch()
>>> sketch.counters, sketch.gamma, sketch.n      # 7 met no zero counter: a decrement
(((3, 2), (5, 0)), 1, 5)
>>> sketch.estimate(3), sketch.estimate(5), sketch.estimate(9)
(2, 0, 0)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sortedcontainers import SortedList

from ..errors import ParameterError
from ..params import check_positive_int, short_int

__all__ = ["MGSketch", "MisraGries", "misra_gries", "standard_misra_gries"]


@dataclass(frozen=True)
class MGSketch:
    """A Misra-Gries sketch ``(T, c)`` with the stream length and the decrement count.

    Attributes:
        k: the number of counters.
        universe_size: ``d``; real keys are ``1..d``, dummy keys ``d+1..d+k``.
        n: the stream length.
        gamma: how many times Branch 2 (decrement all) ran.
        counters: ``((key, count), ...)`` increasing in key: exactly ``k`` pairs
            (dummies and zero counts included) for Alg 12; only the positive
            counts of real keys when ``standard``.
        standard: the zero-dropped sketch of Section 3.5.1.
    """

    k: int
    universe_size: int
    n: int
    gamma: int
    counters: tuple[tuple[int, int], ...]
    standard: bool = False

    def __post_init__(self) -> None:
        check_positive_int(self.k, "k")
        check_positive_int(self.universe_size, "universe_size")
        keys = [key for key, _ in self.counters]
        if keys != sorted(set(keys)):
            raise ParameterError("counters: keys must be distinct and increasing")
        if any(c < 0 for _, c in self.counters) or len(keys) > self.k:
            raise ParameterError(f"counters: at most k = {self.k} non-negative counts")

    def estimate(self, x: int) -> int:
        """``f^(x)``: the counter of ``x``, 0 if ``x`` is not stored (Fact 3.1)."""
        return dict(self.counters).get(x, 0) if 1 <= x <= self.universe_size else 0

    def positive(self) -> dict[int, int]:
        """The real keys with a positive count."""
        return {x: c for x, c in self.counters if c > 0 and x <= self.universe_size}

    def to_standard(self) -> MGSketch:
        """Section 3.5.1: the same estimates with zero counters (and dummies) dropped."""
        kept = tuple((x, c) for x, c in self.counters if c > 0 and x <= self.universe_size)
        return MGSketch(self.k, self.universe_size, self.n, self.gamma, kept, standard=True)


class MisraGries:
    """Alg 12, streaming: ``update(x)``, ``extend(xs)``, ``sketch()``.

    Paper: Lebeda thesis Alg 12, Fact 3.1, Lemma 3.1.

    Neighbours: streams differing by one added or removed element (Def 3.1).

    Args:
        k: counters (at least 1).
        universe_size: ``d``; elements are ints in ``[1, d]``.

    Raises:
        ParameterError: a bad ``k`` or ``d``, or an element outside ``[1, d]``
            (the sketch is left as it was before that element).
    """

    __slots__ = ("_buckets", "_d", "_gamma", "_k", "_n", "_stored")

    def __init__(self, k: int, universe_size: int) -> None:
        self._k = check_positive_int(k, "k")
        self._d = check_positive_int(universe_size, "universe_size")
        dummies = range(self._d + 1, self._d + self._k + 1)
        self._stored: dict[int, int] = dict.fromkeys(dummies, 0)  # s_x = c_x + gamma
        self._buckets: dict[int, SortedList] = {0: SortedList(dummies)}
        self._gamma = 0
        self._n = 0

    @property
    def k(self) -> int:
        """The number of counters."""
        return self._k

    @property
    def universe_size(self) -> int:
        """``d``."""
        return self._d

    @property
    def n(self) -> int:
        """Elements seen so far."""
        return self._n

    def _take(self, key: int, value: int) -> None:
        bucket = self._buckets[value]
        bucket.remove(key)
        if not bucket:
            del self._buckets[value]

    def _put(self, key: int, value: int) -> None:
        self._stored[key] = value
        bucket = self._buckets.get(value)
        if bucket is None:
            self._buckets[value] = SortedList((key,))
        else:
            bucket.add(key)

    def update(self, x: int) -> None:
        """Process one element (Alg 12 step 3)."""
        if type(x) is not int or not 1 <= x <= self._d:
            raise ParameterError(
                f"element: got {x!r}; stream elements are ints in [1, {short_int(self._d)}]"
            )
        self._n += 1
        stored = self._stored.get(x)
        if stored is not None:  # Branch 1: x has a counter
            self._take(x, stored)
            self._put(x, stored + 1)
            return
        zeros = self._buckets.get(self._gamma)
        if zeros is None:  # Branch 2: every counter is at least 1
            self._gamma += 1
            return
        y = zeros[0]  # Branch 3: the smallest key with a zero count is replaced
        self._take(y, self._gamma)
        del self._stored[y]
        self._put(x, self._gamma + 1)

    def extend(self, xs: Iterable[int]) -> None:
        """:meth:`update` for every element, in order."""
        for x in xs:
            self.update(x)

    def sketch(self) -> MGSketch:
        """``(T, c)`` now, with ``n`` and ``gamma``: O(k log k)."""
        counters = tuple(sorted((x, s - self._gamma) for x, s in self._stored.items()))
        return MGSketch(self._k, self._d, self._n, self._gamma, counters)


def misra_gries(k: int, universe_size: int, stream: Iterable[int]) -> MGSketch:
    """Alg 12 on a whole stream: ``MG(k, S)``.

    Paper: Lebeda thesis Alg 12.
    """
    mg = MisraGries(k, universe_size)
    mg.extend(stream)
    return mg.sketch()


def standard_misra_gries(k: int, universe_size: int, stream: Iterable[int]) -> MGSketch:
    """The textbook Misra-Gries (zero counters dropped at once), as Section 3.5.1 means it.

    Paper: Lebeda thesis Section 3.5.1; [BKMT03].  Written independently of
    :class:`MisraGries` (a dict, ``O(k)`` per decrement) so that tests can check
    that :meth:`MGSketch.to_standard` of Alg 12 is this sketch.
    """
    k = check_positive_int(k, "k")
    d = check_positive_int(universe_size, "universe_size")
    counts: dict[int, int] = {}
    n = gamma = 0
    for x in stream:
        if type(x) is not int or not 1 <= x <= d:
            raise ParameterError(f"element: got {x!r}; stream elements are ints in [1, {d}]")
        n += 1
        if x in counts:
            counts[x] += 1
        elif len(counts) < k:
            counts[x] = 1
        else:
            gamma += 1
            counts = {y: c - 1 for y, c in counts.items() if c > 1}
    return MGSketch(k, d, n, gamma, tuple(sorted(counts.items())), standard=True)
