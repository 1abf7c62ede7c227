"""Threshold (Alg 6, pure DP) and Threshold ALP with it (Algs 7/8), exact.

Paper: Lebeda thesis Alg 6 (Threshold, after [CPST12]; Lemma 2.19 privacy,
Lemma 2.20 sparsity), Alg 7 (Threshold ALP-Projection, Lemmas 2.21-2.23) and
Alg 8 (Threshold ALP-Estimator).

Alg 6 adds noise to *every* entry and keeps those that reach ``t``.  finitedp
adds BV's clamped geometric noise (``clamp(x_i + Z, 0, u)``, ratio ``a/b >=
e^-eps``, one oracle call per entry): clamping the output to a public range is
post-processing, so the release stays pure ``eps``-DP.  Lemma 2.20's threshold
``2 ln(d)/eps`` is the level a zero entry reaches with probability ``1/(2d^2)``;
finitedp takes the least integer ``t`` with ``alpha^t/(1 + alpha) <= 1/(2d^2)``
(:func:`sparsity_threshold`), the exact tail of the geometric.

Two ways to find the heavy entries, both pure DP:

* **dense** (:func:`threshold`, any integer vector): Alg 6 as written, ``d``
  oracle calls; limited to ``d <= MAX_DENSE_UNIVERSE``.
* **histogram** (``rows = n``, one row replaced, ``n`` public: BV's relation):
  BV's ``PureSparseHistogram`` (KeepHeavy simulated by KH' with order statistics
  over the empty bins, ``O(n)`` calls for any ``|X|``), then the bins below ``t``
  dropped.  That is post-processing of KeepHeavy, which keeps the bins above the
  ``(n+1)``-th largest noisy count; it equals Alg 6 (with BV's noise) unless
  more than ``n`` bins reach ``t``, which needs an empty bin to reach ``t``
  (probability at most ``1/(2d)``, Lemma 2.20), or the mixture's fallback
  (probability ``beta/4``) or ApproxOrdSample's distance ``delta`` intervenes.

>>> from finitedp.oracle import SeededSource
>>> mech = PureThresholdALP(universe_size=1000, epsilon=1, k=4, u=200)
>>> mech.t, mech.privacy
(29, Privacy(epsilon=Fraction(1, 1), delta=Fraction(0, 1)))
>>> r = mech.project({7: 150, 9: 3}, rng=SeededSource(b"pure"))
>>> 7 in r.heavy_keys, 0 <= r.estimate(9) <= r.alp.m * r.alp.scale
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from ..counting.geosample import GeoSample
from ..counting.twosided import least_tail, noise_radius
from ..errors import ParameterError
from ..guarantees import Accuracy, Privacy
from ..histograms.mechanisms import MAX_DENSE_UNIVERSE
from ..histograms.sparse import PureSparseHistogram
from ..oracle import RandomSource, default_source
from ..params import check_positive_int, positive_fraction, probability, short_int
from .combined import ThresholdALPRelease
from .embedding import histogram_of
from .mechanism import ALP, DEFAULT_ALPHA, l1_neighbours
from .projection import check_sparse

__all__ = ["PureThresholdALP", "noise_radius", "sparsity_threshold", "threshold"]


def sparsity_threshold(alpha: Fraction, d: int) -> int:
    """Lemma 2.20 exactly: the least ``t >= 1`` with ``alpha^t/(1 + alpha) <= 1/(2 d^2)``.

    ``alpha^t/(1 + alpha)`` is the chance a zero entry's geometric noise reaches
    ``t``; a union bound over ``d`` entries makes a false release at most ``1/(2d)``.
    """
    return least_tail(alpha, Fraction(1, 2 * d * d))


def threshold(
    x: Mapping[int, int], sampler: GeoSample, t: int, d: int, rng: RandomSource
) -> dict[int, int]:
    """Alg 6 over all ``d`` entries: ``v_i = clamp(x_i + Z_i, 0, u)``, kept when ``v_i >= t``.

    Paper: Lebeda thesis Alg 6, Lemma 2.19 (with ``v_i >= t`` in step 2; the
    thesis writes ``y_i``, see ``proofs_notes/alp_threshold.md``).

    Neighbours: integer vectors at l1 distance 1, when ``sampler`` is
    ``eps``-DP per unit (GeoSample's budget ``2 eps``).

    Oracle calls: exactly ``d``, one per entry ``i = 1..d`` (``sampler.sample(x_i)``).
    """
    if d > MAX_DENSE_UNIVERSE:
        raise ParameterError(
            f"universe_size: got {short_int(d)}; Alg 6 touches every entry, so it is limited "
            f"to {MAX_DENSE_UNIVERSE}; for histograms pass rows = n (KH' over the empty bins)"
        )
    out: dict[int, int] = {}
    for i in range(1, d + 1):
        v = sampler.sample(x.get(i, 0), rng)
        if v >= t:
            out[i] = v
    return out


class PureThresholdALP:
    """Threshold ALP with Alg 6: pure ``eps``-DP, exact.

    Paper: Lebeda thesis Alg 7 with Alg 6 (Lemma 2.21: ``(eps_1 + eps_2)``-DP;
    Lemma 2.20: sparsity), Alg 8 (estimates).

    Neighbours: without ``rows``, integer vectors at l1 distance at most
    ``contribution``; with ``rows = n``, histograms of ``n`` rows with one row
    replaced (two counts move by one, ``n`` public: BV's relation).

    Args:
        universe_size: ``d`` (dense: at most ``MAX_DENSE_UNIVERSE``).
        epsilon: the total budget; ``eps_1 = split eps`` finds the heavy entries.
        k: the public bound on the number of non-zero entries.
        u: dense mode: the public bound on entries (an entry above it is refused).
        alpha: ALP's scale (default 3).
        s: ALP's buckets (default: the least power of two ``>= 10k``).
        split: the share of ``epsilon`` for the heavy part (default 1/2).
        contribution: dense mode: one person's l1 contribution (default 1).
        rows: histogram mode: the public number of rows ``n``.
        beta: histogram mode: ``1/g``, PureSparseHistogram's ``beta`` (default 1/100);
            ``eps_1`` must then be ``1/k'`` for an integer ``k'`` (BV Thm 6.11).

    Raises:
        ParameterError: a parameter out of range (the message names it).
    """

    def __init__(
        self,
        universe_size: int,
        epsilon: object,
        k: int,
        u: int | None = None,
        alpha: object = DEFAULT_ALPHA,
        s: int | None = None,
        split: object = Fraction(1, 2),
        contribution: int = 1,
        rows: int | None = None,
        beta: object = Fraction(1, 100),
    ) -> None:
        self.universe_size = check_positive_int(universe_size, "universe_size")
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.k = check_positive_int(k, "k")
        share = probability(split, "split")
        self.epsilon1 = self.epsilon * share
        self.epsilon2 = self.epsilon - self.epsilon1
        self.rows = None if rows is None else check_positive_int(rows, "rows")
        self.sparse: PureSparseHistogram | None = None
        if self.rows is None:
            self.contribution = check_positive_int(contribution, "contribution")
            if u is None:
                raise ParameterError("u: required without rows (the public bound on entries)")
            self.u = check_positive_int(u, "u")
            if self.universe_size > MAX_DENSE_UNIVERSE:
                raise ParameterError(
                    f"universe_size: got {short_int(self.universe_size)}; Alg 6 touches every "
                    f"entry (at most {MAX_DENSE_UNIVERSE}); for histograms pass rows = n"
                )
            self.sampler = GeoSample(self.u, 2 * self.epsilon1 / self.contribution, noise="tight")
        else:
            self.contribution = 2  # one row replaced: two counts move by one
            self.sparse = PureSparseHistogram(
                self.rows, self.universe_size, self.epsilon1, beta, counter="geo"
            )
            self.sampler = self.sparse.sampler  # type: ignore[assignment]
            self.u = self.rows
        self.t = sparsity_threshold(self.sampler.noise.alpha, self.universe_size)
        if self.rows is None and self.t > self.u:
            raise ParameterError(
                f"u: got {self.u}; it must be at least the threshold t = {self.t} "
                f"(Lemma 2.20), or nothing can be released"
            )
        self.alp = ALP(
            self.universe_size,
            self.epsilon2,
            self.k,
            min(self.t, self.u),
            alpha=alpha,
            s=s,
            contribution=self.contribution,
            rows=self.rows,
        )

    @property
    def privacy(self) -> Privacy:
        """``(eps_1 + eps_2, 0)``: Lemma 2.21 (basic composition, independent draws)."""
        return Privacy(self.epsilon)

    @property
    def neighbours(self) -> str:
        """The neighbour relation of :attr:`privacy`."""
        return l1_neighbours(self.contribution)

    def accuracy(self, beta: object) -> Accuracy:
        """Per query: ``r + a_ALP`` with ``Pr[|Z| > r] <= beta/2`` and ALP at ``beta/2``.

        A released entry is off by its noise (at most ``r``); one that is not
        released has ``x + Z < t``, so ALP (``psi = t``) misses at most ``x - t < r``
        on top of its own bound.  With ``rows``, the statement's failure
        probability adds the mixture's fallback (``beta/4`` of PureSparseHistogram),
        ApproxOrdSample's distance and Lemma 2.20's ``1/(2d)`` (an empty bin above
        ``t`` could push a heavy bin out of KeepHeavy's top ``n``).
        """
        b = probability(beta, "beta")
        r = noise_radius(self.sampler.noise.alpha, b / 2)
        inner = self.alp.accuracy(b / 2)
        if inner.per_query is None:  # pragma: no cover - ALP always states one (capped)
            raise AssertionError("ALP stated no per-query accuracy")
        extra = Fraction(0)
        if self.sparse is not None:
            # ApproxOrdSample's distance (eps/3) beta1 (1/(3|X|))^n is below 1/(3|X|).
            extra = self.sparse.beta1 + Fraction(5, 6 * self.universe_size)
        return Accuracy(
            beta=b + extra,
            per_query=r + inner.per_query,
            threshold=None,
            simultaneous=None,
            source=f"Lebeda thesis Lemma 2.23 with {inner.source}",
        )

    def project(
        self, x: Mapping[int, object], rng: RandomSource | None = None
    ) -> ThresholdALPRelease:
        """Dense mode: Alg 6 over all ``d`` entries (``d`` calls), then ALP.

        Raises:
            ParameterError: histogram mode (use :meth:`release`), a key outside
                ``[1, d]``, a value that is negative, not an integer or above ``u``,
                or more than ``k`` non-zero entries.
        """
        if self.sparse is not None:
            raise ParameterError("project: this mechanism takes rows (rows = n); use release")
        rng = default_source() if rng is None else rng
        entries = check_sparse(x, self.universe_size, self.k, Fraction(1))
        for i, v in entries.items():
            if v > self.u:
                raise ParameterError(f"x[{i}]: got {v}; entries must be at most u = {self.u}")
        counts = {i: int(v) for i, v in entries.items()}
        heavy = threshold(counts, self.sampler, self.t, self.universe_size, rng)
        alp = self.alp.project(counts, rng)
        return ThresholdALPRelease(tuple(sorted(heavy.items())), alp, self.t, self.privacy)

    def release(
        self, data: Iterable[object] | Mapping[Any, Any], rng: RandomSource | None = None
    ) -> ThresholdALPRelease:
        """Release the histogram of ``data`` (each row adds 1 to one key; or ``{key: count}``).

        Histogram mode: PureSparseHistogram's ``5n + 2`` calls, its bins below ``t``
        dropped, then ALP.  Dense mode: :meth:`project` of the counts.
        """
        rng = default_source() if rng is None else rng
        if self.sparse is None:
            return self.project(histogram_of(data, self.universe_size, self.rows), rng)
        counts = histogram_of(data, self.universe_size, self.rows)
        if len(counts) > self.k:
            raise ParameterError(f"data: has {len(counts)} distinct keys; k = {self.k}")
        noisy = self.sparse.release(counts, rng)
        heavy = tuple((x, v) for x, v in noisy.items() if v >= self.t)
        alp = self.alp.project(counts, rng)
        return ThresholdALPRelease(heavy, alp, self.t, self.privacy)

    def __repr__(self) -> str:
        mode = "dense" if self.sparse is None else f"rows = {self.rows}"
        return (
            f"PureThresholdALP(d = {short_int(self.universe_size)}, eps = {self.epsilon} "
            f"({self.epsilon1} + {self.epsilon2}), k = {self.k}, t = {self.t}, {mode})"
        )
