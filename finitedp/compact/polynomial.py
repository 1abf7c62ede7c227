"""Polynomials of degree at most ``n`` over ``GF(2^L)``: evaluation and interpolation.

Paper: BV Lemma 8.1 (the family ``G'`` of polynomials of degree ``<= n`` over
``F_{d0}``, an ``(n+1)``-wise independent hash family; proof of iii-iv:
evaluation, and interpolation through ``n + 1`` points).

A polynomial is the tuple of its coefficients ``(a_0, ..., a_n)``, lowest degree
first, each a field element (an int, see :mod:`finitedp.compact.gf2`).

Evaluation has a generic form (:func:`horner`) and one for points with few
bits set (:func:`horner_sparse`: one shift per bit, the universe's points, see
:mod:`finitedp.compact.family`).  :func:`interpolate` is Lagrange's formula with field
operations only (``O(n^2)``); the fast interpolation for points in a subfield is
:func:`finitedp.compact.family.interpolate_over_subfield` (subquadratic, through
:mod:`finitedp.compact.subproduct`).

Interpolation through distinct points has a unique solution, so both give the
same coefficients; the tests check this.

>>> from finitedp.compact.gf2 import GF2Field
>>> F = GF2Field(1)
>>> p = interpolate(F, [1, 2, 3], [5, 0, 7])
>>> [horner(F, p, x) for x in (1, 2, 3)]
[5, 0, 7]
"""

from __future__ import annotations

from collections.abc import Sequence

import gmpy2

from ..errors import ParameterError
from .gf2 import GF2Field

__all__ = ["evaluate", "horner", "horner_sparse", "interpolate"]

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


def horner_sparse(field: GF2Field, coefficients: Sequence[int], x: int) -> int:
    """``p(x)`` by Horner's rule with ``acc * x`` as one shift and XOR per set bit of ``x``.

    Fast when ``x`` has few bits set (the universe's points, see :mod:`finitedp.compact.histogram`);
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
