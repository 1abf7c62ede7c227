"""Truncated convolution of non-negative integer vectors (BV Def 6.12), by Kronecker substitution.

Paper: BV Def 6.12.  The building block of ApproxConvExp
(:mod:`finitedp.histograms.approx`), with the argument checks the approximate
samplers share.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import gmpy2

from ..errors import ParameterError, ParameterTypeError
from ..params import short_int

__all__ = ["convolve"]

_ZERO = gmpy2.mpz(0)


# -- validation -----------------------------------------------------------------


def _int_at_least(value: object, name: str, low: int, extra: str = "") -> int:
    """An ``int`` (or other Integral, not bool) that is at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterTypeError(
            f"{name}: got {value!r} (a {type(value).__name__}); it must be an int"
        )
    v = int(value)
    if v < low:
        raise ParameterError(f"{name}: got {short_int(v)}; it must be an int >= {low}{extra}")
    return v


def _vector(values: Sequence[int], name: str) -> list[gmpy2.mpz]:
    """A sequence of non-negative integers, as ``mpz``."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise ParameterTypeError(f"{name}: got a {type(values).__name__}; use a list of ints")
    out = []
    for k, x in enumerate(values):
        out.append(gmpy2.mpz(_int_at_least(x, f"{name}[{k}]", 0)))
    return out


# -- Def 6.12: truncated convolution by Kronecker substitution -------------------


def _convolve(a: list[gmpy2.mpz], b: list[gmpy2.mpz], t: int) -> list[gmpy2.mpz]:
    """The first ``t`` terms of ``a * b`` for non-negative ``mpz`` vectors; no checks."""
    same = a is b
    a, b = a[:t], b[:t]  # later terms cannot reach an index below t
    if t == 1:  # a scalar product: the common case of Alg 6.18's first round
        return [a[0] * b[0]] if a and b else [_ZERO]
    top_a, top_b = max(a, default=_ZERO), max(b, default=_ZERO)
    if not top_a or not top_b:
        return [_ZERO] * t
    # A coefficient sums at most min(len) products, each below 2^(bits(a) + bits(b)),
    # so it is below 2^width and no slot carries into the next one.
    width = top_a.bit_length() + top_b.bit_length() + min(len(a), len(b)).bit_length()
    packed = gmpy2.pack(a, width)
    # Squaring one operand (gmpy2 passes both to GMP as the same limbs) is faster.
    product = packed * packed if same else packed * gmpy2.pack(b, width)
    out: list[gmpy2.mpz] = gmpy2.unpack(gmpy2.f_mod_2exp(product, t * width), width)
    if len(out) < t:  # unpack omits zero slots above the highest non-zero one
        out.extend([_ZERO] * (t - len(out)))
    return out[:t]


def convolve(a: Sequence[int], b: Sequence[int], t: int) -> list[int]:
    """The first ``t`` terms of the convolution ``a * b`` of two non-negative integer vectors.

    Paper: BV Def 6.12 (``(a*b)_k = sum_{i<=k} a_i b_{k-i}`` for ``k`` in ``[t-1]``).

    Computed by Kronecker substitution: each vector is packed into one integer with
    slots of ``bitlen(max a) + bitlen(max b) + bitlen(min(len a, len b))`` bits,
    wide enough that no coefficient overflows its slot; one ``gmpy2`` product, then
    the first ``t`` slots are unpacked.  Missing entries count as zero.

    Args:
        a: non-negative integers (only the first ``t`` matter).
        b: non-negative integers (only the first ``t`` matter).
        t: the number of terms, ``t >= 0``.

    Returns:
        ``[(a*b)_0, ..., (a*b)_{t-1}]`` as ints.

    Raises:
        ParameterError: ``t < 0`` or a negative entry.
        ParameterTypeError: ``t`` or an entry is not an int, or ``a``/``b`` is not a sequence.

    >>> convolve([1, 2], [3, 4, 5], 4)
    [3, 10, 13, 10]
    """
    t = _int_at_least(t, "t", 0)
    va, vb = _vector(a, "a"), _vector(b, "b")
    if t == 0:
        return []
    return [int(x) for x in _convolve(va, vb, t)]
