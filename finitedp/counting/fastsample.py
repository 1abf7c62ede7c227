"""FastSample: truncated geometric noise mixed with uniform noise, on short integers.

Paper: BV Alg 4.11, Thm 4.10, Lemma 4.12 (and Lemma 3.2 for the mixing).

The geometric noise is truncated to ``|z - c| <= t`` (the lost tails are put
on ``c``), which needs integers of only ``O(t log b)`` bits, and then mixed
with probability ``gamma = 1/g`` with the uniform distribution on ``[0, n]``,
which restores pure privacy (Lemma 3.2).  With ``alpha = a/b``,
``d' = (a + b) b^t``, ``d = (n + 1) d' g`` and ``K = (g - 1)(n + 1)``:

    F'(z) = a^(c-z) b^(t+1-(c-z)) - a^(t+1)          for z in [max(0, c-t), c)
    F'(z) = d' - a^(z-c+1) b^(t-(z-c)) + a^(t+1)     for z in [c, min(c+t, n))
    F'(z) = 0 below that range and d' above it
    F(z)  = (z + 1) d' + K F'(z)                     for z in [0, n].

Search.  ``F`` is ``(z + 1) d'`` left of ``c - t`` and ``(z + 1 + K) d'`` from
``min(c + t, n)`` on, so those stretches are inverted by one floor division,
and only the ``<= 2t`` values in between are searched, in fixed steps over the
leading words of a table ``T[j] = j d' + K F'(c + j)`` that does not depend on
``c`` (:mod:`.leading`).  Every draw takes the steps of all three regions, so the
time does not tell them apart (proofs_notes/fastsample.md).  The result is the
same function ``u -> min{z : F(z) >= u}`` as BV's binary search over ``[0, n]``
(``bisect_reference``); the checker proves it path by path.

>>> s = FastSample(10, 1, "1/2")
>>> s.k, s.t, s.d == 11 * s.d_prime * 2
(1, 31, True)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from fractions import Fraction
from typing import overload

import gmpy2

from ..errors import ParameterError
from ..exactmath import ceil_log, ceil_log_ratio, min_power_at_least
from ..params import (
    check_count,
    check_positive_int,
    exact_fraction,
    inverse_natural,
    short_fraction,
    short_int,
)
from ..ratio import DEFAULT_SLACK, GeometricRatio, resolve_noise
from ..resources import require_bits
from .base import CountingSampler, require_sampling_time
from .leading import ENTRY_BYTES, LeadingWords, steps_for

__all__ = ["FastSample", "d_bits_bound", "fastsample_plan", "paper_threshold", "tight_threshold"]


def paper_threshold(n: int, epsilon: Fraction, gamma: Fraction) -> int:
    """BV's ``t = ceil(9/(2 eps) * ceil(log2(8 (n+1)(1-gamma) / (eps gamma)))) - 1`` (Alg 4.11)."""
    m, g = epsilon.denominator // epsilon.numerator, gamma.denominator
    # With eps = 1/m and gamma = 1/g the argument of the logarithm is the integer 8(n+1)(g-1)m.
    log_term = ceil_log(8 * (n + 1) * (g - 1) * m, 2)
    return (9 * m * log_term + 1) // 2 - 1


def tight_threshold(n: int, ratio: GeometricRatio, gamma: Fraction) -> int:
    """The smallest ``t >= 0`` meeting condition (1) of Lemma 3.2 with ``e^eps = b/a``.

    The truncated mass ``2 alpha^(t+1) / (1 + alpha)`` must be at most
    ``(b - a)/(b + a) * gamma/(1 - gamma) / (n + 1)``; cleared of denominators,
    ``2 a^(t+1) (g - 1)(n + 1) <= (b - a) b^t``.
    """
    a, b, g = ratio.a, ratio.b, gamma.denominator
    # Equivalently (b/a)^t >= 2 a (g - 1)(n + 1) / (b - a): a logarithm, found
    # without powers of b/a (t may be far too large to raise anything to it).
    return max(0, ceil_log_ratio(Fraction(b, a), Fraction(2 * a * (g - 1) * (n + 1), b - a)))


def d_bits_bound(n: int, ratio: GeometricRatio, gamma: Fraction, t: int) -> int:
    """An upper bound on the bits of ``d = (n + 1)(a + b) b^t g``, without computing it."""
    return (
        (n + 1).bit_length()
        + (ratio.a + ratio.b).bit_length()
        + t * ratio.b.bit_length()
        + gamma.denominator.bit_length()
    )


def fastsample_plan(
    n: int, epsilon: object, gamma: object, noise: str = "paper", slack: object = DEFAULT_SLACK
) -> tuple[Fraction, GeometricRatio, Fraction, int, int]:
    """``(eps, ratio, gamma, t, bits)`` of ``FastSample(n, epsilon, gamma, ...)``, where
    ``bits`` bounds ``bits(d)``: from the parameters alone, before any large integer.

    Raises:
        ParameterError: a parameter out of range; FloatParameterError: a float.
    """
    eps, ratio = resolve_noise(epsilon, noise, slack)
    gam = inverse_natural(gamma, "gamma", below_one=True)
    if ratio.k is not None:
        t = paper_threshold(n, eps, gam)
    else:
        # ln(b/a) <= (b - a)/a bounds t from below in integers: a tiny eps is refused
        # before tight_threshold brackets logarithms at thousands of bits.
        a, b, g = ratio.a, ratio.b, gam.denominator
        exponent = (2 * a * (g - 1) * (n + 1)).bit_length() - (b - a).bit_length() - 1
        low = max(0, exponent * 69 * a // (100 * (b - a)))  # ln 2 > 0.69
        require_bits(
            d_bits_bound(n, ratio, gam, low),
            f"FastSample's integers (d = (n + 1)(a + b) b^t / gamma with t >= {short_int(low)})",
            f"epsilon = {short_fraction(eps)}, gamma = {short_fraction(gam)}, n = {n}",
            copies=SAMPLE_COPIES,
        )
        t = tight_threshold(n, ratio, gam)
    return eps, ratio, gam, t, d_bits_bound(n, ratio, gam, t)


#: Integers of about ``bits(d)`` alive while sampling: ``d``, ``d'``, ``K d'``, the
#: draw's bytes, the draw and its reduction, and the search's temporaries (GMP's
#: products and quotients among them: a process peaked at 12.9 times ``bits(d)/8``
#: bytes at 1.4 * 10^8 bits, three samples of the lazy table).
SAMPLE_COPIES = 14

#: Above this size the search table is computed entry by entry when searched
#: (``O(log t)`` exact powers per sample) instead of being kept in memory.
MAX_TABLE_BYTES = 64 << 20

#: Passes over ``bits(d)``-bit integers that building ``d`` takes (``b^t``, the
#: products by ``a + b``, ``n + 1`` and ``g``, and their conversions).
CONSTRUCTION_PASSES = 6


class _LazyTable(Sequence[int]):
    """``T[j] = j d' + K F'(c + j)`` computed on access: same values, no ``O(t^2)`` memory."""

    __slots__ = ("_a", "_b", "_sampler")

    def __init__(self, sampler: FastSample, a: gmpy2.mpz, b: gmpy2.mpz) -> None:
        self._sampler, self._a, self._b = sampler, a, b

    def __len__(self) -> int:
        return 2 * self._sampler._width

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...

    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        s = self._sampler
        if not 0 <= index < 2 * s._width:
            raise IndexError(index)  # also ends iteration over the table
        j = index - s._width
        truncated = s._truncated_cdf(self._a, self._b, j)
        return int(j * s._dp + s._k_mix * truncated)


class FastSample(CountingSampler):
    """BV's FastSample: ``eps/2``-DP counting queries with ``O(t log(1/eps))``-bit integers.

    Paper: BV Alg 4.11, Thm 4.10; Lemma 4.12 states the distribution.

    Args:
        n: the number of rows (counts lie in ``[0, n]``).
        epsilon: the budget; ``1/m`` in paper mode, any positive rational in tight mode.
        gamma: the uniform mixing weight, ``1/g`` with ``g >= 2``.
        noise: ``"paper"`` (BV's ratio and ``t``, the default) or ``"tight"``
            (a tight rational ratio and the smallest ``t`` meeting Lemma 3.2 (1)).
        slack: the share of ``eps/2`` a tight ratio may leave unused.
        samples, empty: the searches and the empty bins' samples the caller means to
            draw; the constructor refuses at once when they and the set-up are
            estimated above the time budget (:mod:`finitedp.resources`).

    Raises:
        ParameterError: a parameter out of range; FloatParameterError: a float.
        ResourceLimitError: memory or time estimated above the limits.
    """

    __slots__ = ("_dp", "_gamma", "_k_dp", "_k_mix", "_steps", "_t", "_table", "_width")

    def __init__(
        self,
        n: int,
        epsilon: object,
        gamma: object,
        *,
        noise: str = "paper",
        slack: object = DEFAULT_SLACK,
        samples: int = 1,
        empty: int = 0,
    ) -> None:
        n = check_positive_int(n, "n")
        eps, ratio, gam, t, bits = fastsample_plan(n, epsilon, gamma, noise, slack)
        require_bits(
            bits,
            f"FastSample's integers (d = (n + 1)(a + b) b^t / gamma with t = {short_int(t)})",
            f"epsilon = {short_fraction(eps)}, gamma = {short_fraction(gam)}, n = {n}",
            copies=SAMPLE_COPIES,
        )
        width = min(t, n)
        # Each entry: its value, its word and hash-set slot (:mod:`.leading`); else each
        # entry is computed when searched.
        kept = 2 * width * (bits // 8 + 28 + ENTRY_BYTES) <= MAX_TABLE_BYTES
        require_sampling_time(
            bits,
            CONSTRUCTION_PASSES + (2 * width if kept else 0),
            # The lazy table: a truncated CDF per comparison, a pass each (measured 4 s a
            # sample at 1.4 * 10^8 bits, where a pass is estimated at 0.9 s).
            0 if kept else 2 + (min(2 * t, n) + 1).bit_length(),
            samples,
            empty,
            f"FastSample (t = {short_int(t)})",
            f"epsilon = {short_fraction(eps)}, gamma = {short_fraction(gam)}, n = {n}",
        )
        # The search compares Python ints: mixing them with mpz costs a conversion per operation.
        a, b = gmpy2.mpz(ratio.a), gmpy2.mpz(ratio.b)
        dp = int((a + b) * b**t)
        super().__init__(n, eps, ratio, (n + 1) * dp * gam.denominator)
        self._gamma, self._t, self._dp = gam, t, dp
        self._k_mix = (gam.denominator - 1) * (n + 1)
        self._k_dp = self._k_mix * dp
        self._width = min(self._t, n)
        # A search spans z in [max(c - t, 0), min(c + t, n)): at most M = min(2t, n) positions.
        self._steps = steps_for(max(min(2 * t, n), 1))
        self._table: LeadingWords | _LazyTable = (
            LeadingWords(self._search_table(a, b), low=-(n + 1) * dp, high=self._d)
            if kept
            else _LazyTable(self, a, b)
        )

    def _truncated_cdf(self, a: gmpy2.mpz, b: gmpy2.mpz, j: int) -> gmpy2.mpz:
        """``F'(c + j)`` inside the untruncated range ``-t <= j < t``."""
        t = self._t
        if j < 0:
            return a ** (-j) * b ** (t + 1 + j) - a ** (t + 1)
        return self._dp - a ** (j + 1) * b ** (t - j) + a ** (t + 1)

    def _search_table(self, a: gmpy2.mpz, b: gmpy2.mpz) -> list[int]:
        w, t, dp, k_mix = self._width, self._t, self._dp, self._k_mix
        # Both halves of the table use the same products p_i = a^i b^(t+1-i) for
        # i = 1..w (below: j = -i; above: j = i - 1), so only those w are made,
        # each from the last by one small product and one exact small division:
        # memory O(w bits(d)) however large t is (t may exceed n, see the note).
        top = a ** (t + 1)
        products, p = [], a * b**t
        for i in range(w):
            products.append(p)
            if i + 1 < w:
                p = gmpy2.divexact(p * a, b)
        below = [products[-j - 1] - top for j in range(-w, 0)]
        above = [dp - products[j] + top for j in range(w)]
        return [int(j * dp + k_mix * f) for j, f in zip(range(-w, w), below + above, strict=True)]

    @property
    def gamma(self) -> Fraction:
        """The weight of the uniform component (Alg 3.1 / Lemma 4.12 ii)."""
        return self._gamma

    @property
    def t(self) -> int:
        """The truncation: noise beyond ``|z - c| > t`` is moved onto ``c`` (Lemma 4.12 i)."""
        return self._t

    @property
    def d_prime(self) -> int:
        """``d' = (a + b) b^t``; BV: ``(2^(k+1) + 1)(2^k + 1)^t``.  (``d = (n + 1) d' / gamma``.)"""
        return self._dp

    @property
    def max_comparisons(self) -> int:
        """``2 + max(ceil(log2(M)), 1)`` with ``M = min(2t, n)``: attained, so exact.

        Two region tests (left of ``c - t``, right of ``c + t``); in the table, a search
        of its ``M`` positions in exactly ``ceil(log2(M))`` steps (:mod:`.leading`);
        right of it, one test of ``F(high)``.  A draw outside the table's range is
        finished by one floor division.
        """
        return 2 + max(self._steps, 1)

    def _truncated(self, c: int, z: int) -> int:
        if z < 0:
            return 0
        j = z - c
        if z >= self._n or j >= self._t:
            return self._dp
        if j < -self._t:
            return 0
        a, b = gmpy2.mpz(self._ratio.a), gmpy2.mpz(self._ratio.b)
        return int(self._truncated_cdf(a, b, j))

    def truncated_cdf(self, c: int, z: int) -> int:
        """``F'(z)`` of Alg 4.11 step 3: ``d'`` times the CDF of ``Z'`` clamped (Lemma 4.12 i)."""
        return self._truncated(check_count(c, self._n), z)

    def _cdf(self, c: int, z: int) -> int:
        if z < 0:
            return 0
        if z >= self._n:
            return self._d
        return (z + 1) * self._dp + self._k_mix * self._truncated(c, z)

    def cdf(self, c: int, z: int) -> int:
        """The integer ``F(z)`` of Alg 4.11 step 3 for true count ``c`` (any integer ``z``)."""
        return self._cdf(check_count(c, self._n), z)

    def _search(self, c: int, u: int) -> int:
        dp, t, table = self._dp, self._t, self._table
        low = c - t if c > t else 0
        high = c + t if c + t < self._n else self._n
        offset = self._width - c  # table position of z
        if not isinstance(table, LeadingWords):
            return self._search_lazy(table, c, u, low, high, offset)
        # Left of low F(z) = (z + 1) d'; from high on F(z) = (z + 1 + K) d' (F(n) = d
        # included); in between, the table.  Every draw makes the same steps: the two
        # region tests, the search, the test of F(high), one division.  The search of a
        # draw outside the table is keyed by a number that falls inside it: the same
        # steps, and reads as varied as a table draw's (a key past either end would read
        # one fixed path, which stays cached).  The checker's symbolic draw is replaced by
        # d wherever its region does not need it: it meets its own region's comparisons.
        d = self._d
        x = u - (c + 1) * dp
        in_left = u <= low * dp
        in_right = x > (table.values[high - 1 + offset] if high > low else (low - c - 1) * dp)
        spare = u if type(u) is int else d
        # Outside the table, keys that fall inside its range: u (left), u - K d' (right).
        # (Indexing with the tests, not `if`/`or`, so that no region skips an operation.)
        outside = (spare - self._k_dp, spare)[in_left]
        key = (x, outside)[in_left | in_right]
        i = table.lower_bound(key, low + offset, max(high - low, 1), self._steps)
        # One division answers both stretches: right of high, F(z) = (z + 1 + K) d', so
        # the quotient of u less K is z.  Testing F(high) first keeps it within
        # [high + 1, n] (and the checker's draw from branching inside high's interval).
        at_high = (u if in_right else spare) - self._k_dp <= (high + 1) * dp
        q = ((spare, u)[in_left | (in_right & (at_high ^ True))] - 1) // dp
        return (i - offset, (q - self._k_mix, high)[at_high], q)[in_right + 2 * in_left]

    def _search_lazy(
        self, table: _LazyTable, c: int, u: int, low: int, high: int, offset: int
    ) -> int:
        """The search when the table is computed entry by entry: steps and time vary."""
        dp = self._dp
        if u <= low * dp:
            return (u - 1) // dp
        i = bisect_left(table, u - (c + 1) * dp, low + offset, high + offset)
        if i < high + offset:
            return i - offset
        shifted = u - self._k_dp
        if shifted <= (high + 1) * dp:
            return high
        return (shifted - 1) // dp

    def accuracy(self, beta: object) -> int:
        """The ``a`` of Thm 4.10 ii, ``ceil((2/eps~) ln(1/(beta - gamma)))``, computed exactly.

        Raises:
            ParameterError: ``beta`` not in ``(gamma, 1)``.
        """
        b = exact_fraction(beta, "beta")
        if not self._gamma < b < 1:
            raise ParameterError(
                f"beta: got {short_fraction(b)}; it must lie in (gamma, 1) = "
                f"({short_fraction(self._gamma)}, 1)"
            )
        return min_power_at_least(self._ratio.exp_epsilon, 1 / (b - self._gamma))

    @property
    def privacy_ratio(self) -> Fraction | None:
        """A proven rational bound on the privacy ratio, or ``None`` if only ``e^(eps/2)`` is.

        Tight mode chooses ``t`` for ``e^eps = b/a`` in Lemma 3.2, so the ratio is at
        most ``b/a``.  BV's ``t`` is chosen for ``e^(eps/2)``, which is irrational.
        """
        return self._ratio.exp_epsilon if self._ratio.k is None else None

    def __repr__(self) -> str:
        extra = "" if self.mode == "paper" else ', noise="tight"'
        return f"FastSample(n={self._n}, epsilon={self._epsilon}, gamma={self._gamma}{extra})"
