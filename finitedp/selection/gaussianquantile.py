"""Binary search for a quantile with discrete Gaussian counts: Huang-Liang-Yi's PRIVQUANTILE, zCDP.

Paper: Huang, Liang & Yi 2021, *Instance-optimal mean estimation under
differential privacy* (the binary search with Gaussian noise on each count,
IOME's centring); Lebeda thesis Lemma 5.4 / 5.5 (PRIVQUANTILE with ``rho'``-zCDP);
CKS20 for the noise, here the strict-work :class:`~finitedp.counting.gaussian.DiscreteGaussian`.

Values on the public grid ``lower + k step`` (``N`` points), ``n`` public,
neighbours replace one value, so each count ``#{x <= mid}`` moves by at most 1.
Each of the ``T = ceil(log2 N)`` steps adds the discrete Gaussian with
``sigma^2 = T/(2 rho (1 - 2^-20))`` to the count and asks whether it reaches
``m = floor(q n)``; every step is made whatever the answers (``T`` draws).  The
composed guarantee is ``T`` times the table's approximate zCDP for a shift of 1:
at most ``rho``.  Against :class:`~.quantile.BinarySearchQuantile` (pure DP,
geometric counts with ``eps/T`` each) the count noise is ``sqrt(T)`` times smaller
for the same zCDP, which is why IOME centres with it in high dimension.

>>> from finitedp import SeededSource
>>> q = GaussianBinarySearchQuantile(0, 15, quantile="1/2", n=5, rho=8)
>>> q.steps, q.guarantee().rho <= 8, q.max_oracle_calls
(4, True, 4)
>>> q.release([3, 4, 5, 6, 7], rng=SeededSource(b"doc")) in range(16)
True
"""

from __future__ import annotations

from fractions import Fraction

from ..accounting import Guarantee
from ..counting.gaussiannoise import DEFAULT_LAW, GaussianNoise, gaussian_noise
from ..oracle import RandomSource, default_source
from ..params import positive_fraction, probability
from ..statistics import GridCounts
from .grid import Grid
from .quantile import GridQuantile, _on_grid, bisect_counts

__all__ = ["GaussianBinarySearchQuantile"]

#: ``sigma^2`` uses ``rho (1 - 2^-GUARD)``: the tables' own terms fit below ``rho``.
GUARD = 20


class GaussianBinarySearchQuantile(GridQuantile):
    """Binary search with discrete Gaussian counts: ``T`` draws, approximate ``rho``-zCDP.

    Paper: Huang-Liang-Yi 2021 (Section 3); Lebeda thesis Lemma 5.4. Neighbours:
    ``n`` values, one replaced.

    Args:
        lower, upper, step: the public grid.
        quantile: ``q``; the target rank is ``m = floor(q n)``.
        n: the public number of values.
        rho: the zCDP budget of the whole search (``rho/T`` a step).
        noise_law: the discrete Gaussian's law (:mod:`~finitedp.counting.gaussiannoise`):
            ``"convolved"`` (default) or ``"table"`` (the vectors made before issue 41).
    """

    def __init__(
        self,
        lower: object,
        upper: object,
        *,
        quantile: object,
        n: object,
        rho: object,
        step: object = 1,
        noise_law: object = DEFAULT_LAW,
    ) -> None:
        self.grid: Grid
        self.grid, self.n, self.quantile, self.rank = _on_grid(lower, upper, step, quantile, n)
        self.rho = positive_fraction(rho, "rho")
        self.steps = max(1, (self.grid.size - 1).bit_length())
        guarded = self.rho / self.steps * (1 - Fraction(1, 1 << GUARD))
        self.noise: GaussianNoise = gaussian_noise(Fraction(1) / (2 * guarded), noise_law)

    def guarantee(self, label: str = "Gaussian binary-search quantile") -> Guarantee:
        """``T`` times the table's approximate zCDP at integer orders for a unit shift."""
        one = self.noise.zcdp(1, label)
        assert one.rho is not None
        return Guarantee.zcdp(
            one.rho * self.steps,
            label,
            delta=min(Fraction(1), one.rho_delta * self.steps),
            integer_orders=True,
        )

    @property
    def max_oracle_calls(self) -> int:
        """``T = ceil(log2 N)`` draws, one per step, whatever the answers."""
        return self.steps

    def release_counts(self, counts: GridCounts, rng: RandomSource | None = None) -> Fraction:
        """:meth:`release` for values given as counts on the grid (checked)."""
        data = counts.check(self.n, self.grid.size)
        source = rng or default_source()
        noise = self.noise.sample_many(self.steps, source)
        low = bisect_counts(
            data, self.grid.size, self.steps, lambda step, count: count + noise[step] >= self.rank
        )
        return self.grid.value(low)

    def rank_error(self, beta: object) -> int:
        """``a`` with ``Pr[rank error > a] <= beta``: each step's noise within ``a`` at ``beta/T``.

        A step answers wrongly only if its noise exceeds ``|c - m|``; with every
        ``|Z| <= a`` the search ends at ``y`` with ``#{x <= y} >= m - a`` and
        ``#{x < y} <= m + a`` (as for :class:`~.quantile.BinarySearchQuantile`).
        """
        b = probability(beta, "beta")
        return self.noise.accuracy(b / self.steps)

    def rank_error_below(self, beta: object, target: int) -> bool:
        """Whether ``rank_error(beta) < target``: one tail bound, not the accuracy's search
        (the noise's tail falls in ``a``)."""
        b = probability(beta, "beta")
        return self.noise.tail_within(target - 1, b / self.steps)
