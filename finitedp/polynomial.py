"""Polynomials of degree at most ``n`` over ``GF(2^L)``: evaluation and interpolation.

Paper: BV Lemma 8.1 (the family ``G'`` of polynomials of degree ``<= n`` over
``F_{d0}``, an ``(n+1)``-wise independent hash family; proof of iii-iv:
evaluation, and interpolation through ``n + 1`` points).

A polynomial is the tuple of its coefficients ``(a_0, ..., a_n)``, lowest degree
first, each a field element (an int, see :mod:`finitedp.gf2`).

Two implementations of each operation compute the same values:

* the *generic* one (:func:`horner`, :func:`interpolate`) uses field
  operations only: Horner's rule, and Lagrange interpolation with ``O(n^2)``
  field multiplications and one batched inversion;
* the *subfield* one (:func:`interpolate_subfield`, :func:`horner_sparse`)
  applies when the points lie in a small subfield ``K = GF(2^(2*3^j))`` of the
  field (the universe is embedded there, see :mod:`finitedp.compact`).  Work
  that involves points only is done in ``K``, with ``K``'s elements held in
  *spread form* (bit ``t`` in byte ``t``) so that a product is one small integer
  multiplication; work that involves the values is bit-sliced: a ``K``-element
  ``k = sum_e k_e y^e`` acts as ``sum_e k_e x^(s e)`` on the big field, and the
  products ``c * k`` for the 256 values of one byte of ``k`` are tabulated once
  and shared by every coefficient (the "method of four Russians").  Evaluation
  at a point with few bits set multiplies by shifts.  Both stay ``O(n^2)`` in
  the number of points (no subquadratic interpolation).

Interpolation through distinct points has a unique solution, so both give the
same coefficients; the tests check this.

>>> from finitedp.gf2 import GF2Field
>>> F = GF2Field(1)
>>> p = interpolate(F, [1, 2, 3], [5, 0, 7])
>>> [horner(F, p, x) for x in (1, 2, 3)]
[5, 0, 7]
"""

from __future__ import annotations

import multiprocessing
import operator
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import reduce

import gmpy2

from .errors import ParameterError
from .gf2 import GF2Field

__all__ = [
    "SpreadSubfield",
    "evaluate",
    "horner",
    "horner_sparse",
    "interpolate",
    "interpolate_subfield",
    "polymul_subfield",
]

_DIGIT = bytes.maketrans(b"\x00\x01", b"01")
_BITS = bytes.maketrans(b"01", b"\x00\x01")
_PARITY_DIGIT = bytes(ord("0") + (v & 1) for v in range(256))


def horner(field: GF2Field, coefficients: Sequence[int], x: int) -> int:
    """``p(x)`` by Horner's rule: ``n`` multiplications.

    Args:
        field: the field.
        coefficients: ``(a_0, ..., a_n)``, lowest degree first.
        x: the point.
    """
    mul = field.mul
    acc = 0
    for a in reversed(coefficients):
        acc = mul(acc, x) ^ a
    return acc


def evaluate(field: GF2Field, coefficients: Sequence[int], points: Sequence[int]) -> list[int]:
    """``[p(x) for x in points]`` by Horner's rule (the generic batched form)."""
    return [horner(field, coefficients, x) for x in points]


def _check_points(field: GF2Field, points: Sequence[int], values: Sequence[int]) -> None:
    if len(points) != len(values):
        raise ParameterError(
            f"values: got {len(values)} values for {len(points)} points; give one value per point"
        )
    if not points:
        raise ParameterError("points: got none; interpolation needs at least one point")
    if len(set(points)) != len(points):
        raise ParameterError("points: the interpolation points must be distinct")
    for i, (x, y) in enumerate(zip(points, values, strict=True)):
        field.check(x, f"points[{i}]")
        field.check(y, f"values[{i}]")


def interpolate(field: GF2Field, points: Sequence[int], values: Sequence[int]) -> tuple[int, ...]:
    """The coefficients of the unique ``p`` of degree ``< len(points)`` with ``p(x_i) = y_i``.

    Paper: BV Lemma 8.1 iv, step 3.  Lagrange's formula
    ``p = sum_i y_i / Z'(x_i) * Z(X)/(X - x_i)`` with ``Z = prod_i (X - x_i)``:
    ``O(n^2)`` multiplications, one inversion (Montgomery's batch trick).

    Raises:
        ParameterError: points not distinct, lengths differ, or elements outside the field.
    """
    _check_points(field, points, values)
    mul = field.mul
    size = len(points)
    z = [1]  # Z = prod (X - x_i), lowest degree first
    for x in points:
        z = [mul(x, z[0]), *(z[t - 1] ^ mul(x, z[t]) for t in range(1, len(z))), 1]
    quotients, derivatives = [], []
    for x in points:
        q = [0] * size  # Z / (X - x) by synthetic division
        carry = 0
        for t in range(size, 0, -1):
            carry = z[t] ^ mul(x, carry)
            q[t - 1] = carry
        quotients.append(q)
        derivatives.append(horner(field, q, x))  # Z'(x) = (Z / (X - x))(x)
    weights = field.batch_inv(derivatives)
    result = [0] * size
    for q, w, y in zip(quotients, weights, values, strict=True):
        c = mul(y, w)
        if c:
            for t in range(size):
                result[t] ^= mul(c, q[t])
    return tuple(result)


class SpreadSubfield:
    """Arithmetic in ``K = GF2Field(j)`` on *spread* elements: bit ``t`` in slot ``t``'s low bit.

    A slot is ``W`` bytes, enough to hold a column sum of ``2 * 3^j`` ones, so the
    carry-less product of two spread elements is their integer product with each
    slot reduced to its parity.  Reduction folds whole slots, and the parity is
    taken once at the end (XOR and parity commute slot by slot).
    """

    __slots__ = ("_hi2", "_hi3", "_lo3", "field", "half", "parity", "slot_bits", "width")

    def __init__(self, field: GF2Field) -> None:
        self.field = field
        self.width = field.degree
        self.half = field.degree // 2
        byte_width = (field.degree.bit_length() + 7) // 8
        self.slot_bits = 8 * byte_width
        slot = self.slot_bits
        ones = sum(1 << (slot * t) for t in range(2 * self.width))

        def full(low: int, high: int) -> int:
            return ((1 << (slot * high)) - 1) ^ ((1 << (slot * low)) - 1)

        three = 3 * self.half
        self._lo3 = gmpy2.mpz(full(0, three))
        self._hi3 = gmpy2.mpz(full(three, 2 * self.width))
        self._hi2 = gmpy2.mpz(full(self.width, three))
        self.parity = gmpy2.mpz(ones & full(0, self.width))

    def spread(self, k: int) -> gmpy2.mpz:
        """The spread form of an element of ``K``."""
        return gmpy2.mpz(GF2Field._spread(k, self.slot_bits // 8)) if k else gmpy2.mpz(0)

    def gather(self, v: gmpy2.mpz) -> int:
        """The element of ``K`` a (reduced, parity-only) spread form stands for."""
        return GF2Field._gather(int(v), self.slot_bits // 8)

    def block_masks(self, count: int, block: int) -> tuple[gmpy2.mpz, ...]:
        """The reduction masks of :meth:`mul`, repeated for ``count`` blocks of ``block`` bits."""
        repeat = sum(1 << (block * i) for i in range(count))
        masks = (self._lo3, self._hi3, self._hi2, self.parity)
        return tuple(gmpy2.mpz(int(m) * repeat) for m in masks)

    def mul_blocks(
        self, a: gmpy2.mpz, packed: gmpy2.mpz, masks: tuple[gmpy2.mpz, ...]
    ) -> gmpy2.mpz:
        """``a`` times each block of ``packed`` (blocks of spread elements), reduced per block."""
        slot = self.slot_bits
        lo3, hi3, hi2, parity = masks
        v = a * packed
        v = (v & lo3) ^ ((v & hi3) >> (slot * 3 * self.half))
        h = v & hi2
        v ^= h ^ (h >> (slot * self.width)) ^ (h >> (slot * self.half))
        return v & parity

    def mul(self, a: gmpy2.mpz, b: gmpy2.mpz) -> gmpy2.mpz:
        """The spread form of ``a * b`` (both spread, reduced)."""
        slot = self.slot_bits
        v = a * b
        # Slots at or above 3N fold onto slot - 3N (x^(3N) = 1): degree < 3N after this.
        v = (v & self._lo3) ^ ((v & self._hi3) >> (slot * 3 * self.half))
        # Then x^(2N) = x^N + 1 on the slots in [2N, 3N).
        h = v & self._hi2
        v ^= h ^ (h >> (slot * self.width)) ^ (h >> (slot * self.half))
        return v & self.parity


def interpolate_subfield(
    field: GF2Field,
    level: int,
    nodes: Sequence[int],
    values: Sequence[int],
    *,
    workers: int | None = None,
) -> tuple[int, ...]:
    """:func:`interpolate` for points ``field.embed(k, level)`` with ``k`` in ``nodes``.

    Paper: BV Lemma 8.1 iv, step 3 (see the module notes for the method).  Node by
    node: the quotient ``q_i = Z/(X - b_i)`` and ``Z'(b_i)`` by synthetic division in
    ``K`` (spread form, both in one integer product per step), then
    ``a += c_i q_i`` with ``c_i = y_i / Z'(b_i)``, bit-sliced one byte of ``q_i``'s
    coefficients at a time: a table of the 256 sums ``c_i * sum_u v_u x^(s (8B + u))``
    is built and each coefficient ``a_t`` takes one lookup and one XOR.  The nodes
    may be shared among worker processes (the sums are XORed together at the end,
    so the result does not depend on how they are split).

    Args:
        field: the big field ``F``.
        level: ``j``: the nodes are elements of ``K = GF2Field(j)``, a subfield of ``F``.
        nodes: distinct elements of ``K`` (compact form, ``2 * 3^j`` bits).
        values: the values at those points, elements of ``F``.
        workers: processes to use; ``None`` picks 2 for 512 points or more on a
            machine with 2 or more CPUs (forked workers), else 1.

    Raises:
        ParameterError: as for :func:`interpolate`.
    """
    sub = GF2Field(level)
    _check_points(sub, nodes, [0] * len(nodes))
    if len(values) != len(nodes):
        raise ParameterError(f"values: got {len(values)} values for {len(nodes)} points")
    for i, y in enumerate(values):
        field.check(y, f"values[{i}]")
    z = _vanishing(SpreadSubfield(sub), list(nodes))
    count = _worker_count(workers, len(nodes))
    if count == 1:
        return tuple(_node_sums(field.level, level, z, list(nodes), list(values)))
    context = multiprocessing.get_context("fork")
    parts = [(start, len(nodes), count) for start in range(count)]
    with ProcessPoolExecutor(max_workers=count, mp_context=context) as pool:
        futures = [
            pool.submit(
                _node_sums,
                field.level,
                level,
                z,
                list(nodes[a::step]),
                list(values[a::step]),
            )
            for a, _, step in parts
        ]
        sums = [future.result() for future in futures]
    return tuple(reduce(operator.xor, column) for column in zip(*sums, strict=True))


def _worker_count(workers: int | None, size: int, threshold: int = 512) -> int:
    """The processes to use: ``workers`` if given, else 2 for ``size >= threshold`` on 2+ CPUs."""
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ParameterError(f"workers: got {workers!r}; it must be a positive int or None")
        return workers
    forking = "fork" in multiprocessing.get_all_start_methods()
    return 2 if forking and size >= threshold and (os.cpu_count() or 1) >= 2 else 1


def _vanishing(k: SpreadSubfield, nodes: list[int]) -> list[int]:
    """The coefficients of ``Z = prod (X - b)`` over ``K``, in spread form (as ints).

    A product tree; each product of two polynomials over ``K`` is one integer
    product (:func:`polymul_subfield`).
    """
    sub = k.field
    level: list[list[int]] = [[b, 1] for b in nodes]
    while len(level) > 1:
        paired = [
            polymul_subfield(sub, level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)
        ]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return [int(k.spread(c)) for c in level[0]]


def polymul_subfield(field: GF2Field, a: Sequence[int], b: Sequence[int]) -> list[int]:
    """The product of two polynomials over ``field`` (coefficients lowest first) by Kronecker.

    Every coefficient's bits go to byte-aligned slots wide enough for a column sum
    of ``min(len(a), len(b)) * L`` ones, a coefficient gets ``2L`` slots (room for
    the unreduced product), one integer product gives every column, and each
    slot's parity is a bit of the carry-less product.  Fast for small fields
    (``L`` up to a few hundred) and long polynomials.
    """
    width = field.degree
    terms = min(len(a), len(b)) * width
    slot = (terms.bit_length() + 7) // 8  # bytes per slot
    block = 2 * width * slot  # bytes per coefficient

    def pack(poly: Sequence[int]) -> gmpy2.mpz:
        parts = []
        for c in poly:
            digits = format(c, "b").zfill(width)[::-1].encode().translate(_BITS)
            if slot > 1:
                wide = bytearray(len(digits) * slot)
                wide[::slot] = digits
                digits = bytes(wide)
            parts.append(digits.ljust(block, b"\x00"))
        return gmpy2.mpz(int.from_bytes(b"".join(parts), "little"))

    product = pack(a) * pack(b)
    count = len(a) + len(b) - 1
    raw = int(product).to_bytes(count * block, "little")[::slot]
    reduce_ = field.reduce
    return [
        reduce_(int(raw[t * 2 * width : (t + 1) * 2 * width][::-1].translate(_PARITY_DIGIT), 2))
        for t in range(count)
    ]


def _node_sums(
    field_level: int, level: int, z: list[int], nodes: list[int], values: list[int]
) -> list[int]:
    """``sum_i y_i / Z'(b_i) * Z/(X - b_i)`` over the given nodes (coefficients, unreduced XOR)."""
    field, sub = GF2Field(field_level), GF2Field(level)
    k = SpreadSubfield(sub)
    stride = field.stride(level)
    size = len(z) - 1
    lj, slot = sub.degree, k.slot_bits
    padded = -(-lj // 8) * 8  # each quotient coefficient padded to whole bytes
    width = padded // 8
    block = 2 * lj * slot  # room for an unreduced product
    # Pairs (Z coefficient t, Z' coefficient t - 1) packed as two blocks of one integer.
    pairs = [gmpy2.mpz(z[t] | ((z[t] if t % 2 else 0) << block)) for t in range(size + 1)]
    lo3, hi3, hi2, parity = k.block_masks(2, block)
    s3, s2, s1 = slot * 3 * k.half, slot * k.width, slot * k.half
    low_block = k.parity
    byte_width = slot // 8
    accumulators = [0] * size
    xor = operator.xor
    for node, y in zip(nodes, values, strict=True):
        b = k.spread(node)
        state = gmpy2.mpz(0)
        states = []
        for t in range(size, 0, -1):
            # state = b * state + pairs[t] in both blocks, reduced as in mul_blocks.
            v = b * state
            v = (v & lo3) ^ ((v & hi3) >> s3)
            h = v & hi2
            state = ((v ^ h ^ (h >> s2) ^ (h >> s1)) & parity) ^ pairs[t]
            states.append(state)
        derivative = k.gather(state >> block)  # Z'(b) = (Z/(X - b))(b)
        # Row of the quotient's bits: byte (t * padded + e) is bit e of coefficient t.
        bits = b"".join(
            [(st & low_block).to_bytes(padded * byte_width, "little") for st in reversed(states)]
        )
        if byte_width > 1:
            bits = bits[::byte_width]
        compact = _compact(bits)
        scale = field.mul_sparse(y, field.embed(sub.inv(derivative), level))
        for byte in range(width):
            table = _byte_table(field, scale, stride, 8 * byte, lj)
            picks = map(table.__getitem__, compact[byte::width])
            accumulators = list(map(xor, accumulators, picks))
    return [int(a) for a in accumulators]


def _compact(bits: bytes) -> bytes:
    """Pack a row of 0/1 bytes into bits, little-endian (byte ``p`` to bit ``p``)."""
    return int(bits[::-1].translate(_DIGIT), 2).to_bytes(len(bits) // 8, "little")


def _byte_table(field: GF2Field, c: int, stride: int, first: int, count: int) -> list[int]:
    """``table[v] = c * sum_u v_u x^(stride (first + u))`` reduced, for all bytes ``v``."""
    table = [0] * 256
    reduce_ = field.reduce
    for u in range(8):
        if first + u >= count:
            break
        v = gmpy2.mpz(reduce_(c << (stride * (first + u))))
        span = 1 << u
        table[span : 2 * span] = [t ^ v for t in table[:span]]
    # Bits past `count` never occur (the padding is zero), so the rest stays unused.
    return table


def horner_sparse(field: GF2Field, coefficients: Sequence[int], x: int) -> int:
    """``p(x)`` by Horner's rule with ``acc * x`` as one shift and XOR per set bit of ``x``.

    Fast when ``x`` has few bits set (the universe's points, see :mod:`finitedp.compact`);
    the coefficients may be ints or ``gmpy2.mpz`` (faster).
    """
    if not x:
        return int(coefficients[0]) if coefficients else 0
    shifts = []
    rest = x
    while rest:
        low = rest & -rest
        shifts.append(low.bit_length() - 1)
        rest ^= low
    half, width = field.degree // 2, field.degree
    fold = 3 * half
    mask3, mask2 = gmpy2.mpz((1 << fold) - 1), gmpy2.mpz((1 << width) - 1)
    first, others = shifts[0], shifts[1:]
    acc = gmpy2.mpz(0)
    for a in reversed(coefficients):
        product = acc << first
        for shift in others:
            product ^= acc << shift
        # deg(product) < 2L = 4N: one fold by x^(3N) = 1, then x^(2N) = x^N + 1 (as reduce).
        v = (product & mask3) ^ (product >> fold)
        high = v >> width
        acc = (v & mask2) ^ high ^ (high << half) ^ a
    return int(acc)
