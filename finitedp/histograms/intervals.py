"""The interval pass of Alg 6.16: certified bounds on ApproxConvExp with short numbers.

Paper: BV Alg 6.16, Prop 6.15 (ApproxConvExp), used by Alg 6.18 (ApproxBinSample) in
:mod:`.approx`.  With ``S- = floor(s / 2^r)`` and ``S+ = ceil(s / 2^r)``, Alg 6.16 run on
lower and upper brackets of ``a`` (divided by ``2^r``) brackets every entry of its
result, because convolutions and floors of non-negative vectors are monotone.  The
numbers keep about ``log2(m) + 2 log2(t') + 64`` bits instead of ``log2 s``; a draw
falls between two bounds with probability about ``2^-60`` per call, and only then
does :mod:`.approx` run the exact Alg 6.16.  See ``proofs_notes/approx_sampling.md``.
"""

from __future__ import annotations

import functools

import gmpy2

from .convolution import _ZERO, _convolve

#: Bits kept beyond ``log2(m) + 2 log2(t')`` by the interval pass of Alg 6.16: a
#: draw then falls between the bounds with probability about ``2^-60`` per call.
_GUARD_BITS = 64

#: The interval pass runs when ``s`` has more than this many times the bits it keeps.
#: Below that, its two bounds cost more than the exact numbers: both are short and
#: Python's per-operation overhead dominates (measured crossover near 1000-bit ``s``).
_INTERVAL_MIN_RATIO = 8


def _precision_shift(i: int, s: int, t: int) -> int:
    """The ``r`` of the interval pass of Alg 6.16, or 0 when exact arithmetic is as cheap."""
    kept = i.bit_length() + 2 * t.bit_length() + _GUARD_BITS
    if s.bit_length() <= _INTERVAL_MIN_RATIO * kept:
        return 0
    return s.bit_length() - kept


@functools.lru_cache(maxsize=64)
def _scale_bounds(s: gmpy2.mpz, r: int) -> tuple[gmpy2.mpz, gmpy2.mpz]:
    """``S- = floor(s / 2^r)`` and ``S+ = ceil(s / 2^r)``, kept: each shift reads all of ``s``."""
    return s >> r, gmpy2.c_div_2exp(s, r)


def _vector_bounds(a: list[gmpy2.mpz], r: int) -> tuple[list[gmpy2.mpz], list[gmpy2.mpz]]:
    """``floor(a / 2^r)`` and ``ceil(a / 2^r)``, entrywise: the bracket of ``a`` itself."""
    return [gmpy2.f_div_2exp(x, r) for x in a], [gmpy2.c_div_2exp(x, r) for x in a]


def _binomial_bounds(
    p: int, q: int, s: gmpy2.mpz, t: int, r: int
) -> tuple[list[gmpy2.mpz], list[gmpy2.mpz]]:
    """A bracket of Alg 6.18's ``a = (s - p', p', 0, ...)`` (``t`` entries), in units of ``2^r``.

    ``p' = floor(s p / q)`` has as many bits as ``s``; with ``S- = floor(s / 2^r)`` and
    ``S+ = ceil(s / 2^r)``, ``2^r floor(S- p / q) <= p' <= 2^r ceil(S+ p / q)``, and
    ``s - p'`` lies between ``2^r (S- - ceil(S+ p/q))`` and ``2^r (S+ - floor(S- p/q))``:
    short numbers only, where computing ``p'`` costs a long division per call.
    """
    s_lo, s_hi = _scale_bounds(s, r)
    p_lo = s_lo * p // q
    p_hi = gmpy2.c_div(s_hi * p, q)
    lo = [max(_ZERO, s_lo - p_hi), p_lo] + [_ZERO] * t
    hi = [s_hi - p_lo, p_hi] + [_ZERO] * t
    return lo[:t], hi[:t]


def _conv_power_bounds(
    a_lo: list[gmpy2.mpz], a_hi: list[gmpy2.mpz], i: int, s: int, t: int, r: int
) -> tuple[list[gmpy2.mpz], list[gmpy2.mpz]]:
    """Vectors ``lo, hi`` with ``2^r lo <= ApproxConvExp_{s,t}(a, i) <= 2^r hi`` entrywise.

    ``a_lo, a_hi`` bracket ``a`` the same way (``2^r a_lo <= a <= 2^r a_hi``), e.g.
    :func:`_vector_bounds`; ``r`` must satisfy ``1 <= r < bitlen(s)``.  With
    ``S- = floor(s / 2^r)`` and ``S+ = ceil(s / 2^r)``: if ``2^r lo <= b <= 2^r hi``
    then, as convolution and floor are monotone on non-negative vectors,
    ``floor(b*b/s) >= 2^r floor((lo*lo)/S+)`` and ``<= 2^r ceil((hi*hi)/S-)``, and
    likewise with ``a*b*b`` and ``S-^2, S+^2``.
    """
    s_lo, s_hi = _scale_bounds(gmpy2.mpz(s), r)
    s_lo2, s_hi2 = s_lo * s_lo, s_hi * s_hi
    bits = bin(i)[3:]
    if t == 1:  # scalars, without list overhead: the first round of every Alg 6.18 call
        c_lo, c_hi = a_lo[0], a_hi[0]
        x_lo, x_hi = c_lo, c_hi
        for bit in bits:
            if bit == "0":
                x_lo = x_lo * x_lo // s_hi
                x_hi = gmpy2.c_div(x_hi * x_hi, s_lo)
            else:
                x_lo = c_lo * x_lo * x_lo // s_hi2
                x_hi = gmpy2.c_div(c_hi * x_hi * x_hi, s_lo2)
            if x_hi > s_hi:
                x_hi = s_hi
        return [x_lo], [x_hi]
    lo, hi = a_lo, a_hi
    for bit in bits:
        low, high = _convolve(lo, lo, t), _convolve(hi, hi, t)
        if bit == "0":
            lo = [x // s_hi for x in low]
            hi = [gmpy2.c_div(x, s_lo) for x in high]
        else:
            lo = [x // s_hi2 for x in _convolve(a_lo, low, t)]
            hi = [gmpy2.c_div(x, s_lo2) for x in _convolve(a_hi, high, t)]
        # Every exact entry is at most s <= 2^r S+ (Prop 6.15 i): keeps hi from growing.
        hi = [x if x <= s_hi else s_hi for x in hi]
    return lo, hi
