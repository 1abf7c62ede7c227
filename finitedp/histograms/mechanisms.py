"""User-level histogram mechanisms: the user's parameters in, the paper's choices made.

Paper: BV Thm 5.3 / Fig 3 (BoundedGeometricHistogram), Thm 5.6 / Fig 4
(StabilityHistogram).

Each class takes the parameters a user thinks in (``n``, ``|X|``, ``epsilon``,
``delta``, ``beta``), derives the paper's internal ones exactly (the sampler,
``gamma``, the threshold ``b``), and offers ``release(data, rng=None)``,
``privacy``, ``accuracy(beta)`` and ``max_oracle_calls``.

>>> mech = BoundedGeometricHistogram(n=3, universe_size=4, epsilon="1/2", beta0="1/10")
>>> mech.privacy
Privacy(epsilon=Fraction(1, 2), delta=Fraction(0, 1))
>>> release = mech.release([1, 1, 4])
>>> sorted(release) == [x for x in range(1, 5) if release[x] > 0]
True
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from ..counting.base import CountingSampler
from ..counting.fastsample import FastSample
from ..counting.geosample import GeoSample
from ..errors import ParameterError
from ..guarantees import Accuracy, Privacy
from ..oracle import RandomSource, default_source, draws_shifted
from ..params import check_positive_int, exact_fraction, inverse_natural, short_fraction
from ..ratio import check_epsilon
from .bounds import basic_accuracy, stability_accuracy, stability_threshold
from .dataset import check_universe, dataset_counts
from .release import PartialHistogram
from .stability import stability_histogram

__all__ = [
    "BoundedGeometricHistogram",
    "HistogramMechanism",
    "StabilityHistogram",
    "check_noise",
    "sample_accuracy",
    "tight_stability_threshold",
]

#: BasicHistogram touches every bin; beyond this many, use a sparse or compact mechanism.
MAX_DENSE_UNIVERSE = 10**7

#: The most bytes of oracle draws a dense release holds at once.
_DRAW_BATCH_BYTES = 16 << 20


def _counter(counter: str) -> str:
    if counter not in ("fast", "geo"):
        raise ParameterError(f'counter: got {counter!r}; use "fast" (FastSample) or "geo"')
    return counter


def check_noise(noise: str) -> str:
    """``"paper"`` (BV's ratio ``2^k/(2^k+1)``) or ``"tight"`` (the simplest rational ratio
    within 1% of ``e^(-eps/2)``, :mod:`finitedp.ratio`).

    Raises:
        ParameterError: anything else.
    """
    if noise not in ("paper", "tight"):
        raise ParameterError(f'noise: got {noise!r}; use "paper" (BV\'s ratio) or "tight"')
    return noise


def sample_accuracy(sampler: CountingSampler, beta: Fraction) -> int | None:
    """The least ``a`` with ``Pr[|M(c, U) - c| > a] <= beta`` by the sampler's exact ratio.

    Paper: BV Thm 4.7 i (GeoSample) and Thm 4.10 ii (FastSample, ``beta > gamma``),
    with the exact ``b/a = e^(eps~/2)`` in place of the figures' ``9/(2 eps)``: the
    statements the figures relax.  ``None`` where the theorem gives nothing.
    """
    if isinstance(sampler, FastSample) and beta <= sampler.gamma:
        return None
    return int(sampler.accuracy(beta))  # type: ignore[attr-defined]


def tight_stability_threshold(sampler: CountingSampler, delta: Fraction) -> int:
    """The least ``b`` with ``2 Pr[M(1, U) > b] <= delta``, exactly from ``M``'s CDF.

    Paper: BV Thm 5.5 i (``StabilityHistogram_{M,b}`` is ``(eps, 2 Pr[M(1, U) > b])``-DP);
    Thm 5.6 chooses a larger ``b`` through the figures' bound on the tail.
    """
    d, low, high = sampler.d, 0, sampler.n
    while low < high:  # the tail d - F(1, b) is non-increasing in b
        mid = (low + high) // 2
        if 2 * (d - sampler.cdf(1, mid)) <= delta * d:
            high = mid
        else:
            low = mid + 1
    return low


class HistogramMechanism(ABC):
    """The interface every user-level histogram mechanism offers."""

    __slots__ = ("_n", "_universe_size")

    def __init__(self, n: object, universe_size: object, *, min_universe: int = 1) -> None:
        self._n = check_positive_int(n, "n")
        self._universe_size = check_universe(universe_size, at_least=min_universe)

    @property
    def n(self) -> int:
        """The number of rows every dataset must have."""
        return self._n

    @property
    def universe_size(self) -> int:
        """``|X| = m``: rows are ints in ``[1, m]``."""
        return self._universe_size

    @property
    @abstractmethod
    def privacy(self) -> Privacy:
        """The exact ``(epsilon, delta)`` guarantee."""

    @abstractmethod
    def accuracy(self, beta: object) -> Accuracy:
        """The accuracy the theorem guarantees at failure probability ``beta``."""

    @property
    @abstractmethod
    def max_oracle_calls(self) -> int:
        """The most oracle calls one release makes, from public parameters alone."""

    @abstractmethod
    def _release(self, counts: dict[int, int], rng: RandomSource) -> PartialHistogram:
        """Release for validated counts (positive, increasing in ``x``, summing to ``n``)."""

    def release(
        self, data: Iterable[object] | Mapping[Any, Any], rng: RandomSource | None = None
    ) -> PartialHistogram:
        """Release a differentially private histogram of ``data``.

        Args:
            data: exactly ``n`` ints in ``[1, universe_size]``, or their histogram
                ``{value: count}`` (positive int counts summing to ``n``): the same
                release and the same oracle calls either way.
            rng: the randomness source (the OS CSPRNG by default).

        Raises:
            ParameterError: wrong number of rows, a row outside the universe, or
                counts that are not positive or do not sum to ``n`` (nothing is released).
        """
        counts = dataset_counts(data, self._n, self._universe_size)
        return self._release(counts, rng or default_source())


class BoundedGeometricHistogram(HistogramMechanism):
    """Noisy counts for every bin of ``X``: the bounded geometric mechanism.

    Paper: BV Alg 5.1 (``BasicHistogram_{M,X}``), Thm 5.3 (``M`` = FastSample with
    ``gamma = beta0/(2|X|)``), Fig 3 (the GeoSample variant).

    Args:
        n: the number of rows.
        universe_size: ``|X|`` (at most ten million: the work is linear in ``|X|``).
        epsilon: the budget, ``1/m``.
        beta0: the smallest failure probability the accuracy statements will be
            asked for, ``1/k``; sets FastSample's ``gamma``.  Ignored by ``counter="geo"``.
        counter: ``"fast"`` (Thm 5.3, the default) or ``"geo"`` (Fig 3's GeoSample row).
        noise: ``"paper"`` (BV's ratio, the default) or ``"tight"`` (the sampler's ratio
            within 1% of ``e^(-eps/2)``; accuracy from the exact ratio).

    Raises:
        ParameterError: parameters out of range; FloatParameterError: a float.
    """

    __slots__ = ("_beta0", "_noise", "_sampler")

    _beta0: Fraction | None

    def __init__(
        self,
        n: object,
        universe_size: object,
        epsilon: object,
        beta0: object = None,
        *,
        counter: str = "fast",
        noise: str = "paper",
    ) -> None:
        super().__init__(n, universe_size)
        self._noise = check_noise(noise)
        if self._universe_size > MAX_DENSE_UNIVERSE:
            raise ParameterError(
                f"universe_size: got {self._universe_size}; BasicHistogram adds noise to every "
                f"bin, so it is limited to {MAX_DENSE_UNIVERSE} bins; use PureSparseHistogram "
                f"or CompactHistogram for large universes"
            )
        eps = check_epsilon(epsilon, noise)
        self._sampler: CountingSampler
        occupied = min(self._n, self._universe_size)  # a search each; the rest are empty
        empty = self._universe_size - occupied
        if _counter(counter) == "fast":
            if beta0 is None:
                raise ParameterError("beta0: FastSample needs beta0 = 1/k to set gamma")
            self._beta0 = inverse_natural(beta0, "beta0")
            gamma = self._beta0 / (2 * self._universe_size)
            self._sampler = FastSample(
                self._n, eps, gamma, noise=noise, samples=occupied, empty=empty
            )
        else:
            self._beta0 = None if beta0 is None else inverse_natural(beta0, "beta0")
            self._sampler = GeoSample(self._n, eps, noise=noise, samples=occupied, empty=empty)

    @property
    def sampler(self) -> CountingSampler:
        """The counting-query sampler ``M`` (FastSample or GeoSample)."""
        return self._sampler

    @property
    def noise(self) -> str:
        """``"paper"`` or ``"tight"``: the sampler's ratio."""
        return self._noise

    @property
    def privacy(self) -> Privacy:
        """``(eps, 0)``: Thm 5.2 i with ``M`` ``eps/2``-DP for counting queries."""
        return Privacy(self._sampler.epsilon)

    def accuracy(self, beta: object) -> Accuracy:
        """Fig 3: ``a = ceil(9/(2 eps) ln(2/beta))`` per query (FastSample, ``beta >= 2 gamma``)
        and ``ceil(9/(2 eps) ln(2|X|/beta))`` simultaneously (``beta >= beta0``).

        Raises:
            ParameterError: ``beta`` outside ``(0, 1)``.
        """
        b, sampler = _probability(beta), self._sampler
        if self._noise == "tight":  # Thm 5.2 ii-iii with the exact ratio (union bound)
            fast = isinstance(sampler, FastSample)
            ok_all = not fast or (self._beta0 is not None and b >= self._beta0)
            return Accuracy(
                b,
                sample_accuracy(sampler, b),
                None,
                sample_accuracy(sampler, b / self._universe_size) if ok_all else None,
                "BV Thm 5.2 ii-iii with the sampler's exact ratio",
            )
        if not isinstance(sampler, FastSample):
            return basic_accuracy("geo", sampler.epsilon, b, self._universe_size)
        table = basic_accuracy("fast", sampler.epsilon, b, self._universe_size)
        per_query = table.per_query if b >= 2 * sampler.gamma else None
        simultaneous = table.simultaneous if self._beta0 and b >= self._beta0 else None
        return Accuracy(b, per_query, None, simultaneous, table.source)

    @property
    def max_oracle_calls(self) -> int:
        """``|X|``: one draw per bin, for every dataset."""
        return self._universe_size

    def _release(self, occupied: dict[int, int], rng: RandomSource) -> PartialHistogram:
        # Alg 5.1 with the draws taken in one batch, bin 1 first, as sequential calls would.
        m, sampler = self._universe_size, self._sampler
        counts = [0] * m
        for x, c in occupied.items():
            counts[x - 1] = c
        # Batches keep at most about _DRAW_BATCH_BYTES of draws alive (a draw has
        # bits(d) bits: 300 MB each at eps = 10^-6); same calls, same order.
        batch = max(1, _DRAW_BATCH_BYTES // (sampler.d.bit_length() // 8 + 1))
        noisy: list[int] = []
        for start in range(0, m, batch):
            size = min(batch, m - start)
            # Empty bins only compare their draws: prefixes of them do (oracle.draws_shifted).
            batch_draws = draws_shifted(rng, sampler.d, size, sampler.prefix_shift)
            noisy += sampler.invert_many(counts[start : start + size], batch_draws)
        return PartialHistogram.from_pairs(m, zip(range(1, m + 1), noisy, strict=True))

    def __repr__(self) -> str:
        return (
            f"BoundedGeometricHistogram(n={self._n}, universe_size={self._universe_size}, "
            f"epsilon={self._sampler.epsilon}, beta0={self._beta0}"
            + (")" if self._noise == "paper" else ', noise="tight")')
        )


class StabilityHistogram(HistogramMechanism):
    """Noisy counts of the occupied bins above a threshold: ``(eps, delta)``-DP, at most ``n`` bins.

    Paper: BV Alg 5.4, Thm 5.6 (``M`` = FastSample with ``gamma = min(beta0/(2n),
    delta/4)``, ``b = 1 + ceil(9/(2 eps) ln(4/delta))``), Fig 4 (the GeoSample variant).

    Args:
        n: the number of rows.
        universe_size: ``|X|`` (any size: the work does not depend on it).
        epsilon: the budget, ``1/m``.
        delta: ``1/k``.
        beta0: the smallest failure probability asked of ``accuracy``, ``1/k``.
            Ignored by ``counter="geo"``.
        counter: ``"fast"`` (Thm 5.6, the default) or ``"geo"`` (Fig 4).
        pad: make exactly ``n`` oracle calls for every dataset (the default).
        noise: ``"paper"`` (the default) or ``"tight"``: the sampler's tight ratio, the
            least threshold with ``2 Pr[M(1, U) > b] <= delta`` (Thm 5.5 i, exactly) and
            accuracy from the exact ratio.

    Raises:
        ParameterError: parameters out of range, or ``n`` too small for the
            threshold ``b`` (the release would always be empty).
    """

    __slots__ = ("_beta0", "_delta", "_noise", "_pad", "_sampler", "_threshold")

    _beta0: Fraction | None

    def __init__(
        self,
        n: object,
        universe_size: object,
        epsilon: object,
        delta: object,
        beta0: object = None,
        *,
        counter: str = "fast",
        pad: bool = True,
        noise: str = "paper",
    ) -> None:
        super().__init__(n, universe_size)
        self._noise = check_noise(noise)
        eps = check_epsilon(epsilon, noise)
        self._delta = inverse_natural(delta, "delta", below_one=True)
        self._pad = pad
        self._sampler: CountingSampler
        if _counter(counter) == "fast":
            if beta0 is None:
                raise ParameterError("beta0: FastSample needs beta0 = 1/k to set gamma")
            self._beta0 = inverse_natural(beta0, "beta0")
            gamma = min(self._beta0 / (2 * self._n), self._delta / 4)
            self._sampler = FastSample(self._n, eps, gamma, noise=noise, samples=self._n)
        else:
            self._beta0 = None if beta0 is None else inverse_natural(beta0, "beta0")
            self._sampler = GeoSample(self._n, eps, noise=noise, samples=self._n)
        if noise == "tight":
            self._threshold = tight_stability_threshold(self._sampler, self._delta)
        else:
            self._threshold = stability_threshold(counter, eps, self._delta)
        if self._threshold > self._n:
            raise ParameterError(
                f"n: got {self._n}, below the threshold b = {self._threshold} that Thm 5.6 needs "
                f"for epsilon = {eps}, delta = {self._delta}: every release would be empty; "
                f"use more rows, a larger epsilon or a larger delta"
            )

    @property
    def sampler(self) -> CountingSampler:
        """The counting-query sampler ``M``."""
        return self._sampler

    @property
    def threshold(self) -> int:
        """``b``: noisy counts at most ``b`` are not released."""
        return self._threshold

    @property
    def noise(self) -> str:
        """``"paper"`` (Thm 5.6's threshold) or ``"tight"`` (Thm 5.5 i's, exactly)."""
        return self._noise

    @property
    def privacy(self) -> Privacy:
        """``(eps, delta)``: Thm 5.6 i."""
        return Privacy(self._sampler.epsilon, self._delta)

    def accuracy(self, beta: object) -> Accuracy:
        """Fig 4: ``(a, beta)`` per query on counts above ``t``, and ``(a', beta)`` simultaneously.

        For FastSample the per-query bound needs ``beta >= 2 gamma`` and the simultaneous one
        ``beta >= beta0`` (Thm 5.6 ii-iii); outside those ranges the entry is ``None``.
        """
        b, sampler = _probability(beta), self._sampler
        if self._noise == "tight":  # Thm 5.6 ii-iii's proof: a on counts above a + b, a' + b
            fast = isinstance(sampler, FastSample)
            a = sample_accuracy(sampler, b)
            ok_all = not fast or (self._beta0 is not None and b >= self._beta0)
            a_all = sample_accuracy(sampler, b / self._n) if ok_all else None
            return Accuracy(
                b,
                a,
                None if a is None else a + self._threshold,
                None if a_all is None else a_all + self._threshold,
                "BV Thm 5.5 ii-iii with the sampler's exact ratio and threshold",
            )
        if not isinstance(sampler, FastSample):
            return stability_accuracy("geo", self._n, sampler.epsilon, self._delta, b)
        table = stability_accuracy("fast", self._n, sampler.epsilon, self._delta, b)
        ok_query = b >= 2 * sampler.gamma
        ok_all = self._beta0 is not None and b >= self._beta0
        return Accuracy(
            b,
            table.per_query if ok_query else None,
            table.threshold if ok_query else None,
            table.simultaneous if ok_all else None,
            table.source,
        )

    @property
    def max_oracle_calls(self) -> int:
        """``n``: one draw per occupied bin (padded to exactly ``n`` by default)."""
        return self._n

    def _release(self, counts: dict[int, int], rng: RandomSource) -> PartialHistogram:
        return stability_histogram(
            self._sampler, self._threshold, counts, self._universe_size, rng, pad=self._pad
        )

    def __repr__(self) -> str:
        return (
            f"StabilityHistogram(n={self._n}, universe_size={self._universe_size}, "
            f"epsilon={self._sampler.epsilon}, delta={self._delta}, beta0={self._beta0}"
            + (")" if self._noise == "paper" else ', noise="tight")')
        )


def _probability(beta: object) -> Fraction:
    b = exact_fraction(beta, "beta")
    if not 0 < b < 1:
        raise ParameterError(f"beta: got {short_fraction(b)}; it must lie in (0, 1)")
    return b
