"""Polynomials over a small field ``K = GF2Field(j)``, packed into one integer.

Paper: BV Lemma 8.1 iv (interpolation over the field); the support for
:mod:`finitedp.compact.subproduct`.

A polynomial ``a_0 + a_1 z + ... + a_(m-1) z^(m-1)`` over ``K`` (``w = 2 * 3^j``
bits per element) is *packed* as the int ``sum_t a_t << (t B)``: coefficient
``t`` sits in block ``t`` of ``B`` bits, ``B`` the least multiple of 8 that is at
least ``2w - 1``, so an unreduced product of two coefficients fits in a block.
Its length ``m`` travels beside it (trailing zero coefficients are allowed).
Every operation on a whole polynomial is then a handful of big-integer
operations, with no Python loop over the coefficients:

* addition is XOR;
* multiplication is Kronecker substitution: every bit of both operands goes to
  the low bit of a byte-aligned slot wide enough that a column of the integer
  product cannot carry, gmpy2 multiplies, and the parity of each slot is a bit
  of the carry-less product; all blocks are then reduced at once by masks
  (``y^(3N) = 1``, then ``y^(2N) = y^N + 1``, ``N = 3^j``, as in
  :meth:`GF2Field.reduce`);
* squaring is the Frobenius map: bit ``p`` moves to bit ``2p``, which squares
  every coefficient and sends coefficient ``t`` to ``2t`` at once;
* the inverse of a power series is Newton's iteration, which in characteristic
  2 reads ``g <- d g^2``.

>>> ring = PackedPolyRing(1)                  # K = GF(2^6)
>>> a, b = ring.pack([1, 2]), ring.pack([3, 0, 1])
>>> ring.unpack(ring.mul(a, 2, b, 3), 4) == [3, 6, 1, 2]
True
>>> d = ring.pack([1, 0, 3])                  # 1 + 3 z^2
>>> g = ring.inverse_series(d, 5)             # 1/d mod z^5
>>> ring.unpack(ring.truncate(ring.mul(d, 3, g, 5), 5), 5)
[1, 0, 0, 0, 0]
"""

from __future__ import annotations

from collections.abc import Sequence

import gmpy2

from .gf2 import GF2Field

__all__ = ["PackedPolyRing"]

_TO_BYTES = bytes.maketrans(b"01", b"\x00\x01")
# The parity of a byte, as the character '0' or '1'.
_PARITY = bytes(ord("0") + (b & 1) for b in range(256))


class PackedPolyRing:
    """``K[z]`` for ``K = GF2Field(level)``, polynomials packed into ints (see the module notes).

    Args:
        level: ``j``; the coefficients are elements of ``GF(2^(2*3^j))``.
    """

    __slots__ = ("_bytes", "_half", "_mask", "block", "field", "width")

    def __init__(self, level: int) -> None:
        self.field = GF2Field(level)
        self.width = self.field.degree
        self._half = self.width // 2
        self.block = -(-(2 * self.width - 1) // 8) * 8
        self._bytes = self.block // 8
        self._mask = (1 << self.width) - 1

    # -- layout ---------------------------------------------------------------------

    def pack(self, coefficients: Sequence[int]) -> int:
        """The packed form of ``(a_0, ..., a_(m-1))`` (reduced elements of ``K``)."""
        size = self._bytes
        return int.from_bytes(
            b"".join(int(a).to_bytes(size, "little") for a in coefficients), "little"
        )

    def unpack(self, p: int, length: int) -> list[int]:
        """The ``length`` coefficients of ``p``, lowest degree first."""
        size = self._bytes
        raw = int(p).to_bytes(length * size, "little")
        return [int.from_bytes(raw[i : i + size], "little") for i in range(0, len(raw), size)]

    def coefficient(self, p: int, t: int) -> int:
        """The coefficient of ``z^t``."""
        return int(p >> (t * self.block)) & self._mask

    def truncate(self, p: int, length: int) -> int:
        """``p mod z^length``."""
        return p & ((1 << (length * self.block)) - 1)

    def window(self, p: int, start: int, length: int) -> int:
        """The coefficients ``start, ..., start + length - 1`` of ``p`` as a polynomial."""
        return self.truncate(p >> (start * self.block), length)

    def shift(self, p: int, count: int) -> int:
        """``p * z^count``."""
        return p << (count * self.block)

    def reverse(self, p: int, length: int) -> int:
        """``z^(length-1) p(1/z)``: the coefficients in the opposite order."""
        size = self._bytes
        raw = int(p).to_bytes(length * size, "little")
        chunks = [raw[i : i + size] for i in range(0, len(raw), size)]
        chunks.reverse()
        return int.from_bytes(b"".join(chunks), "little")

    def derivative(self, p: int, length: int) -> int:
        """``p'`` (length ``length - 1``): the odd coefficients shifted down (characteristic 2)."""
        if length < 2:
            return 0
        odd = self._repeat(self._mask << self.block, (length + 1) // 2, 2 * self.block)
        return (p & odd) >> self.block

    # -- arithmetic -------------------------------------------------------------------

    def mul(self, a: int, la: int, b: int, lb: int) -> int:
        """``a * b`` for ``a``, ``b`` of lengths ``la``, ``lb`` (the product: ``la + lb - 1``)."""
        if not a or not b:
            return 0
        # A column of the product sums at most min(la, lb) * w ones: the slot must hold that.
        slot = ((min(la, lb) * self.width).bit_length() + 7) // 8
        product = self._spread(a, la * self.block, slot) * self._spread(b, lb * self.block, slot)
        count = la + lb - 1
        raw = product.to_bytes(count * self.block * slot, "big")
        low = raw[slot - 1 :: slot] if slot > 1 else raw
        return self._reduce(int(low.translate(_PARITY), 2), count)

    def square(self, a: int, la: int) -> int:
        """``a^2`` (length ``2 la - 1``): every bit ``p`` moves to ``2p``, then reduction."""
        if not a:
            return 0
        digits = format(a, "b").encode()
        spread = bytearray(b"0" * (2 * len(digits) - 1))
        spread[::2] = digits
        return self._reduce(int(spread, 2), 2 * la - 1)

    def inverse_series(self, d: int, length: int) -> int:
        """``1/d mod z^length`` for ``d`` with constant coefficient 1 (Newton: ``g <- d g^2``).

        If ``d g = 1 + e z^k`` then ``d (d g^2) = (d g)^2 = 1 + e^2 z^(2k)`` in
        characteristic 2, so each step doubles the number of correct coefficients.

        Raises:
            ValueError: the constant coefficient of ``d`` is not 1.
        """
        if self.coefficient(d, 0) != 1:
            raise ValueError("inverse_series: the constant coefficient must be 1")
        g, known = 1, 1
        while known < length:
            target = min(2 * known, length)
            g = self.mul(self.truncate(d, target), target, self.square(g, known), 2 * known - 1)
            g, known = self.truncate(g, target), target
        return g

    # -- internals ----------------------------------------------------------------------

    @staticmethod
    def _spread(a: int, bits: int, slot: int) -> gmpy2.mpz:
        # Bit i of a becomes the low bit of the slot-byte slot i (big-endian bytes).
        digits = format(a, f"0{bits}b").encode().translate(_TO_BYTES)
        if slot == 1:
            return gmpy2.mpz(int.from_bytes(digits, "big"))
        slots = bytearray(slot * len(digits))
        slots[slot - 1 :: slot] = digits
        return gmpy2.mpz(int.from_bytes(slots, "big"))

    def _repeat(self, pattern: int, count: int, period: int) -> int:
        # pattern (period bits, a multiple of 8) repeated count times.
        return int.from_bytes(pattern.to_bytes(period // 8, "little") * count, "little")

    def _reduce(self, v: int, count: int) -> int:
        """Reduce every block of ``v`` (bits below ``4N``) modulo ``y^(2N) + y^N + 1``."""
        n, block = self._half, self.block
        unit = (1 << n) - 1
        high3 = v & self._repeat(unit << (3 * n), count, block)
        v ^= high3 ^ (high3 >> (3 * n))  # y^(3N) = 1
        high2 = v & self._repeat(unit << (2 * n), count, block)
        return v ^ high2 ^ (high2 >> n) ^ (high2 >> (2 * n))  # y^(2N) = y^N + 1
