"""Universal hashing ``[d] -> [s]`` with collision probability exactly ``1/s``.

Paper: Lebeda thesis Section 2.2 ("Universal Hashing": a family is universal if
two different keys collide with probability at most ``1/|R|``), Alg 2 (a
sequence ``h = (h_1, ..., h_m)`` of independent universal hash functions).

The family is Dietzfelbinger's *multiply-add-shift* (STACS 1996; Thorup,
"High speed hashing for integers and strings", 2015): for keys below ``2^w``,
``s = 2^l`` buckets and a word of ``W >= w + l - 1`` bits,

    h_{a,b}(x) = ((a*x + b) mod 2^W) >> (W - l),    a, b uniform in [0, 2^W).

It is *strongly* universal: for keys ``x != y`` the pair ``(h(x), h(y))`` is
uniform on ``[s]^2``, so two keys collide with probability exactly ``1/s``
(proof in ``proofs_notes/alp_hashing.md``).  finitedp takes ``W`` to be the least
multiple of 64 that is at least ``w + l - 1``, so that for universes up to
``2^(65 - l)`` a hash is one wrapping 64-bit multiply-add (numpy), and larger
universes (``2^64`` and beyond) use Python integers with the same result.
Buckets are numbered ``0 .. s - 1`` here (the paper's ``1 .. s``).

Each function costs two oracle calls ``uniform(2^W)`` (``a = u - 1``, then
``b = u - 1``); a sequence of ``m`` functions is drawn ``a_1, b_1, ..., a_m, b_m``.

>>> h = HashSequence(universe_size=10, s=4, a=(3, 5), b=(7, 11))
>>> h.word, h.rows(6)        # ((3*6 + 7) mod 2^64) >> 62 = 0, and likewise
(64, (0, 0))
>>> HashTable(s=5, table=((2, 3), (1, 4))).rows(2)   # an explicit table, as in the thesis' figures
(1, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError
from ..jsonvalues import json_int, parse_count
from ..oracle import RandomSource, draw
from ..params import check_positive_int, short_int

__all__ = ["HashSequence", "HashTable", "Hashes", "check_buckets", "word_bits"]

Rows = npt.NDArray[np.int64]

#: The widest word accepted (keys of up to about 65,000 bits).
MAX_WORD = 1 << 16


class Hashes(Protocol):
    """A sequence ``h_1, ..., h_m`` of maps ``[1, universe_size] -> [0, s)``."""

    @property
    def universe_size(self) -> int: ...

    @property
    def s(self) -> int: ...

    @property
    def m(self) -> int: ...

    def rows(self, x: int) -> tuple[int, ...]:
        """``(h_1(x), ..., h_m(x))``."""
        ...

    def rows_of(self, keys: Sequence[int]) -> Rows:
        """An ``(m, len(keys))`` array: column ``t`` is ``rows(keys[t])``."""
        ...

    def column(self, j: int, keys: Sequence[int]) -> Rows:
        """``h_{j+1}`` of every key (``j`` in ``[0, m)``; keys unchecked): a row of ``rows_of``."""
        ...


def check_buckets(s: object, name: str = "s") -> int:
    """``s`` as an int power of two (the family maps to ``[0, 2^l)``).

    Raises:
        ParameterError: ``s`` is not a power of two ``>= 1``.
    """
    s = check_positive_int(s, name)
    if s & (s - 1):
        raise ParameterError(
            f"{name}: got {short_int(s)}; it must be a power of two (the hash family "
            f"multiply-add-shift maps to [0, 2^l)), e.g. {1 << s.bit_length()}"
        )
    return s


def word_bits(universe_size: int, s: int) -> int:
    """``W``: the least multiple of 64 that is ``>= w + l - 1`` (``w = bits(d)``, ``s = 2^l``)."""
    need = universe_size.bit_length() + (s.bit_length() - 1) - 1
    return max(64, -(-need // 64) * 64)


@dataclass(frozen=True)
class HashSequence:
    """``m`` independent multiply-add-shift functions ``[1, d] -> [0, s)``.

    Paper: Lebeda thesis Section 2.2 (universal hashing), Alg 2 (input ``h``).

    Attributes:
        universe_size: ``d``; keys are ``1 .. d``.
        s: the number of buckets, a power of two.
        a: the multipliers ``a_1 .. a_m`` in ``[0, 2^W)``.
        b: the offsets ``b_1 .. b_m`` in ``[0, 2^W)``.
        word: ``W``; 0 (the default) means :func:`word_bits`, the choice every
            release uses.  Any ``W >= w + l - 1`` keeps the exact ``1/s``
            (tests enumerate the family at small ``W``).

    Raises:
        ParameterError: ``s`` not a power of two, ``a`` and ``b`` of different
            lengths, or a value outside ``[0, 2^W)``.
    """

    universe_size: int
    s: int
    a: tuple[int, ...]
    b: tuple[int, ...]
    word: int = 0
    _arrays: Any = field(default=None, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        check_positive_int(self.universe_size, "universe_size")
        check_buckets(self.s)
        need = self.universe_size.bit_length() + self.s.bit_length() - 2
        if self.word == 0:
            object.__setattr__(self, "word", word_bits(self.universe_size, self.s))
        elif type(self.word) is not int or self.word < max(need, self.s.bit_length() - 1):
            raise ParameterError(
                f"word: got {self.word!r}; multiply-add-shift needs W >= w + l - 1 = {need}"
            )
        if len(self.a) != len(self.b):
            raise ParameterError(f"a, b: got {len(self.a)} and {len(self.b)} values; need equal")
        if self.word > MAX_WORD:
            raise ParameterError(
                f"universe_size: a universe of {self.universe_size.bit_length()}-bit keys needs "
                f"hash words of {self.word} bits; multiply-add-shift takes at most {MAX_WORD} "
                f"(keys of at most {MAX_WORD - self.s.bit_length() + 1} bits: utf8:L with "
                f"L <= {(MAX_WORD - self.s.bit_length() - 63) // 8})"
            )
        for name, values in (("a", self.a), ("b", self.b)):
            for v in values:
                if type(v) is not int or v < 0 or v.bit_length() > self.word:
                    raise ParameterError(
                        f"{name}: got {v!r}; each must be an int in [0, 2^{self.word})"
                    )
        if self.word == 64:
            arrays = (np.array(self.a, dtype=np.uint64), np.array(self.b, dtype=np.uint64))
            object.__setattr__(self, "_arrays", arrays)

    @property
    def m(self) -> int:
        """The number of functions."""
        return len(self.a)

    @property
    def shift(self) -> int:
        """``W - l``."""
        return self.word - (self.s.bit_length() - 1)

    @classmethod
    def draw(
        cls, universe_size: int, s: int, m: int, rng: RandomSource, word: int = 0
    ) -> HashSequence:
        """Draw ``m`` functions: ``2m`` calls ``uniform(2^W)``, in the order ``a_1, b_1, ...``.

        Paper: Lebeda thesis Alg 2 (the sequence ``h``).
        """
        universe_size = check_positive_int(universe_size, "universe_size")
        s = check_buckets(s)
        m = check_positive_int(m, "m")
        word = word or word_bits(universe_size, s)
        top = 1 << word
        a: list[int] = []
        b: list[int] = []
        for _ in range(m):
            a.append(int(draw(rng, top)) - 1)
            b.append(int(draw(rng, top)) - 1)
        return cls(universe_size, s, tuple(a), tuple(b), word)

    def _check_key(self, x: int) -> int:
        if type(x) is not int or not 1 <= x <= self.universe_size:
            raise ParameterError(
                f"x: got {x!r}; keys are ints in [1, {short_int(self.universe_size)}]"
            )
        return x

    def rows(self, x: int) -> tuple[int, ...]:
        """``(h_1(x), ..., h_m(x))``, each in ``[0, s)``."""
        x = self._check_key(x)
        if self.s == 1:
            return (0,) * self.m
        mask, shift = (1 << self.word) - 1, self.shift
        return tuple(((ai * x + bi) & mask) >> shift for ai, bi in zip(self.a, self.b, strict=True))

    def rows_of(self, keys: Sequence[int]) -> Rows:
        """An ``(m, len(keys))`` array of buckets (vectorised; equal to :meth:`rows`)."""
        for x in keys:
            self._check_key(x)
        if self.s == 1 or not keys:
            return np.zeros((self.m, len(keys)), dtype=np.int64)
        if self._arrays is not None:
            a, b = self._arrays
            xs = np.array(keys, dtype=np.uint64)
            # uint64 arithmetic wraps modulo 2^64 = 2^W, which is the family's definition.
            out = (a[:, None] * xs[None, :] + b[:, None]) >> np.uint64(self.shift)
            result: Rows = out.astype(np.int64)
            return result
        return np.array([self.rows(x) for x in keys], dtype=np.int64).reshape(len(keys), self.m).T

    def column(self, j: int, keys: Sequence[int]) -> Rows:
        """``h_{j+1}(x)`` for every key (checked by the caller), in O(len(keys)) memory."""
        if self.s == 1 or not len(keys):
            return np.zeros(len(keys), dtype=np.int64)
        if self._arrays is not None:
            a, b = self._arrays
            xs = np.asarray(keys, dtype=np.uint64)
            result: Rows = ((a[j] * xs + b[j]) >> np.uint64(self.shift)).astype(np.int64)
            return result
        mask, shift, aj, bj = (1 << self.word) - 1, self.shift, self.a[j], self.b[j]
        return np.array([((aj * int(x) + bj) & mask) >> shift for x in keys], dtype=np.int64)

    def to_json_dict(self) -> dict[str, Any]:
        """``{"family", "word", "a", "b"}`` with integers above ``2^53`` as decimal strings."""
        return {
            "family": "multiply-add-shift",
            "word": self.word,
            "a": [json_int(v) for v in self.a],
            "b": [json_int(v) for v in self.b],
        }

    @classmethod
    def from_json_dict(cls, data: Any, universe_size: int, s: int) -> HashSequence:
        """Read :meth:`to_json_dict`'s form back.

        Raises:
            ParameterError: a missing field, another family, or a bad value.
        """
        if not isinstance(data, dict) or data.get("family") != "multiply-add-shift":
            raise ParameterError("hashes: expected an object with family 'multiply-add-shift'")
        a, b = data.get("a"), data.get("b")
        if not isinstance(a, list) or not isinstance(b, list):
            raise ParameterError("hashes: 'a' and 'b' must be lists")
        word = data.get("word")
        if type(word) is not int or word < 1:
            raise ParameterError(f"hashes.word: got {word!r}; expected a positive int")
        return cls(
            universe_size,
            s,
            tuple(parse_count(v, "hashes.a") for v in a),
            tuple(parse_count(v, "hashes.b") for v in b),
            word,
        )


@dataclass(frozen=True)
class HashTable:
    """Explicit hash values: ``table[x - 1][j]`` is ``h_{j+1}(x)`` (tests, figures, the checker).

    Paper: Lebeda thesis Figs 2.1-2.2 (the row of ``h_1(i) .. h_8(i)``).
    Buckets are ``0 .. s - 1``; ``s`` need not be a power of two.
    """

    s: int
    table: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        check_positive_int(self.s, "s")
        lengths = {len(row) for row in self.table}
        if len(lengths) > 1:
            raise ParameterError("table: every key needs the same number m of hash values")
        for row in self.table:
            for v in row:
                if type(v) is not int or not 0 <= v < self.s:
                    raise ParameterError(f"table: got {v!r}; buckets are ints in [0, {self.s})")

    @property
    def m(self) -> int:
        """The number of functions."""
        return len(self.table[0]) if self.table else 0

    @property
    def universe_size(self) -> int:
        """``d``: the number of keys the table covers."""
        return len(self.table)

    def rows(self, x: int) -> tuple[int, ...]:
        """``(h_1(x), ..., h_m(x))``."""
        if type(x) is not int or not 1 <= x <= len(self.table):
            raise ParameterError(f"x: got {x!r}; keys are ints in [1, {len(self.table)}]")
        return self.table[x - 1]

    def rows_of(self, keys: Sequence[int]) -> Rows:
        """An ``(m, len(keys))`` array of buckets."""
        return np.array([self.rows(x) for x in keys], dtype=np.int64).reshape(len(keys), self.m).T

    def column(self, j: int, keys: Sequence[int]) -> Rows:
        """``h_{j+1}`` of every key."""
        return np.array([self.table[int(x) - 1][j] for x in keys], dtype=np.int64)
