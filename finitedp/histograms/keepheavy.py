"""KeepHeavy and its simulation KH': release only the heaviest noisy bins.

Paper: BV Section 6.1: Alg 6.1 (KeepHeavy), Thm 6.2, Lemma 6.3, Alg 6.4 (KH'),
Prop 6.5, Prop 6.6 and Alg 6.7 (OrdSample); Alg 6.21 (SparseHistogram) is KH'
with another order-statistics step (see :mod:`finitedp.histograms.sparse`).

* :func:`keep_heavy` is BV's ``KeepHeavy_M``: ``BasicHistogram_{M,X}`` over the
  whole universe, then only the bins strictly heavier than the ``(n+1)``-th
  heaviest noisy count are kept.  It touches every bin: a reference for small
  universes.
* :func:`kh_prime` is BV's ``KH'_M``: noise for the occupied bins ``A`` only,
  ``n + 1`` uniformly chosen empty bins standing for the heaviest empty ones,
  and their noisy counts drawn jointly from the top ``n + 1`` order statistics
  of ``m = |X \\ A|`` independent ``M(0, U)``.  With :func:`ord_sample` (the
  default) it is identically distributed to :func:`keep_heavy` (Prop 6.5); the
  order-statistics step is a parameter so that SparseHistogram is the same
  function with ``ApproxOrdSample`` plugged in.
* :func:`ord_sample` is BV's ``OrdSample_F(m)`` (Alg 6.7) with exact binomials
  (:func:`finitedp.histograms.approx.exact_bin_sample`, one draw in ``[1, q^m]`` each): its
  integers have ``Omega(m)`` bits, as BV note after Prop 6.6.

Ties.  The release is ``{(x, c~_x) : c~_x > c~_{x_{n+1}}}``, and the value
``c~_{x_{n+1}}`` is the ``(n+1)``-th largest entry of the *multiset* of noisy
counts, whatever order is chosen among equal counts (BV footnote 5).  So no
tie-breaking randomness is needed and none is used: the code computes that
value and keeps the bins strictly above it.

>>> from finitedp import GeoSample, SeededSource
>>> geo = GeoSample(3, 1)
>>> h = keep_heavy(geo, [2, 2, 5], 8, rng=SeededSource(b"kh"))
>>> len(h) <= 3 and list(h) == sorted(h)
True
>>> h2 = kh_prime(geo, [2, 2, 5], 8, rng=SeededSource(b"kh'"))
>>> len(h2) <= 3 and all(1 <= h2[x] <= 3 for x in h2)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Protocol

import gmpy2

from ..counting.base import CountingSampler
from ..errors import NotApplicableError, ParameterError
from ..oracle import RandomSource, default_source, draw
from ..params import check_positive_int, short_int
from ..resources import require_time
from .basic import noisy_counts
from .binomial import exact_ord_sample
from .dataset import dataset_counts
from .distinct import distinct_sample
from .mechanisms import MAX_DENSE_UNIVERSE
from .release import PartialHistogram

__all__ = [
    "MAX_EXACT_ORDER_BITS",
    "OrderStatisticsSampler",
    "heavy_threshold",
    "keep_heavy",
    "kh_prime",
    "ord_sample",
]

#: The largest bit length ``m * bitlength(F(n))`` of the exact binomial domains
#: ``q^m`` that :func:`ord_sample` accepts (an integer of 2 MiB); beyond it use
#: :func:`finitedp.histograms.sparse.sparse_histogram`, whose ApproxOrdSample has short integers.
MAX_EXACT_ORDER_BITS = 1 << 24


class OrderStatisticsSampler(Protocol):
    """Step 4 of KH' / SparseHistogram: ``(c_0, ..., c_n)``, the top ``n + 1`` order statistics.

    Called as ``sampler(cdf, n, m, rng)`` where ``cdf(z) = F_M(z)`` for ``z`` in
    ``[0, n]`` (BV Def 4.3) and ``m >= n + 1`` is the number of empty bins; it
    returns ``n + 1`` values in ``[0, n]``, non-increasing.
    """

    def __call__(
        self, cdf: Callable[[int], int], n: int, m: int, rng: RandomSource
    ) -> tuple[int, ...]:
        """Sample ``(Z_(m), ..., Z_(m-n))`` (exactly, or approximately)."""
        ...


def heavy_threshold(counts: Iterable[int], n: int) -> int:
    """``c~_{x_{n+1}}``: the ``(n+1)``-th largest entry of the multiset ``counts``.

    Paper: BV Alg 6.1 step 2 / Alg 6.4 step 5; any order among equal counts
    gives the same value (footnote 5).

    Raises:
        ParameterError: fewer than ``n + 1`` counts.
    """
    ordered = sorted(counts, reverse=True)
    if len(ordered) <= n:
        raise ParameterError(f"counts: got {len(ordered)}; need at least n + 1 = {n + 1}")
    return ordered[n]


def keep_heavy(
    sampler: CountingSampler,
    data: Iterable[int],
    universe_size: int,
    rng: RandomSource | None = None,
) -> PartialHistogram:
    """BV's ``KeepHeavy_M``: every bin gets noise, only the heaviest are released.

    Paper: BV Alg 6.1, Thm 6.2 (``eps``-DP if ``M`` is ``eps/2``-DP for counting
    queries; ``(a1, 2 beta)``-per-query accuracy on counts above ``2 a2``;
    ``(2 a2, beta)``-simultaneous accuracy), Lemma 6.3.

    The threshold is the ``(n+1)``-th largest noisy count of the multiset, so
    ties need no randomness (see the module notes).  This is a reference: it
    draws once per bin of ``X``.

    Oracle calls: ``|X|`` draws in ``[1, d]`` (``d = sampler.d``), one per bin in
    increasing ``x`` (Alg 5.1 over ``A = X``).

    Args:
        sampler: the counting-query sampler ``M``; its ``n`` is the number of rows.
        data: the dataset, ``n`` ints in ``[1, universe_size]``.
        universe_size: ``|X| = m``, with ``n + 1 <= m <= 10^7``.
        rng: the randomness source (the OS CSPRNG by default).

    Returns:
        ``{(x, c~_x) : c~_x > c~_{x_{n+1}}}``: at most ``n`` bins, increasing in ``x``.

    Raises:
        ParameterError: ``|X| <= n`` (there is no ``(n+1)``-th heaviest bin: use
            BasicHistogram), ``|X| > 10^7``, or bad data (the message names the row).
    """
    n = sampler.n
    m = check_positive_int(universe_size, "universe_size")
    if m < n + 1:
        raise ParameterError(
            f"universe_size: got {m}; KeepHeavy needs |X| >= n + 1 = {n + 1} (there must be "
            f"an (n+1)-th heaviest bin); use BasicHistogram "
            f"(finitedp.histograms.basic.basic_histogram)"
        )
    if m > MAX_DENSE_UNIVERSE:
        raise ParameterError(
            f"universe_size: got {short_int(m)}; KeepHeavy adds noise to every bin, so it is "
            f"limited to {MAX_DENSE_UNIVERSE} bins; use finitedp.histograms.sparse.sparse_histogram"
        )
    counts = dataset_counts(data, n, m)
    noisy = noisy_counts(sampler, counts, range(1, m + 1), rng or default_source())
    return PartialHistogram.from_pairs(m, _kept(noisy, n))


def _kept(pairs: Sequence[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """Alg 6.1 step 3 / Alg 6.4 step 6: the pairs strictly above the ``(n+1)``-th heaviest."""
    threshold = heavy_threshold((c for _, c in pairs), n)
    return [(x, c) for x, c in pairs if c > threshold]


def _cdf_table(cdf: Callable[[int], int], n: int) -> list[int]:
    """``[F(0), ..., F(n)]``, checked: ``F`` maps ``[n]`` to ``[d]_+`` and is non-decreasing."""
    table = [int(cdf(z)) for z in range(n + 1)]
    if table[0] < 1:
        raise ParameterError(f"cdf: F(0) = {table[0]}; F must map [0, n] to [1, d]")
    for z in range(1, n + 1):
        if table[z] < table[z - 1]:
            raise ParameterError(f"cdf: F({z}) < F({z - 1}); F must be non-decreasing")
    return table


def _check_exact_size(m: int, d: int, name: str) -> None:
    """Refuse exact binomials over ``[1, d^m]`` longer than :data:`MAX_EXACT_ORDER_BITS` bits."""
    bits = m * d.bit_length()
    if bits > MAX_EXACT_ORDER_BITS:
        raise ParameterError(
            f"{name}: got {short_int(m)}; exact OrdSample draws from [1, F(v)^m] with up to "
            f"{short_int(bits)} bits (limit {MAX_EXACT_ORDER_BITS}); use "
            f"finitedp.histograms.sparse.sparse_histogram (ApproxOrdSample) for large universes"
        )


def _check_order_parameters(n: int, m: int) -> None:
    check_positive_int(n, "n")
    check_positive_int(m, "m")
    if m < n + 1:
        raise ParameterError(f"m: got {m}; OrdSample needs m >= n + 1 = {n + 1}")


def ord_sample(
    cdf: Callable[[int], int], n: int, m: int, rng: RandomSource | None = None
) -> tuple[int, ...]:
    """BV's ``OrdSample_F(m)``: the top ``n + 1`` order statistics of ``m`` i.i.d. draws, exactly.

    Paper: BV Alg 6.7, Prop 6.6.  ``Z_1, ..., Z_m`` are i.i.d. on ``[0, n]`` with
    CDF ``F(z)/d``, ``d = F(n)``.  For ``v = n`` down to ``1`` the number ``l_v`` of
    the top ``n + 1`` equal to ``v`` is ``min{Bin(m - L_{v+1}, p_v), n + 1 - L_{v+1}}``
    with ``p_v = (F(v) - F(v-1)) / F(v)``, and ``l_0 = n + 1 - L_1``.

    The sampling is :func:`finitedp.histograms.approx.exact_ord_sample` (the binomials by
    :func:`finitedp.histograms.approx.exact_bin_sample`); this function adds the size guard.

    Oracle calls: for ``v = n, n - 1, ..., 1`` in that order, while
    ``L_{v+1} < n + 1``, one draw in ``[1, F(v)^(m - L_{v+1})]`` (the inverse CDF of
    ``Bin(m - L_{v+1}, p_v)``); none once all ``n + 1`` values are placed.  The domains
    and the number of draws thus depend on earlier outcomes.  Draws are only compared
    with integers.

    Args:
        cdf: ``F``, non-decreasing from ``[0, n]`` to ``[1, d]`` with ``F(n) = d``
            (for KH', ``sampler.scaled_cdf_at_zero``, BV Def 4.3).
        n: the largest value; ``n + 1`` order statistics are returned.
        m: the number of i.i.d. variables, at least ``n + 1``.
        rng: the randomness source (the OS CSPRNG by default).

    Returns:
        ``(c_0, ..., c_n)``, non-increasing, distributed as ``(Z_(m), ..., Z_(m-n))``.

    Raises:
        ParameterError: ``m < n + 1``, a bad ``F``, or ``m * bitlength(F(n))`` above
            :data:`MAX_EXACT_ORDER_BITS` (the exact binomials would need huge integers).
    """
    _check_order_parameters(n, m)
    _check_exact_size(m, _cdf_table(cdf, n)[n], "m")
    return exact_ord_sample(cdf, n, m, rng or default_source())


#: Microseconds per ``n^(4/3)`` of a pure sparse release (KH' with ApproxOrdSample and
#: strict padding to ``n`` values), rounded up from ``finitedp release --mechanism
#: pure-sparse`` at eps = 1: 3.8 s at n = 10^4, 14 s at 3 * 10^4, 69 s at 10^5.
PURE_SPARSE_US = 15

#: Nanoseconds per byte of the default source's keystream (measured 0.5 while a release
#: ran, 1.7 with both cores busy): PureSparseHistogram reads ``n`` draws of
#: ``n log2(3|X|)`` bits each, quadratic in ``n``.
KEYSTREAM_NS_PER_BYTE = Fraction(1, 2)


def require_pure_sparse_time(n: int, universe_size: int) -> None:
    """Refuse a pure sparse release of ``n`` rows estimated above the time budget.

    Two terms (``proofs_notes/sparse_histogram.md``): the interval pass and
    DistinctSample, which grow like ``n^(4/3)`` (``PURE_SPARSE_US``), and the
    randomness: ``n`` draws in ``[1, s]``, ``s`` of about ``n log2(3|X|)`` bits
    (ApproxOrdSample's precision), every byte made by the keystream.  About 94
    minutes at ``n = 10^6`` over ``2^64`` (25 of them the first term).

    Raises:
        ResourceLimitError: above ``FINITEDP_MAX_SECONDS`` (10 minutes by default).
    """
    root = round_up_cube_root(n)
    draw_bytes = (n * (3 * universe_size).bit_length() + 7) // 8
    require_time(
        Fraction(PURE_SPARSE_US * n * root, 10**6) + n * draw_bytes * KEYSTREAM_NS_PER_BYTE / 10**9,
        "the pure sparse histogram (strict work pads to n values)",
        f"n = {short_int(n)}",
        "use fewer rows, or approximate DP (--mechanism stability --delta 1/1000000)",
    )


def round_up_cube_root(n: int) -> int:
    """``ceil(n^(1/3))`` for ``n >= 0`` (GMP's exact integer root)."""
    root, exact = gmpy2.iroot(n, 3)
    return int(root) + (not exact)


def check_sparse_universe(universe_size: object, n: int, algorithm: str) -> int:
    """``|X|`` for KH', SparseHistogram and PureSparseHistogram: at least ``2n + 1``.

    Paper: BV footnote 6 (Alg 6.4): ``|X| >= 2n + 1`` ensures ``|X \\ A| >= n + 1``.

    Raises:
        NotApplicableError: ``|X| < 2n + 1`` (valid, but not for a sparse histogram:
            the default moves on); the message suggests BasicHistogram.
    """
    m = check_positive_int(universe_size, "universe_size")
    if m < 2 * n + 1:
        raise NotApplicableError(
            f"universe_size: got {m}; {algorithm} needs |X| >= 2n + 1 = {2 * n + 1} so that "
            f"n + 1 empty bins exist (BV footnote 6); for |X| <= 2n use BasicHistogram "
            f"(finitedp.histograms.basic.basic_histogram or BoundedGeometricHistogram)"
        )
    return m


def kh_prime(
    sampler: CountingSampler,
    data: Iterable[int],
    universe_size: int,
    rng: RandomSource | None = None,
    *,
    order_statistics: OrderStatisticsSampler = ord_sample,
    pad: bool = False,
) -> PartialHistogram:
    """BV's ``KH'_M``: KeepHeavy simulated from the occupied bins and ``n + 1`` sampled empty ones.

    Paper: BV Alg 6.4, Prop 6.5 (identically distributed to ``KeepHeavy_M`` when
    ``order_statistics`` is the exact :func:`ord_sample`); with
    ``ApproxOrdSample`` as ``order_statistics`` it is BV's SparseHistogram
    (Alg 6.21, see :func:`finitedp.histograms.sparse.sparse_histogram`).

    Steps: ``A`` = the occupied bins, ``m = |X \\ A|``; noisy counts ``c~_x`` for
    ``x`` in ``A`` (``BasicHistogram_{M,A}``); ``(q_0, ..., q_n)`` =
    ``DistinctSample(A, n + 1)``; ``(c~_{q_0}, ..., c~_{q_n})`` =
    ``order_statistics(F_M, n, m)``; release the candidates whose noisy count is
    strictly above the ``(n+1)``-th largest candidate count.  Sorting the
    candidates (step 5) only serves to find that value, which does not depend on
    how ties are ordered, so no tie-breaking rule is needed.

    Oracle calls, in order:

    1. ``|A|`` draws in ``[1, d]``: the noisy counts of ``A`` in increasing ``x``;
    2. with ``pad``, ``n - |A|`` more draws in ``[1, d]``, discarded;
    3. ``n + 1`` draws, the ``i``-th (from 0) in ``[1, |X| - |A| - i]`` (DistinctSample);
    4. those of ``order_statistics(F_M, n, m, rng)`` (for :func:`ord_sample`: see there).

    Args:
        sampler: the counting-query sampler ``M``; its ``n`` is the number of rows.
        data: the dataset, ``n`` ints in ``[1, universe_size]``.
        universe_size: ``|X|``, at least ``2n + 1`` (BV footnote 6).
        rng: the randomness source (the OS CSPRNG by default).
        order_statistics: step 4's sampler (exact :func:`ord_sample` by default).
        pad: make exactly ``n`` draws in step 1-2 whatever ``|A|`` is.

    Returns:
        At most ``n`` bins with counts in ``[1, n]``, increasing in ``x``.

    Raises:
        ParameterError: ``|X| < 2n + 1`` (use BasicHistogram), bad data (the message
            names the row), or an error of ``order_statistics`` (e.g. ``|X|`` too large
            for exact :func:`ord_sample`); nothing is released.
    """
    n = sampler.n
    m = check_sparse_universe(universe_size, n, "KH'")
    if order_statistics is ord_sample:  # a public bound (m <= |X|), checked before any draw
        _check_exact_size(m, sampler.d, "universe_size")
    counts = dataset_counts(data, n, m)
    source = rng or default_source()
    occupied = list(counts)
    candidates = noisy_counts(sampler, counts, occupied, source)
    if pad:
        for _ in range(n - len(occupied)):
            draw(source, sampler.d)
    empty = distinct_sample(occupied, m, n + 1, source)
    levels = order_statistics(sampler.scaled_cdf_at_zero, n, m - len(occupied), source)
    if len(levels) != n + 1:
        raise ParameterError(
            f"order_statistics: returned {len(levels)} values; it must return n + 1 = {n + 1}"
        )
    candidates.extend(zip(empty, levels, strict=True))
    return PartialHistogram.from_pairs(m, _kept(candidates, n))
