"""BasicHistogram: independent noisy counts for a fixed set of bins.

Paper: BV Alg 5.1, Thm 5.2 (and Thm 5.3 / Fig 3 for its instantiations).

``basic_histogram(M, data, m, bins)`` releases ``M(c_x(D), u_x)`` for every
``x`` in ``bins`` (all of ``X = [1, m]`` by default), one oracle draw per bin,
in increasing order of ``x``.  The set of bins must not depend on the data
(Thm 5.2's privacy holds for a fixed ``A``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..counting.base import CountingSampler
from ..errors import ParameterTypeError
from ..oracle import RandomSource, default_source
from .dataset import check_points, check_universe, dataset_counts
from .release import PartialHistogram

__all__ = ["basic_histogram", "noisy_counts"]


def noisy_counts(
    sampler: CountingSampler,
    counts: Mapping[int, int],
    bins: Iterable[int],
    rng: RandomSource,
) -> list[tuple[int, int]]:
    """Steps 2a-2c of Alg 5.1: ``(x, M(c_x, u_x))`` for each ``x`` in ``bins``, in that order.

    One oracle call ``uniform(d)`` per bin, in the order of ``bins``.
    """
    sample = sampler.sample
    return [(x, sample(counts.get(x, 0), rng)) for x in bins]


def basic_histogram(
    sampler: CountingSampler,
    data: Iterable[int],
    universe_size: int,
    bins: Iterable[int] | None = None,
    rng: RandomSource | None = None,
) -> PartialHistogram:
    """BV's ``BasicHistogram_{M,A}``: a noisy count for every bin of ``A``.

    Paper: BV Alg 5.1, Thm 5.2 (``eps``-DP if ``M`` is ``eps/2``-DP for counting
    queries; ``(a, beta)``-accuracy per bin; ``(a, 1 - (1 - beta)^|A|)`` simultaneous).

    Args:
        sampler: the counting-query sampler ``M``; its ``n`` is the number of rows.
        data: the dataset, ``n`` ints in ``[1, universe_size]``.
        universe_size: ``|X| = m``.
        bins: the fixed set ``A`` (all of ``X`` by default); it must not depend on the data.
        rng: the randomness source (the OS CSPRNG by default).

    Returns:
        The partial vector of the bins of ``A`` (bins whose noisy count is 0 are omitted).

    Raises:
        ParameterError: bad data, or a bin outside ``[1, m]``.
    """
    universe_size = check_universe(universe_size)
    counts = dataset_counts(data, sampler.n, universe_size)
    chosen = range(1, universe_size + 1) if bins is None else _check_bins(bins, universe_size)
    noisy = noisy_counts(sampler, counts, chosen, rng or default_source())
    return PartialHistogram.from_pairs(universe_size, noisy)


def _check_bins(bins: Iterable[int], universe_size: int) -> list[int]:
    """``A`` sorted and de-duplicated, every element an int in ``[1, m]``, checked up front.

    A float, bool or out-of-range bin is refused whatever the noise would have
    been (before any draw), so the error does not depend on the randomness.
    """
    if isinstance(bins, str | bytes) or not isinstance(bins, Iterable):
        raise ParameterTypeError(f"bins: got {type(bins).__name__}; give an iterable of ints")
    return sorted(set(check_points(bins, universe_size, "bins")))
