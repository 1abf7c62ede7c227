"""Exact binomial and order-statistic samplers: the references for Section 6.3.

Paper: BV Cor 6.14 (the exact binomial law), Alg 6.7 / Prop 6.6 (OrdSample).
Their draws have ``m log2 q`` bits, exponential in the size of ``m``; the
user-level mechanisms use :mod:`.approx` instead, and the tests compare the two.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import comb

from ..errors import ParameterError
from ..oracle import RandomSource, draw
from ..params import short_int
from .approx import _cdf_values, _histogram_to_order_statistics
from .convolution import _int_at_least

__all__ = ["binomial_pmf", "exact_bin_sample", "exact_ord_sample"]


def _check_binomial(m: object, p: object, q: object) -> tuple[int, int, int]:
    m = _int_at_least(m, "m", 0)
    q = _int_at_least(q, "q", 1)
    p = _int_at_least(p, "p", 0)
    if p > q:
        raise ParameterError(f"p: got {short_int(p)}; it must lie in [0, q] = [0, {short_int(q)}]")
    return m, p, q


def binomial_pmf(m: int, p: int, q: int) -> list[Fraction]:
    """The exact probability mass function of ``Bin(m, p/q)``, as ``m + 1`` fractions.

    Paper: BV Cor 6.14 (``f_Z = *^(m)(1 - p/q, p/q)``), computed in closed form.

    Args:
        m: the number of trials, ``m >= 0``.
        p: the success numerator, in ``[0, q]``.
        q: the success denominator, ``q >= 1``.

    Returns:
        ``[Pr[Bin(m, p/q) = k] for k in 0..m]``; it sums to exactly 1.

    Raises:
        ParameterError: a parameter outside the range above.
        ParameterTypeError: a parameter is not an int.

    >>> binomial_pmf(2, 1, 3)
    [Fraction(4, 9), Fraction(4, 9), Fraction(1, 9)]
    """
    m, p, q = _check_binomial(m, p, q)
    total = q**m
    return [Fraction(comb(m, k) * p**k * (q - p) ** (m - k), total) for k in range(m + 1)]


def exact_bin_sample(m: int, p: int, q: int, t: int, rng: RandomSource) -> int:
    """Sample ``min{Bin(m, p/q), t}`` exactly, by inverse CDF with denominator ``q^m``.

    Paper: BV Lemma 2.13 (inverse transform sampling) applied to Cor 6.14; the
    binomial step of Alg 6.7.  A reference for tests: the draw has ``m log2 q``
    bits and the loop up to ``min(t, m + 1)`` terms, so it is feasible only for
    small ``m`` (this is the ``Omega(m)`` cost that Alg 6.18 avoids).

    Returns the smallest ``k < t`` with ``u <= sum_{j<=k} C(m,j) p^j (q-p)^(m-j)``,
    or ``t`` if there is none.

    Oracle calls, in order: none if ``t = 0``; otherwise exactly one,
    ``u = uniform(q^m)``, only compared with integers.

    Args:
        m: the number of trials, ``m >= 0``.
        p: the success numerator, in ``[0, q]``.
        q: the success denominator, ``q >= 1``.
        t: the truncation, ``t >= 0``.
        rng: the randomness source.

    Returns:
        An int in ``[0, min(m, t)]``.

    Raises:
        ParameterError: a parameter outside the range above.
        ParameterTypeError: a parameter is not an int.
    """
    m, p, q = _check_binomial(m, p, q)
    t = _int_at_least(t, "t", 0)
    if t == 0:
        return 0
    u = draw(rng, q**m)
    cumulative = 0
    for k in range(min(t, m + 1)):  # at k = m the sum is q^m >= u
        cumulative += comb(m, k) * p**k * (q - p) ** (m - k)
        if u <= cumulative:
            return k
    return t


def exact_ord_sample(
    cdf: Callable[[int], int], n: int, m: int, rng: RandomSource
) -> tuple[int, ...]:
    """OrdSample: exactly the top ``n + 1`` order statistics of ``m`` i.i.d. draws from ``F``.

    Paper: BV Alg 6.7, Prop 6.6.  A reference for tests (exponential in ``m`` bits).

    As :func:`approx_ord_sample` with ``l_v = min{Bin(m - L, 1 - F(v-1)/F(v)), n + 1 - L}``
    sampled by :func:`exact_bin_sample`.

    Oracle calls, in order: for ``v = n, ..., 1`` while ``L < n + 1``, one
    ``uniform(F(v)^(m - L))``.

    Args:
        cdf: ``F: [n] -> [d]_+``, non-decreasing with ``F(n) = d``.
        n: the largest value, ``n >= 1``.
        m: the number of draws, ``m >= n + 1``.
        rng: the randomness source.

    Returns:
        ``(c_0, ..., c_n) = (Z_(m), ..., Z_(m-n))``, non-increasing.

    Raises:
        ParameterError: as for :func:`approx_ord_sample`.
        ParameterTypeError: as for :func:`approx_ord_sample`.
    """
    n = _int_at_least(n, "n", 1)
    m = _int_at_least(m, "m", n + 1, " (BV Alg 6.7 needs m >= n + 1)")
    f = _cdf_values(cdf, n)
    counts = [0] * (n + 1)
    placed = 0
    for v in range(n, 0, -1):
        counts[v] = exact_bin_sample(m - placed, f[v] - f[v - 1], f[v], n + 1 - placed, rng)
        placed += counts[v]
    counts[0] = n + 1 - placed
    return _histogram_to_order_statistics(counts)
