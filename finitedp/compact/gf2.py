"""The finite field ``GF(2^L)``, ``L = 2 * 3^l``, with elements as ints (bit vectors).

Paper: BV Lemma 8.1 iii (``F_{d0} = F_2[x]/(x^(2*3^l) + x^(3^l) + 1)``, citing van
Lint; the bijection ``T`` between the field and ``[d0]_+``).

An element is the int whose bit ``i`` is the coefficient of ``x^i``; addition is
XOR.  The modulus ``x^(2N) + x^N + 1`` with ``N = 3^l`` is the cyclotomic
polynomial ``Phi_{3N}(x)``; it is irreducible over ``GF(2)`` because 2 is a
primitive root modulo every power of 3 (``proofs_notes/compact_histogram.md``),
and ``x`` has multiplicative order ``3N``.  Two facts make arithmetic cheap:

* reduction: ``x^(3N) = 1`` (as ``x^(3N) - 1 = (x^N - 1) Phi_{3N}(x)``), so a product
  is first folded modulo ``x^(3N) - 1`` (shift and XOR), then once by
  ``x^(2N) = x^N + 1``;
* subfields: ``Phi_{3^(l+1)}(x) = Phi_{3^(j+1)}(x^s)`` with ``s = 3^(l-j)``, so the
  polynomials in ``y = x^s`` of degree below ``2 * 3^j`` form the subfield
  ``GF(2^(2*3^j))``, which is :class:`GF2Field` ``(j)`` with ``y`` for ``x``
  (:meth:`GF2Field.embed`).

Multiplication of two dense elements uses Kronecker substitution: each bit is
put in a byte-aligned slot wide enough that a column sum of up to ``L`` ones
cannot carry into the next slot, the two integers are multiplied by gmpy2, and
the low bit of each slot is the carry-less product.  Small fields use a
windowed shift-and-add instead (:meth:`GF2Field.mul_windowed`, 4 bits at a
time), and ``L = 1458`` and ``4374`` a byte-at-a-time table method
(:meth:`GF2Field.mul_bytes`); the cut-overs were measured
(``benchmarks/bench_compact.py`` prints all three).

>>> F = GF2Field(1)                   # GF(2^6), modulus x^6 + x^3 + 1
>>> F.degree, F.order, bin(F.modulus)
(6, 64, '0b1001001')
>>> a = 0b10                          # the element x
>>> F.pow(a, 9), F.mul(a, F.inv(a))   # x has order 9 = 3^(l+1)
(1, 1)
>>> F.to_index(0), F.from_index(64)   # T: the bit string read as an integer, plus one
(1, 63)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import gmpy2

from ..errors import ParameterError, ParameterTypeError
from ..params import short_int

__all__ = ["MAX_LEVEL", "GF2Field"]

#: The largest ``l`` accepted: ``L = 2 * 3^12`` is over a million bits.
MAX_LEVEL = 12

# The method mul uses, by L (benchmarks/bench_compact.py; all are exact, so the choice
# only affects speed): 4-bit windows below 100, the byte table for L in [1000, 10000),
# Kronecker substitution otherwise.
_KRONECKER_FROM = 100
_BYTES_FROM, _BYTES_BELOW = 1000, 10000

_TO_BYTES = bytes.maketrans(b"01", b"\x00\x01")
# The parity of a byte, as the character '0' or '1'.
_PARITY = bytes(ord("0") + (b & 1) for b in range(256))


def _check_level(level: object, name: str = "l") -> int:
    if isinstance(level, bool) or not isinstance(level, int):
        raise ParameterTypeError(f"{name}: got {level!r}; it must be an int in [0, {MAX_LEVEL}]")
    if not 0 <= level <= MAX_LEVEL:
        raise ParameterError(f"{name}: got {level}; it must be an int in [0, {MAX_LEVEL}]")
    return level


class GF2Field:
    """``GF(2^L)`` with ``L = 2 * 3^l``, modulus ``x^(2*3^l) + x^(3^l) + 1``.

    Paper: BV Lemma 8.1 iii.

    Args:
        l: the level; the field has ``d0 = 2^(2*3^l)`` elements.

    Raises:
        ParameterError: ``l`` outside ``[0, MAX_LEVEL]``; ParameterTypeError: not an int.
    """

    __slots__ = (
        "_fold",
        "_half",
        "_l",
        "_mask2",
        "_mask3",
        "_modulus",
        "_order",
        "_slot_bytes",
        "_width",
    )

    def __init__(self, l: int) -> None:  # noqa: E741 - BV's name for the level
        self._l = _check_level(l)
        n: int = pow(3, self._l)
        self._half = n
        self._width = 2 * n
        self._order = 1 << self._width
        self._modulus = (1 << (2 * n)) | (1 << n) | 1
        self._mask2 = (1 << (2 * n)) - 1
        self._mask3 = (1 << (3 * n)) - 1
        self._fold = 3 * n
        # A column of the carry-less product sums at most L ones: the slot must hold L.
        self._slot_bytes = (self._width.bit_length() + 7) // 8

    # -- parameters -------------------------------------------------------------

    @property
    def level(self) -> int:
        """``l``."""
        return self._l

    @property
    def degree(self) -> int:
        """``L = 2 * 3^l``: elements are bit vectors of this length."""
        return self._width

    @property
    def order(self) -> int:
        """``d0 = 2^L``, the number of elements."""
        return self._order

    @property
    def modulus(self) -> int:
        """The modulus ``x^(2N) + x^N + 1`` (``N = 3^l``) as a bit vector."""
        return self._modulus

    def __repr__(self) -> str:
        return f"GF2Field({self._l})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GF2Field):
            return NotImplemented
        return self._l == other._l

    def __hash__(self) -> int:
        return hash(("GF2Field", self._l))

    def check(self, a: object, name: str = "a") -> int:
        """Validate a field element: an int in ``[0, 2^L)``.

        Raises:
            ParameterTypeError: not an int; ParameterError: outside the field.
        """
        if isinstance(a, bool) or not isinstance(a, int):
            raise ParameterTypeError(f"{name}: got {a!r}; a field element is an int in [0, 2^L)")
        if not 0 <= a < self._order:
            raise ParameterError(
                f"{name}: got {short_int(a)}; an element of GF(2^{self._width}) is an int "
                f"in [0, 2^{self._width})"
            )
        return a

    # -- the bijection T ----------------------------------------------------------

    def to_index(self, a: int) -> int:
        """BV's ``T``: the element's bit string read as an integer, plus one, in ``[1, d0]``."""
        return self.check(a) + 1

    def from_index(self, u: int) -> int:
        """``T^-1``: the element whose bit string is ``u - 1``, for ``u`` in ``[1, d0]``.

        Raises:
            ParameterError: ``u`` outside ``[1, d0]``.
        """
        if isinstance(u, bool) or not isinstance(u, int) or not 1 <= u <= self._order:
            raise ParameterError(f"u: got {u!r}; T^-1 is defined on [1, 2^{self._width}]")
        return u - 1

    # -- arithmetic ---------------------------------------------------------------

    @staticmethod
    def add(a: int, b: int) -> int:
        """``a + b`` (= ``a - b``): XOR."""
        return a ^ b

    sub = add

    def reduce(self, v: int) -> int:
        """The remainder of a polynomial ``v`` (any degree) modulo the field's modulus.

        Folds modulo ``x^(3N) - 1`` (a multiple of the modulus) until the degree is
        below ``3N``, then applies ``x^(2N) = x^N + 1`` once.
        """
        fold, mask3 = self._fold, self._mask3
        while v >> fold:
            v = (v & mask3) ^ (v >> fold)
        high = v >> self._width
        if high:
            v = (v & self._mask2) ^ high ^ (high << self._half)
        return v

    def mul(self, a: int, b: int) -> int:
        """``a * b`` in the field (Kronecker substitution or a windowed method, by size)."""
        if not a or not b:
            return 0
        if self.method == "bytes":
            return self.reduce(self.clmul_bytes(a, b))
        if self.method == "kronecker":
            return self.reduce(self.clmul_kronecker(a, b))
        return self.reduce(self.clmul_windowed(a, b))

    @property
    def method(self) -> str:
        """What :meth:`mul` uses at this size: ``"windowed"``, ``"bytes"`` or ``"kronecker"``."""
        if _BYTES_FROM <= self._width < _BYTES_BELOW:
            return "bytes"
        return "kronecker" if self._width >= _KRONECKER_FROM else "windowed"

    def mul_windowed(self, a: int, b: int) -> int:
        """``a * b`` by the 4-bit windowed shift-and-add method (small fields, comparisons)."""
        return self.reduce(self.clmul_windowed(a, b))

    def mul_bytes(self, a: int, b: int) -> int:
        """``a * b`` by a 256-entry table of ``b``'s multiples, one byte of ``a`` at a time."""
        return self.reduce(self.clmul_bytes(a, b))

    def mul_kronecker(self, a: int, b: int) -> int:
        """``a * b`` by Kronecker substitution and gmpy2 (for comparison and large fields)."""
        return self.reduce(self.clmul_kronecker(a, b))

    @staticmethod
    def clmul_windowed(a: int, b: int) -> int:
        """The carry-less product of two bit vectors, 4 bits of ``a`` at a time."""
        if a.bit_length() < b.bit_length():
            a, b = b, a
        table = [0, b, b << 1, (b << 1) ^ b]
        b2 = b << 2
        table += [t ^ b2 for t in table]
        b3 = b << 3
        table += [t ^ b3 for t in table]
        acc = 0
        shift = (a.bit_length() + 3) & ~3
        while shift:
            shift -= 4
            acc = (acc << 4) ^ table[(a >> shift) & 15]
        return acc

    @staticmethod
    def clmul_bytes(a: int, b: int) -> int:
        """The carry-less product of two bit vectors, 8 bits of ``a`` at a time."""
        if a.bit_length() < b.bit_length():
            a, b = b, a
        table = [0] * 256
        for i in range(8):  # table[v] = sum of b << i over the bits i of v
            span, shifted = 1 << i, b << i
            table[span : 2 * span] = [t ^ shifted for t in table[:span]]
        acc = 0
        for byte in a.to_bytes((a.bit_length() + 7) // 8, "big"):
            acc = (acc << 8) ^ table[byte]
        return acc

    def clmul_kronecker(self, a: int, b: int) -> int:
        """The carry-less product of two elements by one integer multiplication."""
        width = self._slot_bytes
        product = gmpy2.mpz(self._spread(a, width)) * gmpy2.mpz(self._spread(b, width))
        return self._gather(int(product), width)

    @staticmethod
    def _spread(a: int, width: int) -> int:
        # Bit i of a becomes the lowest bit of the width-byte slot i.
        digits = format(a, "b").encode().translate(_TO_BYTES)
        if width == 1:
            return int.from_bytes(digits, "big")
        slots = bytearray(width * len(digits))
        slots[width - 1 :: width] = digits
        return int.from_bytes(slots, "big")

    @staticmethod
    def _gather(v: int, width: int) -> int:
        # The inverse of _spread after a product: the parity of each slot's lowest byte.
        if not v:
            return 0
        size = -(-v.bit_length() // (8 * width)) * width
        raw = v.to_bytes(size, "big")
        low = raw if width == 1 else raw[width - 1 :: width]
        return int(low.translate(_PARITY), 2)

    def square(self, a: int) -> int:
        """``a^2``: squaring is linear over GF(2), so the bits are spread to even positions."""
        if not a:
            return 0
        spread = int(format(a, "b").translate({48: "00", 49: "01"}), 2)
        return self.reduce(spread)

    def mul_sparse(self, a: int, b: int) -> int:
        """``a * b`` by one shift and XOR per set bit of ``b`` (fast when ``b`` has few bits)."""
        acc = 0
        while b:
            low = b & -b
            acc ^= a << (low.bit_length() - 1)
            b ^= low
        return self.reduce(acc)

    def pow(self, a: int, e: int) -> int:
        """``a^e`` for any int ``e`` (a negative ``e`` inverts first).

        Raises:
            ZeroDivisionError: ``a == 0`` and ``e < 0``.
        """
        if e < 0:
            a, e = self.inv(a), -e
        result = 1
        for bit in format(e, "b"):
            result = self.square(result)
            if bit == "1":
                result = self.mul(result, a)
        return result

    def inv(self, a: int) -> int:
        """``a^-1`` by the extended Euclidean algorithm in ``GF(2)[x]``.

        Raises:
            ZeroDivisionError: ``a == 0``.
        """
        if a == 0:
            raise ZeroDivisionError("0 has no inverse in a field")
        # Invariants: u = a * g1 and v = a * g2 modulo the modulus; deg u, deg v shrink.
        u, v, g1, g2 = a, self._modulus, 1, 0
        while u != 1:
            shift = u.bit_length() - v.bit_length()
            if shift < 0:
                u, v, g1, g2 = v, u, g2, g1
                shift = -shift
            u ^= v << shift
            g1 ^= g2 << shift
        return self.reduce(g1)

    def batch_inv(self, values: list[int]) -> list[int]:
        """The inverses of nonzero elements with one inversion (Montgomery's trick).

        Raises:
            ZeroDivisionError: a value is 0.
        """
        prefix, acc = [], 1
        for v in values:
            if not v:
                raise ZeroDivisionError("0 has no inverse in a field")
            prefix.append(acc)
            acc = self.mul(acc, v)
        inverse = self.inv(acc) if values else 1
        result = [0] * len(values)
        for i in range(len(values) - 1, -1, -1):
            result[i] = self.mul(inverse, prefix[i])
            inverse = self.mul(inverse, values[i])
        return result

    # -- subfields ----------------------------------------------------------------

    def stride(self, j: int) -> int:
        """``s = 3^(l-j)``: the subfield of level ``j`` is spanned by ``x^(s t)``, ``t < 2*3^j``.

        Raises:
            ParameterError: ``j`` outside ``[0, l]``.
        """
        if isinstance(j, bool) or not isinstance(j, int) or not 0 <= j <= self._l:
            raise ParameterError(f"j: got {j!r}; a subfield level must be an int in [0, {self._l}]")
        stride: int = 3 ** (self._l - j)
        return stride

    def embed(self, k: int, j: int) -> int:
        """The element of this field that the element ``k`` of ``GF2Field(j)`` is (``y = x^s``).

        Bit ``t`` of ``k`` moves to bit ``s t``; this is a field homomorphism because
        ``Phi_{3^(l+1)}(x) = Phi_{3^(j+1)}(x^s)``.
        """
        s = self.stride(j)
        if not 0 <= k < 1 << (2 * 3**j):
            raise ParameterError(f"k: got {short_int(k)}; it must be an element of GF2Field({j})")
        if s == 1 or k < 2:
            return k
        # Each binary digit is followed by s - 1 zeros; the trailing zeros are dropped.
        spread = format(k, "b").translate({48: "0" * s, 49: "1" + "0" * (s - 1)})
        return int(spread, 2) >> (s - 1)

    def extract(self, a: int, j: int) -> int:
        """The inverse of :meth:`embed`.

        Raises:
            ParameterError: ``a`` is not in the subfield of level ``j`` (as embedded).
        """
        s = self.stride(j)
        self.check(a)
        if s == 1:
            return a
        digits = format(a, "b").zfill(self._width)[::-1]
        picked = digits[::s]
        if picked.count("1") != digits.count("1"):
            raise ParameterError(f"a: not an element of the subfield of level {j}")
        return int(picked[::-1], 2)

    # -- the field as a vector space over a subfield ---------------------------------

    def split(self, a: int, j: int, which: Sequence[int] | None = None) -> list[int]:
        """The coordinates of ``a`` over the subfield of level ``j`` (basis ``1, x, ..., x^(s-1)``).

        ``a = sum_r x^r embed(a_r)`` with ``a_r`` in ``K`` (``s = 3^(l-j)``): bit ``e`` of
        ``a_r`` is bit ``r + s e`` of ``a``.  Multiplying ``a`` by an element of ``K``
        multiplies every coordinate by it, which is why a polynomial over the field
        with points in ``K`` splits into ``s`` polynomials over ``K``.

        Args:
            a: an element of this field.
            j: the subfield's level.
            which: the coordinates wanted (default: all ``s``, in order).
        """
        s = self.stride(j)
        if s == 1:
            return [a] if which is None else [a for _ in which]
        bits = format(a, f"0{self._width}b")
        # Character s-1-r+s*q of the big-endian digits is bit r + s*(w-1-q).
        return [int(bits[s - 1 - r :: s], 2) for r in (range(s) if which is None else which)]

    def join(self, parts: Sequence[int], j: int) -> int:
        """The inverse of :meth:`split`: ``sum_r x^r embed(parts[r])``."""
        s = self.stride(j)
        if len(parts) != s:
            raise ParameterError(f"parts: got {len(parts)}; the subfield of level {j} needs {s}")
        return self.replace(0, j, dict(enumerate(parts)))

    def replace(self, a: int, j: int, parts: Mapping[int, int]) -> int:
        """``a`` with the coordinates ``{r: a_r}`` over the subfield of level ``j`` replaced."""
        s = self.stride(j)
        if s == 1:
            return parts.get(0, a)
        w = self._width // s
        bits = bytearray(format(a, f"0{self._width}b").encode())
        for r, part in parts.items():
            bits[s - 1 - r :: s] = format(part, f"0{w}b").encode()
        return int(bits, 2)
