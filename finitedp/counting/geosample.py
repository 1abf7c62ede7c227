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
from ..exactmath import compare_exp, min_power_at_least
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

    __slots__ = ("_a", "_b", "_searches", "_tables")

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
        # A search computes F at each comparison: a power of b, about half a pass.
        searches = (ceil_log2_int(n + 1) + 1) // 2
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
            # The same steps, each computing its F: fixed in number, not in time (powers).
            return fixed_lower_bound(lambda z: self._cdf(c, z) < u, 0, self._n + 1, steps)
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
