"""Private Misra-Gries (Alg 13) with exact clamped geometric noise and an exact threshold.

Paper: Lebeda thesis Alg 13 (PMG), Lemmas 3.2-3.5, Theorem 3.1, Section 3.5.1
(standard sketches), Section 3.5.2 (geometric noise in place of Laplace; output
sorted by key).

Neighbours: streams that differ by adding or removing one element (thesis
Def 3.1), not BV's replacement of one row.  Every noise sample is a two-sided
geometric of ratio ``alpha = a/b`` with ``b/a <= e^eps`` (decided exactly),
clamped to ``[-R, R]`` so that a release makes exactly ``k + 1`` oracle calls
(:class:`~finitedp.counting.twosided.ClampedGeometric`: GeoSample's budget is
``eps/2`` per count, so it is run at ``2 eps``).

Two thresholds, both exact integers (``tests/test_sketches_checker.py`` computes
the hockey-stick divergence of both exactly on small streams):

* ``threshold="paper"`` (Lemma 3.3 with the geometric tail
  ``Pr[Z >= t] = alpha^t/(1 + alpha)``): ``tau = 1 + 2t`` with the least ``t``
  such that ``m alpha^t/(1 + alpha) <= delta``, ``R = t``.  ``m = 7`` for Alg 12
  sketches (Lemma 3.3's six samples, plus Corollary 3.1's clamp end, which has
  mass ``alpha^R/(1 + alpha)``); ``m = k + 2`` for standard sketches (Section
  3.5.1: the keys outside both sketches, at most ``k``, are on one side, so
  ``k + 1`` samples, plus the clamp).
* ``threshold="clamp"``: ``R`` the least with ``alpha^R/(1 + alpha) <= delta``
  and ``tau = 2R + 2``.  A key with count at most 1 then never reaches ``tau``
  (``1 + 2R < tau``), so Lemma 3.3's term is 0 and the whole ``delta`` is the
  clamp's: a lower threshold for the same ``delta``.  It also makes the
  standard sketch's release *equal in law* to the Alg 12 sketch's (zero
  counters are never released), so Section 3.5.1 needs no larger threshold.

>>> from finitedp.oracle import SeededSource
>>> pmg = PrivateMisraGries(k=4, universe_size=1000, epsilon=1, delta="1/1000000")
>>> pmg.tau, pmg.noise.r, pmg.privacy.delta <= Fraction(1, 10**6)
(33, 16, True)
>>> r = pmg.release([7] * 200 + [8] * 50 + list(range(1, 40)), rng=SeededSource(b"pmg"))
>>> [x for x, _ in r.heavy]
[7, 8]
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from ..counting.twosided import ClampedGeometric, clamp_tail, least_tail, noise_radius
from ..errors import ParameterError
from ..guarantees import Accuracy, Privacy
from ..oracle import RandomSource, default_source
from ..params import check_positive_int, positive_fraction, probability, short_fraction, short_int
from .misragries import MGSketch, misra_gries, require_counters
from .release import SketchRelease

__all__ = [
    "DEBIAS_SHARE",
    "STREAM_NEIGHBOURS",
    "PrivateMisraGries",
    "clamp_tail",
    "least_tail",
    "noise_radius",
    "pmg_release",
]

#: The neighbour relation of every guarantee in this package (thesis Def 3.1).
STREAM_NEIGHBOURS = "streams that differ by adding or removing one element (Lebeda thesis Def 3.1)"

_THRESHOLDS = ("paper", "clamp")

#: The share of ``eps`` and ``delta`` the noisy number of decrements takes (``debias``).
DEBIAS_SHARE = Fraction(1, 10)


def pmg_release(
    sketch: MGSketch, noise: ClampedGeometric, tau: int, rng: RandomSource
) -> tuple[tuple[int, int], ...]:
    """Alg 13 on a sketch: one shared sample, one per counter, keep noisy counts ``>= tau``.

    Paper: Lebeda thesis Alg 13 (steps 2-7), with clamped geometric noise.

    Oracle calls: ``k + 1``: the shared ``eta`` first, then one per stored key in
    increasing key order (an Alg 12 sketch stores exactly ``k``; a standard
    sketch's missing counters are padded with discarded samples).  Dummy keys
    (above ``d``) are never released (their count is 0, and the caller's
    threshold exceeds ``2R``) but get their sample like every counter.
    """
    eta = noise.sample(rng)
    out = []
    for x, c in sketch.counters:
        v = c + eta + noise.sample(rng)
        if v >= tau and x <= sketch.universe_size:
            out.append((x, v))
    for _ in range(sketch.k - len(sketch.counters)):
        noise.sample(rng)  # padding: the number of calls must not reveal the sketch
    return tuple(out)


class PrivateMisraGries:
    """PMG(eps, delta) on Misra-Gries sketches of ``k`` counters: ``(eps, delta)``-DP, exact.

    Paper: Lebeda thesis Alg 12 + Alg 13, Lemma 3.4 (privacy), Lemma 3.5 and
    Theorem 3.1 (accuracy), Section 3.5.1 (``standard=True``).

    Neighbours: streams differing by one added or removed element (Def 3.1).

    Args:
        k: counters.
        universe_size: ``d``; stream elements are ints in ``[1, d]``.
        epsilon: the budget; each noise sample has ``b/a <= e^eps``.
        delta: the total ``delta``; the stated one is at most this, exact or (past
            :data:`~finitedp.counting.twosided.EXACT_TAIL_BITS`) a certified bound.
        threshold: ``"paper"`` (Lemma 3.3, the default) or ``"clamp"`` (module notes).
        standard: release the standard (zero-dropped) sketch (Section 3.5.1).
        debias: also release the noisy number of decrements ``gamma~ = gamma + Z``
            (:data:`DEBIAS_SHARE` of ``eps`` and of ``delta``; ``gamma`` moves by at most
            1 between neighbours, thesis Section 3.6), so that ``c~_x + gamma~/2``, a
            post-processing, is the estimate corrected for half the sketch's bias (the
            true count lies in ``[c_x, c_x + gamma]``, Fact 3.1).

    Raises:
        ParameterError: a parameter out of range (the message names it).
        ParameterTypeError: a float.
    """

    def __init__(
        self,
        k: int,
        universe_size: int,
        epsilon: object,
        delta: object,
        *,
        threshold: str = "paper",
        standard: bool = False,
        debias: bool = False,
    ) -> None:
        self.k = check_positive_int(k, "k")
        require_counters(self.k)  # before the noise tables, which grow with k too
        self.universe_size = check_positive_int(universe_size, "universe_size")
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.delta = probability(delta, "delta")
        if threshold not in _THRESHOLDS:
            raise ParameterError(f'threshold: got {threshold!r}; use "paper" or "clamp"')
        self.threshold = threshold
        self.standard = bool(standard)
        self.debias = bool(debias)
        # With debias, Alg 13 keeps 1 - DEBIAS_SHARE of eps and delta (composition).
        keep = 1 - DEBIAS_SHARE if self.debias else Fraction(1)
        eps, delta_main = self.epsilon * keep, self.delta * keep
        alpha = ClampedGeometric(eps, 1).ratio  # the tight ratio; R does not change it
        if threshold == "paper":
            self.samples = self.k + 2 if self.standard else 7
            t = least_tail(alpha, delta_main, self.samples)
            self.noise = ClampedGeometric(eps, t, samples=self.k + 1)
            self.tau = 1 + 2 * t
            # least_tail decided exactly that the true tail is at most delta, so the
            # minimum with a rounded-up bound is still a bound.
            self.stated_delta = min(delta_main, self.samples * clamp_tail(alpha, t))
        else:
            self.samples = 1
            r = least_tail(alpha, delta_main)
            self.noise = ClampedGeometric(eps, r, samples=self.k + 1)
            self.tau = 2 * r + 2
            self.stated_delta = min(delta_main, clamp_tail(alpha, r))
        self.decrement_noise: ClampedGeometric | None = None
        if self.debias:
            # gamma moves by at most 1 between neighbours: one clamped geometric sample,
            # (eps share, its clamp's mass)-DP as each of Alg 13's counts is (Cor 3.1).
            share_eps, share_delta = self.epsilon * DEBIAS_SHARE, self.delta * DEBIAS_SHARE
            ratio = ClampedGeometric(share_eps, 1).ratio
            radius = least_tail(ratio, share_delta)
            self.decrement_noise = ClampedGeometric(share_eps, radius)
            self.stated_delta += min(share_delta, clamp_tail(ratio, radius))

    @property
    def alpha(self) -> Fraction:
        """The geometric ratio ``a/b`` (``b/a <= e^eps``)."""
        return self.noise.ratio

    @property
    def privacy(self) -> Privacy:
        """``(eps, m alpha^R/(1 + alpha))``: Lemma 3.4 with the exact geometric tails (with
        ``debias``, the sum of both releases' ``eps`` and ``delta``: basic composition)."""
        return Privacy(self.epsilon, self.stated_delta)

    @property
    def neighbours(self) -> str:
        """The neighbour relation of :attr:`privacy`."""
        return STREAM_NEIGHBOURS

    @property
    def max_oracle_calls(self) -> int:
        """``k + 1`` (``k + 2`` with ``debias``): exactly, for every stream."""
        return self.k + 1 + self.debias

    def accuracy(self, beta: object, n: int | None = None) -> Accuracy:
        """Lemma 3.5 (against the sketch), or Theorem 3.1 (against the stream) given ``n``.

        With probability ``1 - beta`` all ``k + 1`` samples are at most
        ``r = min(R, radius)`` in absolute value, ``Pr[|Z| > radius] <= beta/(k + 1)``;
        then every released count is within ``2r`` of its counter, and a key not
        released has counter at most ``tau - 1 + 2r``.  So ``|c~_x - c_x| <=
        2r + tau - 1`` for all ``x`` at once (``simultaneous``).  With ``n`` the
        Misra-Gries error ``floor(n/(k + 1))`` (Fact 3.1) is added: the bound on
        ``|f~(x) - f(x)|``.  ``n`` is the stream length, which is not public
        under these neighbours: pass it to read the statement, never publish it.
        """
        b = probability(beta, "beta")
        r = min(self.noise.r, noise_radius(self.alpha, b / (self.k + 1)))
        bound = 2 * r + self.tau - 1
        source = "Lebeda thesis Lemma 3.5"
        relative = (
            f"the sketch's counters, not the true counts: Misra-Gries undercounts each key "
            f"by at most n/(k + 1) = n/{self.k + 1} more (Fact 3.1; n, the stream length, "
            "is not released), so |estimate - true count| <= this bound + n/(k + 1)"
        )
        if n is not None:
            bound += check_positive_int(n, "n") // (self.k + 1)
            source = "Lebeda thesis Theorem 3.1 (Fact 3.1 + Lemma 3.5)"
            relative = "the true counts (the sketch's bias floor(n/(k + 1)) included)"
        return Accuracy(b, bound, None, bound, source, relative)

    def noise_variance(self) -> Fraction:
        """``2 alpha/(1 - alpha)^2``: the variance of the unclamped geometric, an upper
        bound for the clamped one (clamping a symmetric variable only shrinks it)."""
        alpha = self.alpha
        return 2 * alpha / (1 - alpha) ** 2

    def mean_squared_error_bound(self, n: int) -> Fraction:
        """Theorem 3.1's ``E[(f~(x) - f(x))^2]`` bound with the exact geometric, for ``n`` elements.

        ``3 (E[r_1^2] + r_2^2 + r_3^2)``: ``r_1`` the two noise samples of a counter
        (variance at most ``2 noise_variance()``), ``r_2`` the value a threshold
        drops (at most ``tau - 1``, and at most ``2R`` below zero, ``2R <= tau - 1``),
        ``r_3`` the Misra-Gries error (at most ``n/(k+1)``, Fact 3.1).
        """
        n = check_positive_int(n, "n")
        return 3 * (2 * self.noise_variance() + (self.tau - 1) ** 2 + Fraction(n, self.k + 1) ** 2)

    def sketch(self, stream: Iterable[object]) -> MGSketch:
        """Alg 12 on the stream (the standard sketch when ``standard``)."""
        sketch = misra_gries(self.k, self.universe_size, stream)
        return sketch.to_standard() if self.standard else sketch

    def release_sketch(self, sketch: MGSketch, rng: RandomSource | None = None) -> SketchRelease:
        """Alg 13 on a sketch made with this ``k`` and ``d``: ``k + 1`` oracle calls.

        Raises:
            ParameterError: a sketch of another ``k``, ``d`` or kind.
        """
        if (sketch.k, sketch.universe_size, sketch.standard) != (
            self.k,
            self.universe_size,
            self.standard,
        ):
            raise ParameterError(
                f"sketch: made with k = {sketch.k}, d = {sketch.universe_size}, standard = "
                f"{sketch.standard}; this mechanism has k = {self.k}, d = {self.universe_size}, "
                f"standard = {self.standard}"
            )
        rng = default_source() if rng is None else rng
        heavy = pmg_release(sketch, self.noise, self.tau, rng)
        decrements = None
        if self.decrement_noise is not None:  # after Alg 13's k + 1 calls: one more
            decrements = sketch.gamma + self.decrement_noise.sample(rng)
        return SketchRelease(
            heavy,
            self.universe_size,
            self.privacy,
            self.neighbours,
            self._text(),
            decrements=decrements,
        )

    def decrement_radius(self, beta: object) -> int:
        """``r`` with ``Pr[|gamma~ - gamma| > r] <= beta`` (``debias`` only): the noisy
        number of decrements is within ``r`` of the true one.

        Raises:
            ParameterError: no ``debias``, or ``beta`` outside ``(0, 1)``.
        """
        if self.decrement_noise is None:
            raise ParameterError("debias: this release has no decrement count")
        noise = self.decrement_noise
        return min(noise.r, noise_radius(noise.ratio, probability(beta, "beta")))

    def release(self, data: Iterable[object], rng: RandomSource | None = None) -> SketchRelease:
        """``PMG(k, S)`` for the stream ``data``: its sketch, then Alg 13.

        Raises:
            ParameterError: an element outside ``[1, d]`` (nothing is released).
        """
        return self.release_sketch(self.sketch(data), rng)

    def _text(self) -> tuple[tuple[str, str], ...]:
        return (
            ("algorithm", "Lebeda thesis Alg 12 + Alg 13 (PMG)"),
            ("epsilon", str(self.epsilon)),
            ("k", str(self.k)),
            ("threshold", self.threshold),
            ("tau", str(self.tau)),
            ("R", str(self.noise.r)),
            ("alpha", str(self.alpha)),
            ("sketch", "standard" if self.standard else "alg12"),
            *((("debias", f"{DEBIAS_SHARE} of eps and delta"),) if self.debias else ()),
        )

    def __repr__(self) -> str:
        return (
            f"PrivateMisraGries(k = {self.k}, d = {self.universe_size}, "
            f"eps = {short_fraction(self.epsilon)}, delta = {short_fraction(self.stated_delta)}, "
            f"tau = {short_int(self.tau)}, threshold = {self.threshold!r})"
        )
