"""ALP for histograms whose sparsity ``k`` is private (Lebeda thesis Section 2.10).

Paper: Lebeda thesis Section 2.10 ("Variants": for a histogram the sparsity
changes by at most 1 between neighbours, so a share of the budget estimates it,
``k~ = k + Laplace(1/eps) + ln(d/2)/eps``, and ``s`` is set from ``k~``).

Neighbours: integer vectors at l1 distance at most 1 (one row added or
removed): the number of non-zero entries moves by at most one.

finitedp's version, all exact and with work bounded by public parameters:

1. ``k~ = GeoSample(K, 2 eps_k, noise="tight").sample(k)``: ``k`` plus a
   two-sided geometric of ratio ``>= e^-eps_k``, clamped to ``[0, K]`` (BV's
   clamped geometric mechanism: pure ``eps_k``-DP), where ``K`` is a public cap
   on the number of distinct keys (``max_k``; more is refused, as ALP's ``k``).
2. ``k^ = min(K, max(1, k~ + shift))`` with ``shift`` the least integer with
   ``Pr[Z < -shift] = alpha^(shift+1)/(1 + alpha) <= beta_k``, so that
   ``k^ >= k`` with probability at least ``1 - beta_k`` (the thesis' ``ln(d/2)/eps``
   is ``beta_k = 1/d``).
3. ``s`` = the least power of two ``>= max(2 k^ + 1, 10 k^)``; then ALP at
   ``eps - eps_k``.  Random rounding (Alg 4) is padded to ``K`` calls, so the
   calls are a function of ``K``, ``s`` (from the released ``k~``) and the
   parameters; Alg 10 makes no rounding calls.  If ``k > k^`` (probability at most
   ``beta_k``) the release is still made: only the collision rate exceeds ``1/10``.

The release states ``k~``; privacy is ``(eps_k + (eps - eps_k), 0) = (eps, 0)`` by
composition (GeoSample's draw first, then the hashes, the rounding and the flips).

>>> from finitedp.oracle import SeededSource
>>> mech = UnknownSparsityALP(2**64, 1, psi=60, max_k=1000)
>>> r = mech.project({3: 7, 8: 60, 12: 1}, rng=SeededSource(b"k"))
>>> r.k_noisy >= 0 and r.alp.s >= 8, r.alp.privacy.epsilon == mech.alp_epsilon
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from ..counting.geosample import GeoSample
from ..errors import ParameterError
from ..exactmath import ceil_log_ratio
from ..guarantees import Privacy
from ..oracle import RandomSource, default_source
from ..params import check_positive_int, positive_fraction, probability
from .hashing import HashSequence
from .mechanism import ALP, DEFAULT_ALPHA, l1_neighbours
from .projection import check_sparse
from .release import ALPRelease

__all__ = ["UnknownSparsityALP", "UnknownSparsityRelease", "sparsity_shift"]


def sparsity_shift(alpha: Fraction, beta: Fraction) -> int:
    """The least ``t >= 0`` with ``alpha^(t+1)/(1 + alpha) <= beta``: ``Pr[Z < -t] <= beta``."""
    if not 0 < alpha < 1:
        raise ParameterError(f"alpha: got {alpha}; a geometric ratio lies in (0, 1)")
    target = 1 / (beta * (1 + alpha))  # (1/alpha)^(t+1) >= target
    return max(0, ceil_log_ratio(1 / alpha, target) - 1)


@dataclass(frozen=True)
class UnknownSparsityRelease:
    """The noisy sparsity and the ALP release sized from it."""

    k_noisy: int
    alp: ALPRelease
    privacy: Privacy

    def estimate(self, i: int) -> Fraction:
        """ALP's estimate of ``x_i``."""
        return self.alp.estimate(i)

    def __getitem__(self, i: int) -> Fraction:
        return self.estimate(i)


class UnknownSparsityALP:
    """ALP on a histogram whose number of distinct keys is private (Section 2.10).

    Paper: Lebeda thesis Section 2.10; Algs 4/10 for the projection.

    Neighbours: integer vectors at l1 distance at most 1 (one row added or removed).

    Args:
        universe_size: ``d``.
        epsilon: the total budget.
        psi: ALP's value bound.
        max_k: ``K``, the public cap on distinct keys.
        epsilon_k: the share spent on ``k~`` (default ``eps/10``).
        beta_k: the chance that ``k^ < k`` (default 1/100).
        alpha: ALP's scale (Alg 4).
        variant: ``"alp"`` (Alg 4) or ``"histogram"`` (Alg 10).
    """

    def __init__(
        self,
        universe_size: int,
        epsilon: object,
        psi: object,
        max_k: int,
        epsilon_k: object | None = None,
        beta_k: object = Fraction(1, 100),
        alpha: object = DEFAULT_ALPHA,
        variant: str = "alp",
    ) -> None:
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.epsilon_k = (
            self.epsilon / 10 if epsilon_k is None else positive_fraction(epsilon_k, "epsilon_k")
        )
        if not self.epsilon_k < self.epsilon:
            raise ParameterError(f"epsilon_k: got {self.epsilon_k}; it must be below epsilon")
        self.alp_epsilon = self.epsilon - self.epsilon_k
        self.max_k = check_positive_int(max_k, "max_k")
        self.beta_k = probability(beta_k, "beta_k")
        self.counter = GeoSample(self.max_k, 2 * self.epsilon_k, noise="tight")
        self.shift = sparsity_shift(self.counter.noise.alpha, self.beta_k)
        # The largest ALP the noisy k can ask for (s from k^ = K): its constructor checks
        # the memory of that worst case now, before any data is read.
        self._template = ALP(
            universe_size, self.alp_epsilon, self.max_k, psi, alpha=alpha, variant=variant
        )

    @property
    def privacy(self) -> Privacy:
        """``(eps, 0)``: ``eps_k`` for ``k~`` plus ``eps - eps_k`` for ALP."""
        return Privacy(self.epsilon)

    @property
    def neighbours(self) -> str:
        """The neighbour relation of :attr:`privacy`."""
        return l1_neighbours(1)

    def buckets(self, k_noisy: int) -> int:
        """``s`` from ``k~``: the least power of two ``>= max(2 k^ + 1, 10 k^)``."""
        k_hat = min(self.max_k, max(1, k_noisy + self.shift))
        need = max(2 * k_hat + 1, 10 * k_hat)
        return 1 << (need - 1).bit_length()

    def project(
        self, x: Mapping[int, object], rng: RandomSource | None = None
    ) -> UnknownSparsityRelease:
        """``k~`` (one call), then the hashes, ``K`` rounding calls (Alg 4) and the flips.

        Raises:
            ParameterError: a bad key or value, or more than ``max_k`` non-zero entries.
        """
        rng = default_source() if rng is None else rng
        t = self._template
        entries = check_sparse(x, t.universe_size, self.max_k, Fraction(1))
        k_noisy = self.counter.sample(len(entries), rng)
        s = self.buckets(k_noisy)
        hashes = HashSequence.draw(t.universe_size, s, t.m, rng)
        bits = t.embed(entries, hashes, rng, k=self.max_k)
        extra = (("k_noisy", str(k_noisy)), ("epsilon_k", str(self.epsilon_k)))
        alp = t.wrap(hashes, bits, extra, Privacy(self.alp_epsilon))
        return UnknownSparsityRelease(k_noisy, alp, self.privacy)
