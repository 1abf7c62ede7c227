"""GeoSample: the clamped geometric mechanism by exact inverse-CDF sampling.

Paper: BV Alg 4.8, Thm 4.7, Lemma 4.9.

With ``alpha = a/b`` (BV: ``a = 2^k``, ``b = 2^k + 1``) the CDF of ``c + Geo``
clamped to ``[0, n]`` has the common denominator ``d = (a + b) b^(n-1)``, and

    F(z) = a^(c-z) b^(n-(c-z))             for z in [0, c)
    F(z) = d - a^(z-c+1) b^(n-1-(z-c))     for z in [c, n)
    F(z) = d                               for z >= n  (0 for z < 0).

One draw ``u`` in ``[1, d]`` and a binary search give an exact sample.  The
integers have ``O(n log b)`` bits, so a sample costs ``O~(n log(1/eps))``.

>>> g = GeoSample(4, 1)
>>> g.k, g.d
(1, 135)
>>> [g(2, u) for u in (1, 36, 37, 135)]  # F(0) = 2^2 * 3^2 = 36 for c = 2
[0, 0, 1, 4]
"""

from __future__ import annotations

from fractions import Fraction

import gmpy2

from ..errors import ParameterError
from ..exactmath import compare_exp, min_power_at_least, power_bounds, power_bracket, rescaled
from ..params import check_count, check_positive_int, positive_fraction, probability, short_fraction
from ..ratio import DEFAULT_SLACK, GeometricRatio, resolve_noise
from ..resources import require_bits
from .base import (
    CountingSampler,
    ceil_log2_int,
    check_work,
    require_sampling_time,
)
from .geometric import GeometricMechanism
from .leading import ENTRY_BYTES, LeadingWords, fixed_lower_bound

__all__ = ["GEO_TABLE_BYTES", "GeoSample"]

#: GeoSample keeps its ``2n`` distinct CDF values when they fit in this many bytes.
GEO_TABLE_BYTES = 64 << 20

#: The bits of ``F`` a search without the table compares with a draw before it
#: computes ``F`` exactly (only on a tie of that many leading bits).
SEARCH_PRECISION = 128


def _tables_fit(n: int, bits: int) -> bool:
    """Whether ``2n`` CDF values of ``bits`` bits and their words fit in :data:`GEO_TABLE_BYTES`."""
    return 2 * (n + 1) * (bits // 8 + 28 + ENTRY_BYTES) <= GEO_TABLE_BYTES


class GeoSample(CountingSampler):
    """BV's GeoSample: an exact sampler of the clamped geometric mechanism.

    Paper: BV Alg 4.8, Thm 4.7 (``eps~/2``-DP for counting queries, exact
    distribution ``GeometricMechanism(n, e^(eps~/2))``).

    Args:
        n: the number of rows (counts lie in ``[0, n]``).
        epsilon: the budget; ``1/m`` in paper mode, any positive rational in tight mode.
        noise: ``"paper"`` (BV's ratio ``2^k/(2^k+1)``, the default) or ``"tight"``
            (a rational ratio using at least ``1 - slack`` of ``eps/2``).
        slack: the share of ``eps/2`` a tight ratio may leave unused.
        ratio: an explicit ratio ``a/b`` instead of ``noise``'s (Lebeda's ALP uses
            ``1/(1 + e)``); its ``b/a <= e^(eps/2)`` is decided exactly.
        samples, empty: the searches and the empty bins' samples the caller means to
            draw; the constructor refuses at once when they and the set-up are
            estimated above the time budget (:mod:`finitedp.resources`).  More than
            ``n/8`` searches build the CDF table at once (see :meth:`_build_tables`).

    Raises:
        ParameterError: a parameter out of range; FloatParameterError: a float.
        ResourceLimitError: memory or time estimated above the limits.
    """

    __slots__ = ("_a", "_b", "_searches", "_shifted", "_tables")

    def __init__(
        self,
        n: int,
        epsilon: object,
        *,
        noise: str = "paper",
        slack: object = DEFAULT_SLACK,
        ratio: GeometricRatio | None = None,
        samples: int = 1,
        empty: int = 0,
    ) -> None:
        n = check_positive_int(n, "n")
        if ratio is None:
            eps, ratio = resolve_noise(epsilon, noise, slack)
        else:
            eps = positive_fraction(epsilon, "epsilon")
            if compare_exp(ratio.exp_epsilon, eps / 2) > 0:
                raise ParameterError(
                    f"ratio: b/a = {ratio.exp_epsilon} exceeds e^(eps/2) for eps = {eps}"
                )
        require_bits(
            (ratio.a + ratio.b).bit_length() + (n - 1) * ratio.b.bit_length(),
            "GeoSample's integers (d = (a + b) b^(n-1))",
            f"n = {n}, epsilon = {short_fraction(eps)}",
            copies=8,  # d, the draw's bytes, the draw, its reduction, CDF values in the search
        )
        check_work(samples, empty)
        bits = (ratio.a + ratio.b).bit_length() + (n - 1) * ratio.b.bit_length()
        # A search decides each comparison from F's leading bits (cdf_bounds: O(log n)
        # products of 128-bit words), and computes F, a power of b, only on a tie of
        # 2^-120 or so: no pass beyond its draw's.  (A short F is computed: no cost.)
        searches = 0
        setup = 2  # d
        eager = samples > n // 8
        if _tables_fit(n, bits) and eager:
            # After n/8 searches the tables (2n products) leave only the draws.
            setup, samples, empty = setup + 2 * (n + 1), n // 8, empty + samples - n // 8
        cause = f"n = {n}, epsilon = {short_fraction(eps)}"
        require_sampling_time(bits, setup, searches, samples, empty, "GeoSample", cause)
        a, b = gmpy2.mpz(ratio.a), gmpy2.mpz(ratio.b)
        # d = (a + b) b^(n-1); BV: (2^(k+1) + 1)(2^k + 1)^(n-1).
        super().__init__(n, eps, ratio, int((a + b) * b ** (n - 1)))
        self._a, self._b = a, b
        self._shifted: tuple[int, int, int] | None = None  # (T, d >> T, ceil(d / 2^T))
        # None: not built yet; (): too large to keep (GEO_TABLE_BYTES).
        self._tables: LeadingWords | tuple[()] | None = None
        self._searches = 0
        if eager:
            # The caller means to search more than the table costs: build it now, so that
            # every search, the first ones too, takes the table's fixed steps.
            self._build_tables()

    @property
    def max_comparisons(self) -> int:
        """``ceil(log2(n + 1))``: the binary search over ``[0, n]`` of Alg 4.8 step 3.

        Every search makes exactly this many comparisons, wherever the value lies
        (:mod:`.leading`).
        """
        return ceil_log2_int(self._n + 1)

    @property
    def reference(self) -> GeometricMechanism:
        """The exact distribution this sampler realises (Thm 4.7 i)."""
        return GeometricMechanism(self._n, self._ratio.exp_epsilon)

    def _a_power(self, j: int) -> gmpy2.mpz:
        k = self._ratio.k
        return gmpy2.mpz(1) << (k * j) if k is not None else self._a**j

    def _cdf(self, c: int, z: int) -> gmpy2.mpz:
        n = self._n
        if z < 0:
            return gmpy2.mpz(0)
        if z >= n:
            return gmpy2.mpz(self._d)
        if z < c:
            return self._a_power(c - z) * self._b ** (n - (c - z))
        return self._d - self._a_power(z - c + 1) * self._b ** (n - 1 - (z - c))

    def cdf(self, c: int, z: int) -> int:
        """The integer ``F(z)`` of Alg 4.8 step 2 for true count ``c`` (any integer ``z``)."""
        return int(self._cdf(check_count(c, self._n), z))

    def cdf_shift(self, precision: int) -> int:
        """``T``: :meth:`cdf_bounds` brackets ``F / 2^T``, about ``precision`` bits."""
        return max(0, self._d.bit_length() - precision)

    def cdf_bounds(self, c: int, z: int, precision: int) -> tuple[int, int]:
        """``(lo, hi)`` with ``lo <= F(z) / 2^T <= hi``, ``T`` = :meth:`cdf_shift`, from
        :func:`~finitedp.exactmath.power_bounds`: ``O(log n)`` products of about
        ``precision`` bits where ``F`` itself has ``n log b`` bits.  ``hi - lo`` is a few
        units, so a comparison with ``F`` is decided from it but within ``2^(T + 3)``."""
        n, shift = self._n, self.cdf_shift(precision)
        if z < 0:
            return 0, 0
        d_lo, d_hi = self._d_shifted(shift)
        if z >= n:
            return d_lo, d_hi
        bits = precision + 2 * n.bit_length() + 8
        if z < c:
            return power_bounds([(self._a, c - z), (self._b, n - (c - z))], bits, shift)
        lo, hi = power_bounds([(self._a, z - c + 1), (self._b, n - 1 - (z - c))], bits, shift)
        return d_lo - hi, d_hi - lo

    def _d_shifted(self, shift: int) -> tuple[int, int]:
        """``(floor(d / 2^T), ceil(d / 2^T))``, kept: ``d`` has ``n log b`` bits."""
        if self._shifted is None or self._shifted[0] != shift:
            self._shifted = (shift, self._d >> shift, -(-self._d >> shift))
        return self._shifted[1], self._shifted[2]

    def gap_bracket(self, v: int, w: int, bits: int) -> tuple[int, int, int]:
        """``(lo, hi, t)`` with ``lo 2^t <= F(0, v) - F(0, w) <= hi 2^t`` (``-1 <= w <= v``),
        of relative width about ``2^-bits``: what the order statistics of ``pmg-pure``
        (:func:`~finitedp.sketches.sparsetop.approx_top_sample`) decide floors from.

        A difference of two values of ``F`` is bracketed as a product, never as two
        long values subtracted: for ``0 <= w <= v < n``
        ``F(v) - F(w) = a^(w+1) b^(n-1-v) (b^(v-w) - a^(v-w))``, and ``b^k - a^k``
        keeps all but ``bits(b)`` of its bits (``1 - (a/b)^k >= 1/b``); for ``v >= n``
        it is ``a^(w+1) b^(n-1-w)``; for ``w = -1`` it is ``F(v) >= b^n``, at least
        ``d/2``.
        """
        n, a, b = self._n, self._a, self._b
        inner = bits + int(b).bit_length() + 2 * n.bit_length() + 8
        if v <= w or w >= n:
            return 0, 0, 0
        if w < 0:
            shift = self.cdf_shift(inner)
            lo, hi = self.cdf_bounds(0, v, inner)
            return lo, hi, shift
        if v >= n:
            return power_bracket([(a, w + 1), (b, n - 1 - w)], inner)
        b_lo, b_hi, b_at = power_bracket([(b, v - w)], inner)
        a_lo, a_hi = rescaled(*power_bracket([(a, v - w)], inner), b_at)
        lo, hi, at = power_bracket([(a, w + 1), (b, n - 1 - v)], inner)
        return lo * max(0, b_lo - a_hi), hi * (b_hi - a_lo), at + b_at

    def _below(self, c: int, z: int, u: int, top: int | None) -> bool:
        """``F(c, z) < u``, with ``top = (u - 1) >> T``: decided from :meth:`cdf_bounds`
        unless ``u`` falls within their few units, then exactly.  ``top`` is ``None``
        where ``T = 0`` (``F`` is short) and for the checker's draws, which are compared
        once a step, with ``F`` itself."""
        if top is not None:
            lo, hi = self.cdf_bounds(c, z, SEARCH_PRECISION)
            if hi <= top:  # F <= hi 2^T <= (u - 1)
                return True
            if lo > top:  # F >= lo 2^T >= (top + 1) 2^T > u - 1
                return False
        return bool(self._cdf(c, z) < u)

    def _build_tables(self) -> LeadingWords | tuple[()]:
        """``F(c, c + j)`` for ``-n <= j < n`` at position ``n + j``: F depends on ``z - c`` only.

        ``2n`` integers of ``bits(d)`` bits and their leading words, built once
        (``O(n)`` products) when they fit in :data:`GEO_TABLE_BYTES`; a search then
        only compares words.  Built after ``n/8`` searches (a search computes
        ``log n`` powers; the table costs about ``n/8`` of them), so a sampler used a
        few times never pays for it.
        """
        n, a, b = self._n, self._a, self._b
        if not _tables_fit(n, self._d.bit_length()):
            self._tables = ()
            return self._tables
        pow_a, pow_b = [gmpy2.mpz(1)], [gmpy2.mpz(1)]
        for _ in range(n + 1):
            pow_a.append(pow_a[-1] * a)
            pow_b.append(pow_b[-1] * b)
        d = gmpy2.mpz(self._d)
        below = [int(pow_a[j] * pow_b[n - j]) for j in range(n, 0, -1)]  # z = c - j, j >= 1
        above = [int(d - pow_a[j + 1] * pow_b[n - 1 - j]) for j in range(n)]  # z = c + j < n
        self._tables = LeadingWords(below + above, low=0, high=self._d)
        return self._tables

    def _search(self, c: int, u: int) -> int:
        tables = self._tables
        if tables is None:
            self._searches += 1
            if self._searches > self._n // 8:
                tables = self._build_tables()
        steps = self.max_comparisons
        if not tables:
            # The same steps, each deciding F < u from F's leading bits (power_bounds),
            # exactly only where they tie with u's (probability about 2^-120 a step).
            shift = self.cdf_shift(SEARCH_PRECISION)
            top = (u - 1) >> shift if shift and isinstance(u, (int, gmpy2.mpz)) else None
            return fixed_lower_bound(lambda z: self._below(c, z, u, top), 0, self._n + 1, steps)
        first = self._n - c  # the position of F(c, 0); position first + n (z = n) is not read
        return tables.lower_bound(u, first, self._n + 1, steps) - first

    def accuracy(self, beta: object) -> int:
        """The ``a`` of Thm 4.7 i, ``ceil((2/eps~) ln(1/beta))``, computed exactly.

        Raises:
            ParameterError: ``beta`` outside ``(0, 1)``.
        """
        return min_power_at_least(self._ratio.exp_epsilon, 1 / probability(beta, "beta"))

    @property
    def privacy_ratio(self) -> Fraction:
        """``e^(eps~/2) = b/a``: the exact worst ratio between neighbouring counts."""
        return self._ratio.exp_epsilon

    def __repr__(self) -> str:
        extra = "" if self.mode == "paper" else ', noise="tight"'
        return f"GeoSample(n={self._n}, epsilon={self._epsilon}{extra})"
