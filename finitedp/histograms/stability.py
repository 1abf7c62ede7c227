"""StabilityHistogram: noisy counts of the occupied bins, kept above a threshold.

Paper: BV Alg 5.4, Thm 5.5 (and Thm 5.6 / Fig 4 for its instantiations).

Only bins with a positive true count get noise, and only noisy counts above
``b`` are released, so the output has at most ``n`` bins and the mechanism is
``(eps, delta)``-DP with ``delta >= 2 Pr[M(1, U) > b]`` (Thm 5.5 i).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..counting.base import CountingSampler
from ..errors import ParameterError
from ..oracle import RandomSource, default_source, discard
from .basic import noisy_counts
from .dataset import dataset_counts
from .release import PartialHistogram

__all__ = ["stability_histogram"]


def stability_histogram(
    sampler: CountingSampler,
    threshold: int,
    data: Iterable[int],
    universe_size: int,
    rng: RandomSource | None = None,
    *,
    pad: bool = False,
) -> PartialHistogram:
    """BV's ``StabilityHistogram_{M,b}``.

    Paper: BV Alg 5.4, Thm 5.5.

    Args:
        sampler: the counting-query sampler ``M``; its ``n`` is the number of rows.
        threshold: ``b`` in ``[0, n]``: only noisy counts above it are released.
        data: the dataset, ``n`` ints in ``[1, universe_size]``.
        universe_size: ``|X| = m``.
        rng: the randomness source (the OS CSPRNG by default).
        pad: also make ``n - |A|`` discarded draws after the real ones, so every
            dataset makes exactly ``n`` oracle calls of the same domain.

    Returns:
        ``{(x, c~_x) : c_x(D) > 0 and c~_x > b}`` as a partial vector.

    Raises:
        ParameterError: bad data or ``b`` outside ``[0, n]``.
    """
    if not (isinstance(threshold, int) and 0 <= threshold <= sampler.n):
        raise ParameterError(f"threshold: got {threshold!r}; b must be an int in [0, {sampler.n}]")
    counts = dataset_counts(data, sampler.n, universe_size)
    source = rng or default_source()
    noisy = noisy_counts(sampler, counts, counts, source)
    if pad:  # a system source consumes the padding's bytes without making its values
        discard(source, sampler.d, sampler.n - len(counts))
    return PartialHistogram.from_pairs(universe_size, [(x, c) for x, c in noisy if c > threshold])
