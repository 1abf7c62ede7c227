"""Approximate binomial and order-statistic sampling with bounded bit lengths.

Paper: BV Section 6.3 up to Alg 6.21: Def 6.12 (truncated convolution), Lemma 6.13,
Cor 6.14, Prop 6.15 + Alg 6.16 (ApproxConvExp), Prop 6.17 + Alg 6.18 (ApproxBinSample),
Prop 6.19 + Alg 6.20 (ApproxOrdSample).  The exact references (Cor 6.14,
Alg 6.7) are in :mod:`.binomial`.

The exact OrdSample samples ``Bin(m, p)`` for ``m`` near ``|X|``, whose probabilities
have ``Omega(m)`` bits.  BV replace it by inverse-CDF sampling from the CDF of the
``m``-fold convolution of ``a = (s - p', p')`` with ``p' = floor(s p / q)``, computed
by repeated squaring and rounded down to multiples of ``1/s`` at every step
(:func:`approx_conv_exp`); every number then has ``O(log s + log t)`` bits.

Speed without changing a single output.  :func:`approx_bin_sample` returns exactly
what Alg 6.18 returns for every draw ``u``: it only needs to know whether
``u <= F_l`` for the CDF entries ``F_l`` of Alg 6.18 step 4c.  When ``s`` is large
(the SparseHistogram case, ``log2 s ~ 65 n``), it first runs Alg 6.16 on intervals
of width ``2^r`` (``r`` chosen so that about ``log2(m) + 2 log2(t') + 64`` bits are kept):
floors and convolutions of non-negative vectors are monotone, so lower and upper
bounds propagate through every step and bracket each exact ``F_l``.  A comparison
the bounds decide is the comparison Alg 6.18 makes; only if ``u`` falls inside a
gap (probability about ``2^-60`` per call) is the exact Alg 6.16 run.  The bounds
are in :mod:`.intervals`; see ``proofs_notes/approx_sampling.md``.

Everything is integer arithmetic (``gmpy2.mpz`` in the hot paths); the only
randomness is :func:`finitedp.oracle.draw`, and draws are only compared with
integers, so :mod:`finitedp.checker` can enumerate these samplers exactly.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable, Sequence

import gmpy2

from ..errors import ParameterError, ParameterTypeError
from ..oracle import RandomSource, draw_compared
from ..params import short_int
from ..prefixdraw import PrefixDraw
from .convolution import _ZERO, _convolve, _int_at_least, _vector, convolve
from .intervals import (
    _binomial_bounds,
    _conv_power_bounds,
    _precision_shift,
    _vector_bounds,
)

__all__ = [
    "RoundCdf",
    "approx_bin_sample",
    "approx_conv_exp",
    "approx_ord_sample",
    "convolve",
]

# -- Alg 6.16: ApproxConvExp -----------------------------------------------------


def _check_conv_exp(
    a: Sequence[int], i: object, s: object, t: object
) -> tuple[list[gmpy2.mpz], int, int, int]:
    i = _int_at_least(i, "i", 1)
    s = _int_at_least(s, "s", 1)
    t = _int_at_least(t, "t", 1)
    va = _vector(a, "a")
    if len(va) != t:
        raise ParameterError(f"a: got {len(va)} entries; it must lie in [s]^t, so have t = {t}")
    for k, x in enumerate(va):
        if x > s:
            raise ParameterError(
                f"a[{k}]: got {short_int(int(x))}; entries must lie in [0, s] = [0, {short_int(s)}]"
            )
    total = sum(va, _ZERO)
    if total > s:
        raise ParameterError(
            f"a: ||a||_1 = {short_int(int(total))}; it must be at most s = {short_int(s)}"
        )
    return va, i, s, t


def _floor_div(values: list[gmpy2.mpz], odd: gmpy2.mpz, shift: int) -> list[gmpy2.mpz]:
    """``floor(x / (odd * 2^shift))`` for each ``x``; a shift is far cheaper than a division."""
    # floor(floor(x / 2^e) / o) = floor(x / (o 2^e)) for integers x >= 0, o >= 1.
    if odd == 1:
        return [x >> shift for x in values]
    return [(x >> shift) // odd for x in values]


def _conv_power(a: list[gmpy2.mpz], i: int, s: int, t: int) -> list[gmpy2.mpz]:
    """Alg 6.16 on valid arguments: the recursion unrolled over the bits of ``i``."""
    # ApproxConvExp(a, i) depends on ApproxConvExp(a, floor(i/2)) and on the parity
    # of i only, so reading i's bits after the leading 1 from the top computes the
    # same values as the recursion, without a recursion depth of log2(i).
    shift = (s & -s).bit_length() - 1  # s = odd * 2^shift
    odd = gmpy2.mpz(s >> shift)
    odd2 = odd * odd
    b = a
    for bit in bin(i)[3:]:
        bb = _convolve(b, b, t)
        if bit == "0":  # i even: floor((b * b) / s)
            b = _floor_div(bb, odd, shift)
        else:  # i odd: floor((a * b * b) / s^2)
            b = _floor_div(_convolve(a, bb, t), odd2, 2 * shift)
    return b


def approx_conv_exp(a: Sequence[int], i: int, s: int, t: int) -> list[int]:
    """ApproxConvExp: the ``i``-fold convolution of ``a``, rounded down at every squaring.

    Paper: BV Alg 6.16, Prop 6.15.

    ``ApproxConvExp(a, 1) = a``; for ``i > 1`` with ``b = ApproxConvExp(a, floor(i/2))``
    it returns ``floor((b*b)/s)`` if ``i`` is even and ``floor((a*b*b)/s^2)`` if ``i``
    is odd, each truncated to ``t`` terms (Def 6.12).  By Prop 6.15 the result lies in
    ``[s]^t`` with ``||.||_1 <= s`` (i), its first ``t' < t`` terms do not depend on
    ``t`` (ii), and ``||d/s - *^(i)(a)/s^i||_1 <= (t/s)(i - 1)`` (iii).

    Args:
        a: a vector in ``[s]^t`` (exactly ``t`` entries in ``[0, s]``) with ``||a||_1 <= s``.
        i: the number of factors, ``i >= 1``.
        s: the scale, ``s >= 1``.
        t: the number of terms kept, ``t >= 1``.

    Returns:
        ``d = ApproxConvExp_{s,t}(a, i)`` as ``t`` ints.

    Raises:
        ParameterError: a parameter outside the range above (the message names it).
        ParameterTypeError: a parameter or entry is not an int.

    >>> approx_conv_exp([6, 4, 0], 2, 10, 3)  # (0.6 + 0.4x)^2 = 0.36 + 0.48x + 0.16x^2
    [3, 4, 1]
    """
    va, i, s, t = _check_conv_exp(a, i, s, t)
    return [int(x) for x in _conv_power(va, i, s, t)]


# -- Alg 6.18: ApproxBinSample ---------------------------------------------------


def _prefix_sums(values: list[gmpy2.mpz]) -> list[gmpy2.mpz]:
    out, total = [], _ZERO
    for x in values:
        total += x
        out.append(total)
    return out


class _RoundCdf:
    """The CDF ``F_k = d_0 + ... + d_k`` of one round of Alg 6.18 (``d = ApproxConvExp``).

    Holds certified bounds ``2^r lo_k <= F_k <= 2^r hi_k`` when ``s`` is large (``lo``,
    ``hi`` kept unshifted), and computes the exact ``F`` only the first time the bounds
    cannot decide ``F_l >= u``.  Subclasses say what ``a`` is.
    """

    __slots__ = ("_exact", "_hi", "_i", "_lo", "_r", "_s", "_shifted", "_t")

    def __init__(self, i: int, s: int, t: int) -> None:
        self._i, self._s, self._t = i, s, t
        self._r = _precision_shift(i, s, t)
        self._exact: list[gmpy2.mpz] | None = None
        # The bounds stay divided by 2^r: the draw is shifted once instead
        # (u <= 2^r L  <=>  (u - 1) >> r < L, and u > 2^r H  <=>  (u - 1) >> r >= H).
        self._lo: list[gmpy2.mpz] = []
        self._hi: list[gmpy2.mpz] = []
        self._shifted: tuple[object, gmpy2.mpz] | None = None
        if self._r:
            lo, hi = _conv_power_bounds(*self._vector_bounds(self._r), i, s, t, self._r)
            self._lo, self._hi = _prefix_sums(lo), _prefix_sums(hi)
        else:
            self._exact = self._compute_exact()

    def _vector(self) -> list[gmpy2.mpz]:
        """``a``, exactly."""
        raise NotImplementedError

    def _vector_bounds(self, r: int) -> tuple[list[gmpy2.mpz], list[gmpy2.mpz]]:
        """``a_lo, a_hi`` with ``2^r a_lo <= a <= 2^r a_hi``."""
        return _vector_bounds(self._vector(), r)

    def _compute_exact(self) -> list[gmpy2.mpz]:
        return _prefix_sums(_conv_power(self._vector(), self._i, self._s, self._t))

    def at_least(self, ell: int, u: int | PrefixDraw) -> bool:
        """Decide ``F_ell >= u`` exactly; ``u`` (a draw) is only compared with integers.

        With bounds, they are always tried first, even once the exact sums are known
        (the object is kept across calls): the exact checker then meets the same
        comparisons on every path, whatever was computed before.
        """
        exact = self._exact
        if self._r:
            if isinstance(u, PrefixDraw):  # a bracket of (u - 1) >> r from the draw's prefix
                w_lo, w_hi = u.shifted_bounds(self._r)
                if w_hi < self._lo[ell]:
                    return True
                if w_lo >= self._hi[ell]:
                    return False
            elif not isinstance(u, int | gmpy2.mpz):  # a symbolic draw: compare, never shift
                if u <= self._lo[ell] << self._r:
                    return True
                if u > self._hi[ell] << self._r:
                    return False
            else:
                shifted = self._shifted
                if shifted is None or shifted[0] is not u:
                    shifted = self._shifted = (u, (u - 1) >> self._r)
                w = shifted[1]
                if w < self._lo[ell]:
                    return True
                if w >= self._hi[ell]:
                    return False
            # u lies between the bounds: only the exact F_ell decides.
            if exact is None:
                exact = self._exact = self._compute_exact()
        assert exact is not None  # computed in __init__ when there are no bounds
        if isinstance(u, PrefixDraw):
            u = u.value()
        return bool(u <= exact[ell])


class _VectorRoundCdf(_RoundCdf):
    """A round's CDF for a given vector ``a``."""

    __slots__ = ("_a",)

    def __init__(self, a: list[gmpy2.mpz], i: int, s: int, t: int) -> None:
        self._a = a
        super().__init__(i, s, t)

    def _vector(self) -> list[gmpy2.mpz]:
        return self._a


class _BinomialRoundCdf(_RoundCdf):
    """A round's CDF for Alg 6.18's ``a = (s - p', p', 0, ...)``, ``p' = floor(s p / q)``.

    ``p'`` is computed only if the exact CDF is needed: the bounds come from
    :func:`_binomial_bounds`, on numbers of about ``log2 m + 2 log2 t + 64`` bits.
    """

    __slots__ = ("_p", "_q")

    def __init__(self, p: int, q: int, i: int, s: gmpy2.mpz, t: int) -> None:
        self._p, self._q = p, q
        super().__init__(i, s, t)

    def _vector(self) -> list[gmpy2.mpz]:
        s = gmpy2.mpz(self._s)
        p_scaled = s * self._p // self._q
        return ([s - p_scaled, p_scaled] + [_ZERO] * self._t)[: self._t]

    def _vector_bounds(self, r: int) -> tuple[list[gmpy2.mpz], list[gmpy2.mpz]]:
        return _binomial_bounds(self._p, self._q, gmpy2.mpz(self._s), self._t, r)


@functools.lru_cache(maxsize=4096)
def _round_cdf(p: int, q: int, i: int, s: gmpy2.mpz, t: int) -> _RoundCdf:
    """One round's CDF of Alg 6.18, kept: the same level of the same mechanism recurs
    across releases, and on every path the exact checker replays (a pure function of
    public values)."""
    return _BinomialRoundCdf(p, q, i, s, t)


class RoundCdf(_VectorRoundCdf):
    """The prefix sums ``F_l`` of ``ApproxConvExp_{s,t}(a, i)``, compared with draws.

    Paper: BV Alg 6.16 / Prop 6.15, Alg 6.18 step 4c.  ``at_least(l, u)`` decides
    ``F_l >= u`` exactly (certified bounds first when ``s`` is long).  Arguments as
    :func:`approx_conv_exp`; a ParameterError outside Prop 6.15's domain.

    >>> RoundCdf([6, 4], 2, 10, 2).at_least(0, 3), RoundCdf([6, 4], 2, 10, 2).at_least(0, 4)
    (True, False)
    """

    __slots__ = ()

    def __init__(self, a: Sequence[int], i: int, s: int, t: int) -> None:
        va, i, s, t = _check_conv_exp(a, i, s, t)
        super().__init__(va, i, s, t)


def approx_bin_sample(m: int, p: int, q: int, s: int, t: int, rng: RandomSource) -> int:
    """ApproxBinSample: approximately sample ``min{Bin(m, p/q), t}`` with numbers of O(log s) bits.

    Paper: BV Alg 6.18, Prop 6.17.

    Alg 6.18: if ``t = 0`` return 0.  Draw ``u`` uniform in ``[1, s]``; let
    ``p' = floor(s p / q)``.  For ``t' = 1, 2, 4, ...`` while ``t' < 2t``: let
    ``a = (s - p', p', 0, ...)`` in ``[s]^t'``, ``d = ApproxConvExp_{s,t'}(a, m)``,
    ``F_k = d_0 + ... + d_k``; for ``l`` from ``floor(t'/2)`` to ``t' - 1``, if
    ``F_l >= u`` return ``min{l, t}``.  If no round returns, return ``t``.
    Hence ``Pr[output = l] = d_l / s`` for ``l < t`` (with ``d`` for ``t' = t``), and
    ``Delta(output, min{Bin(m, p/q), t}) <= (m (t + 1) - t) / s`` (Prop 6.17).  An
    output ``l`` takes at most ``1 + ceil(log2(l + 1))`` rounds.

    The output is Alg 6.18's for every ``u``; each comparison ``F_l >= u`` is first
    tried against certified bounds on ``F_l`` (module notes) and computed exactly only
    if they do not decide it.

    Oracle calls, in order: none if ``t = 0``; otherwise exactly one, ``u = uniform(s)``,
    which is only ever compared with integers.

    Args:
        m: the number of Bernoulli trials, ``m >= 1`` (``m = 0`` is allowed when
            ``t = 0``: Alg 6.20 makes that call once all ``n + 1`` values are placed).
        p: the success numerator, in ``[0, q]``.
        q: the success denominator, ``q >= 1``.
        s: the precision, ``s >= max(m, 1)``.
        t: the truncation, ``t >= 0``.
        rng: the randomness source.

    Returns:
        An int in ``[0, t]``.

    Raises:
        ParameterError: a parameter outside the range above (the message names it).
        ParameterTypeError: a parameter is not an int.
    """
    t = _int_at_least(t, "t", 0)
    m = _int_at_least(m, "m", 0 if t == 0 else 1, "" if t == 0 else " when t >= 1")
    q = _int_at_least(q, "q", 1)
    p = _int_at_least(p, "p", 0)
    if p > q:
        raise ParameterError(f"p: got {short_int(p)}; it must lie in [0, q] = [0, {short_int(q)}]")
    s = _int_at_least(s, "s", max(m, 1), " (BV require s >= m)")
    return _bin_sample(m, p, q, s, gmpy2.mpz(s), t, rng)


def _bin_sample(m: int, p: int, q: int, s: int, big_s: gmpy2.mpz, t: int, rng: RandomSource) -> int:
    """:func:`approx_bin_sample` on checked parameters, with ``s`` also as an ``mpz``.

    Mixing a Python int with an ``mpz`` converts the int every time, and ``s`` has
    about ``n log|X|`` bits (660 kbit at ``n = 10^4``): ApproxOrdSample converts it once.
    """
    if t == 0:
        return 0
    u = draw_compared(rng, s)
    if type(u) is int:  # the checker's symbolic draws (and prefix draws) are only compared
        u = gmpy2.mpz(u)
    t_prime = 1
    while t_prime < 2 * t:  # at most 1 + ceil(log2 t) rounds
        cdf = _round_cdf(p, q, m, big_s, t_prime)
        for ell in range(t_prime // 2, t_prime):
            if cdf.at_least(ell, u):
                return min(ell, t)
        t_prime *= 2
    return t


# -- Alg 6.20: ApproxOrdSample ---------------------------------------------------


def _cdf_values(cdf: Callable[[int], int], n: int) -> list[int]:
    """``F(0), ..., F(n)``, checked to be ints in ``[d]_+`` and non-decreasing."""
    values: list[int] = []
    for v in range(n + 1):
        f = cdf(v)
        if isinstance(f, bool) or not isinstance(f, numbers.Integral):
            raise ParameterTypeError(f"cdf: F({v}) = {f!r} (a {type(f).__name__}); F maps to ints")
        f = int(f)
        if f < 1:
            raise ParameterError(f"cdf: F({v}) = {short_int(f)}; F must map [n] into [d]_+ (>= 1)")
        if values and f < values[-1]:
            raise ParameterError(
                f"cdf: F({v}) = {short_int(f)} < F({v - 1}) = {short_int(values[-1])}; "
                f"F must be non-decreasing"
            )
        values.append(f)
    return values


def _histogram_to_order_statistics(counts: list[int]) -> tuple[int, ...]:
    """``counts[v]`` copies of each ``v``, from ``v = n`` down to 0 (non-increasing)."""
    out: list[int] = []
    for v in range(len(counts) - 1, -1, -1):
        out.extend([v] * counts[v])
    return tuple(out)


def approx_ord_sample(
    cdf: Callable[[int], int], n: int, m: int, s: int, rng: RandomSource
) -> tuple[int, ...]:
    """ApproxOrdSample: approximately the top ``n + 1`` order statistics of ``m`` draws from ``F``.

    Paper: BV Alg 6.20, Prop 6.19 (approximating Alg 6.7 / Prop 6.6).

    With ``L = 0``, for ``v`` from ``n`` down to 1: ``l_v = ApproxBinSample_{s, n+1-L}(m - L,
    F(v) - F(v-1), F(v))`` and ``L += l_v``; then ``l_0 = n + 1 - L``.  The output
    ``(c_0, ..., c_n)`` is ``l_n`` copies of ``n``, then ``l_{n-1}`` copies of ``n - 1``,
    ..., then ``l_0`` copies of 0.  Its statistical distance from the top ``n + 1``
    order statistics ``(Z_(m), ..., Z_(m-n))`` of ``m`` i.i.d. draws with CDF ``F/d``
    is at most ``m (n^2 + 2n) / s`` (Prop 6.19).

    ``F`` is evaluated once at each of ``0, ..., n`` (in that order) before any draw.

    Oracle calls, in order: for ``v = n, n-1, ..., 1`` while fewer than ``n + 1`` values
    are placed (``L < n + 1``), one ``uniform(s)`` (:func:`approx_bin_sample`); none after.

    Args:
        cdf: ``F: [n] -> [d]_+``, non-decreasing with ``F(n) = d``, e.g.
            ``sampler.scaled_cdf_at_zero`` of a ``GeoSample`` or ``FastSample``.
        n: the largest value, ``n >= 1``.
        m: the number of draws, ``m >= n + 1``.
        s: the precision, ``s >= m``.
        rng: the randomness source.

    Returns:
        ``(c_0, ..., c_n)``, non-increasing, in ``[0, n]``.

    Raises:
        ParameterError: a parameter outside the range above, or ``F`` not an
            int-valued, non-decreasing map into ``[d]_+`` (the message names it).
        ParameterTypeError: a parameter or a value of ``F`` is not an int.
    """
    n = _int_at_least(n, "n", 1)
    m = _int_at_least(m, "m", n + 1, " (BV Alg 6.20 needs m >= n + 1)")
    s = _int_at_least(s, "s", m, " (BV Alg 6.20 needs s >= m)")
    f = _cdf_values(cdf, n)
    counts = [0] * (n + 1)
    placed = 0
    big_s = gmpy2.mpz(s)
    for v in range(n, 0, -1):
        # Checked once: 0 <= f[v] - f[v-1] <= f[v], and m - placed >= 1 while values remain.
        counts[v] = _bin_sample(m - placed, f[v] - f[v - 1], f[v], s, big_s, n + 1 - placed, rng)
        placed += counts[v]
    counts[0] = n + 1 - placed
    return _histogram_to_order_statistics(counts)
