"""Inverse-CDF searches whose steps and memory reads do not depend on the value found.

Paper: BV Alg 4.8 step 3 and Alg 4.11 step 4 (the binary search of a draw
among CDF values); Jin, McMurtry, Rubinstein & Ohrimenko 2022 (timing attacks
on samplers whose time depends on the value).  Proof note:
proofs_notes/geosample.md, section "Timing".

A plain binary search over a list of big Python ints leaks the value through
time in two ways, both measured (``benchmarks/bench_convolved.py --only others``):

* the number of steps of ``while low < high`` is ``floor`` or ``ceil`` of
  ``log2`` of the length, depending on where the answer lies;
* each step reads a big int somewhere in memory, and the entries next to the
  common answers stay in the cache while those of the tails do not.

:class:`LeadingWords` keeps, beside the sorted values, the leading bits of
each one in a contiguous ``array`` of 64-bit words (8 bytes an entry, so a
table of thousands fits in the first-level cache), and searches with a fixed
number of steps.  A step compares the key's word with the entry's word.  When
the key's word is some entry's (one look in a hash set; a chance of about
``2^-61`` an entry for a uniform key) the full values are compared instead.
The result is exactly the least position whose value is at least the key:
words are ``floor(v / 2^s)`` plus a constant, monotone in ``v``, so unequal
words order their values.

>>> table = LeadingWords([10, 20, 30], low=0, high=40, bits=3)
>>> table.shift, [table.lower_bound(x, 0, 4, 2) for x in (5, 10, 11, 30, 31)]
(4, [0, 0, 1, 2, 3])
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ParameterError

__all__ = [
    "ENTRY_BYTES",
    "WORD_BITS",
    "LeadingWords",
    "fixed_lower_bound",
    "schedule",
    "steps_for",
]

#: The bits of a value kept in its word: words lie in ``[2^62, 2^63)`` (one bias bit),
#: so every word is a Python int of the same number of digits.
WORD_BITS = 62

#: Bytes an entry costs beyond its value: a list slot, its word, and the word in the
#: hash set of :class:`LeadingWords` (an int object and its slots).
ENTRY_BYTES = 130


def steps_for(length: int) -> int:
    """``ceil(log2(length))``: the steps that find one of ``length`` positions.

    >>> [steps_for(m) for m in (1, 2, 3, 4, 5, 1001)]
    [0, 1, 2, 2, 3, 10]
    """
    return (length - 1).bit_length()


def schedule(length: int, steps: int) -> tuple[int, ...]:
    """The ``half`` of each step of a search over ``length`` positions.

    The halves do not depend on the answers (a step keeps ``length - half``
    positions either way), so they are computed once.  A step with ``half > 0``
    asks about position ``base + half - 1``; once one position is left
    (``half = 0``), a step asks again about position ``first``, whose answer
    the earlier steps decided (it is the answer or lies before it), so a
    symbolic draw does not branch on it and the result does not move.

    >>> schedule(5, 4)
    (2, 1, 1, 0)

    Raises:
        ParameterError: fewer than ``steps_for(length)`` steps.
    """
    if steps < steps_for(length):
        raise ParameterError(
            f"steps: got {steps}; a search over {length} positions needs {steps_for(length)}"
        )
    halves = []
    for _ in range(steps):
        half = length >> 1
        halves.append(half)
        length -= half
    return tuple(halves)


def fixed_lower_bound(less: Callable[[int], Any], first: int, length: int, steps: int) -> int:
    """The least position ``p`` in ``[first, first + length)`` where ``less(p)`` is false.

    The last position is taken to be false and is never asked about.  Exactly
    ``steps`` questions (``steps >= steps_for(length)``, a public number): see
    :func:`schedule`.
    """
    base = first
    for half in schedule(length, steps):
        base += half * bool(less(base + half - 1 if half else first))
    return base


class LeadingWords:
    """Sorted integers with their leading bits in one contiguous array of words.

    Args:
        values: non-decreasing integers.
        low, high: every value, and every key later searched, lies in ``[low, high]``.
        bits: the bits of ``v - low`` kept in a word (tests use a few, to make ties).

    Raises:
        ParameterError: the values are not sorted or leave ``[low, high]``.
    """

    __slots__ = ("_bias", "_schedules", "_shift", "_taken", "_values", "_words")

    def __init__(
        self, values: Sequence[int], *, low: int, high: int, bits: int = WORD_BITS
    ) -> None:
        if not 1 <= bits <= WORD_BITS:
            raise ParameterError(f"bits: got {bits}; it must lie in [1, {WORD_BITS}]")
        if (values and not low <= values[0] <= values[-1] <= high) or any(
            values[i] > values[i + 1] for i in range(len(values) - 1)
        ):
            raise ParameterError("values: they must be sorted and lie in [low, high]")
        # One bit more than high - low needs, so that low may be rounded down to a
        # multiple of 2^s: then a word is (v >> s) plus a constant, one shift a search.
        shift = max((high - low).bit_length() + 1 - bits, 0)
        self._shift = shift
        self._bias = (1 << bits) - (low >> shift)
        self._values = values
        self._words = array("Q", [(v >> shift) + self._bias for v in values])
        # The words a key's may tie with; none when words are exact (shift 0).
        self._taken = frozenset(self._words) if shift else frozenset()
        self._schedules: dict[tuple[int, int], tuple[tuple[int, ...], int]] = {}

    @property
    def shift(self) -> int:
        """``s``: a word is ``floor(v / 2^s)`` plus a constant; 0 makes words exact."""
        return self._shift

    @property
    def values(self) -> Sequence[int]:
        """The values searched."""
        return self._values

    def __len__(self) -> int:
        return len(self._values)

    def lower_bound(self, key: Any, first: int, length: int, steps: int) -> int:
        """The least position ``p`` in ``[first, first + length)`` with ``values[p] >= key``.

        The caller knows that the last position qualifies; it is never read (it may
        lie past the table).  Exactly ``steps`` steps, see :func:`schedule`.  An
        ``int`` key is compared word by word; any other key (a symbolic draw of the
        checker) with the values themselves: the same positions, the same function.
        """
        plan = self._schedules.get((length, steps))
        if plan is None:
            halves = schedule(length, steps)
            splits = tuple(h for h in halves if h)  # the zero halves come last
            plan = self._schedules[length, steps] = (splits, len(halves) - len(splits))
        values = self._values
        word = (key >> self._shift) + self._bias if type(key) is int else None
        if word is None or word in self._taken:
            # A symbolic draw, or a key whose word is some value's when words are not
            # exact (a chance of about 2^-61 a value for a uniform key): the values decide.
            return fixed_lower_bound(lambda p: values[p] < key, first, length, steps)
        # No value's word equals the key's, so a word comparison decides its values'.
        # fixed_lower_bound, inlined (this is every sample's loop); the repeated
        # questions are asked for their time only.
        words, base = self._words, first
        splits, repeats = plan
        for half in splits:
            base += half * (words[base + half - 1] < word)
        for _ in range(repeats):
            base += 0 * (words[first] < word)
        return base
