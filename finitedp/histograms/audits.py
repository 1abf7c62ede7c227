"""Exact audits of the histogram mechanisms: their plans for ``finitedp audit``.

Paper: BV Thm 5.3 (BoundedGeometricHistogram), Thm 5.5 / 5.6 (StabilityHistogram,
paper layer and user level), Thm 6.11 (PureSparseHistogram).  Neighbours replace
one row (BV Def 2.1).  Each function turns the user's parameters into an
:class:`~finitedp.checker.plan.AuditPlan` that :mod:`finitedp.audit` runs over
every dataset of a tiny universe.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..checker.plan import (
    AccuracyClaim,
    AuditPlan,
    AuditRequest,
    Dataset,
    Explored,
    Explorer,
    claims_of,
    exact_text,
    explorer,
    missing_accuracy,
    occupied,
    support_sizes,
    true_counts,
)
from ..checker.symbolic import explore
from ..counting.registry import build_counter
from ..errors import ParameterError
from ..guarantees import Privacy
from ..oracle import RandomSource
from ..params import inverse_natural, short_int
from .blanket import BlanketHistogram
from .bounds import stability_threshold
from .keepheavy import kh_prime
from .mechanisms import BoundedGeometricHistogram, StabilityHistogram
from .sparse import ApproxOrderStatistics, PureSparseHistogram, pure_sparse_fallback
from .stability import stability_histogram

__all__ = [
    "BLANKET_SIZES",
    "BOUNDED_GEOMETRIC_SIZES",
    "PURE_SPARSE_SIZES",
    "STABILITY_SIZES",
    "blanket_plan",
    "bounded_geometric_plan",
    "pure_sparse_plan",
    "stability_plan",
]

#: Instances measured to work: the whole audit on one (shared) core of the
#: development machine, default ``--beta 1/10``, ``epsilon = 1``.
BOUNDED_GEOMETRIC_SIZES = (
    "counter fast: n = 2, |X| = 5 (4,374 paths, 0.5 s); n = 3, |X| = 5 (38,912 paths, 5 s); "
    "n = 2, |X| = 7 (67,797 paths, 10 s); n = 4, |X| = 5 (228,125 paths, 30 s)"
)
STABILITY_SIZES = (
    "user level (needs n >= b; b = 8 for geo, 11 for fast at epsilon = 1, delta = 1/2): "
    "geo n = 10, |X| = 2 (1,474 paths, 0.2 s); geo n = 8, |X| = 3 (19,224 paths, 2 s); "
    "fast n = 13, |X| = 2 (2,968 paths, 0.3 s); fast n = 11, |X| = 3 (87,300 paths, 10 s); "
    "paper layer (--threshold, geo): n = 4, |X| = 4, b = 1 (3,470 paths, 0.7 s); "
    "n = 5, |X| = 4, b = 2 (15,144 paths, 2 s)"
)
PURE_SPARSE_SIZES = (
    "n = 1, |X| = 3 (432 paths, 0.1 s); n = 1, |X| = 7 (35,280 paths, 4 s); with "
    "--split-mixture: n = 2, |X| = 5 (12,969 paths, 2 s), n = 2, |X| = 6 (59,940 paths, 9 s)"
)

BLANKET_SIZES = (
    "the threshold needs n > b, so tiny instances need a large epsilon: --epsilon 4 "
    "--beta 1/4 --counter geo: n = 2, |X| = 5 (43,032 paths, 8 s); n = 2, |X| = 6 "
    "(157,860 paths, 25 s)"
)


def _unpack(request: AuditRequest) -> tuple[int, int, object, Fraction, str]:
    return request.n, request.universe_size, request.epsilon, request.beta, request.counter


def _noise(request: AuditRequest) -> str:
    """``--noise``: ``"paper"`` unless ``"tight"`` is asked for."""
    return str(request.option("noise") or "paper")


def bounded_geometric_plan(request: AuditRequest) -> AuditPlan:
    """BoundedGeometricHistogram over every dataset (BV Alg 5.1, Thm 5.3, Fig 3)."""
    n, m, epsilon, beta, counter = _unpack(request)
    mech = BoundedGeometricHistogram(n, m, epsilon, beta, counter=counter, noise=_noise(request))
    accuracy = mech.accuracy(beta)
    sizes = support_sizes(mech.sampler)

    def estimate(datasets: list[Dataset]) -> int:
        return sum(math.prod(sizes[c] for c in true_counts(d, m)) for d in datasets)

    return AuditPlan(
        title=repr(mech),
        description=(
            "user-level mechanism: BasicHistogram over every bin (BV Alg 5.1, Thm 5.3, Fig 3)",
            f"counter {mech.sampler!r}, d = {short_int(mech.sampler.d)}",
        ),
        explore=explorer(mech.release, request.explore_limit),
        privacy=mech.privacy,
        privacy_source="BV Thm 5.3 i",
        accuracy=claims_of(accuracy),
        exact_calls=mech.max_oracle_calls,
        estimate=estimate,
        fixed_domains=True,
        notes=missing_accuracy(accuracy),
    )


def _stability_estimate(sizes: list[int]) -> Callable[[list[Dataset]], int]:
    def estimate(datasets: list[Dataset]) -> int:
        return sum(math.prod(sizes[c] for c in occupied(d).values()) for d in datasets)

    return estimate


def stability_plan(request: AuditRequest) -> AuditPlan:
    """StabilityHistogram: the user level (BV Thm 5.6), or the paper layer with a threshold."""
    threshold, gamma = request.option("threshold"), request.option("gamma")
    if threshold is not None:
        if request.option("delta") is not None:
            raise ParameterError(
                f"delta: got {request.option('delta')}; the paper layer (--threshold) uses Thm "
                f"5.5's delta = 2 Pr[M(1, U) > b], so omit delta"
            )
        return _stability_paper(request, threshold, gamma)
    if gamma is not None:
        raise ParameterError(
            "gamma: applies to the stability paper layer only (--threshold with --counter fast); "
            "the user-level mechanisms derive gamma from beta"
        )
    return replace(
        _stability_user(request),
        hint=" Or audit the paper layer with an explicit small threshold: --threshold B.",
    )


def _stability_user(request: AuditRequest) -> AuditPlan:
    n, m, epsilon, beta, counter = _unpack(request)
    delta = request.option("delta")
    if delta is None:
        raise ParameterError(
            "delta: the user-level stability mechanism is (eps, delta)-DP and needs delta = 1/k, "
            "e.g. 1/2 at this size; or audit the paper layer with an explicit threshold"
        )
    try:
        mech = StabilityHistogram(
            n, m, epsilon, delta, beta, counter=counter, noise=_noise(request)
        )
    except ParameterError as error:
        b = stability_threshold(
            counter, inverse_natural(epsilon, "epsilon"), inverse_natural(delta, "delta")
        )
        if b <= n or _noise(request) == "tight":
            raise
        raise ParameterError(
            f"n: got {n}; the user-level StabilityHistogram needs n >= b = {b} for epsilon = "
            f"{epsilon}, delta = {delta} (BV Thm 5.6: below it every release is empty). The "
            f"smallest user-level instance is n = {b}: feasible for |X| <= 3 (known sizes: "
            f"{STABILITY_SIZES}). Or audit the paper layer, StabilityHistogram_{{M,b}} "
            f"of BV Alg 5.4 / Thm 5.5, with an explicit small threshold: --threshold B "
            f"(B in [0, n]) instead of --delta"
        ) from error
    accuracy = mech.accuracy(beta)
    notes = missing_accuracy(accuracy)
    if mech.threshold >= n:
        notes += (
            f"DEGENERATE: b = {mech.threshold} >= n = {n}, so no noisy count (in [0, n]) is "
            f"above b and every release is empty: the privacy claim holds trivially. Audit "
            f"n > b (e.g. --n {mech.threshold + 2} with |X| = 2) or the paper layer with a small "
            f"--threshold",
        )
    return AuditPlan(
        title=repr(mech),
        description=(
            "user-level mechanism: noisy occupied bins above a threshold (BV Alg 5.4, "
            "Thm 5.6, Fig 4)",
            f"counter {mech.sampler!r}, d = {short_int(mech.sampler.d)}, threshold "
            f"b = {mech.threshold}",
        ),
        explore=explorer(mech.release, request.explore_limit),
        privacy=mech.privacy,
        privacy_source="BV Thm 5.5 i (tight threshold)"
        if mech.noise == "tight"
        else "BV Thm 5.6 i",
        accuracy=claims_of(accuracy),
        estimate=_stability_estimate(support_sizes(mech.sampler)),
        exact_calls=mech.max_oracle_calls,
        fixed_domains=True,
        notes=notes,
    )


def _stability_paper(request: AuditRequest, threshold: object, gamma: object) -> AuditPlan:
    n, m, epsilon, beta, counter = _unpack(request)
    sampler = build_counter(counter, n, epsilon, gamma)
    b = threshold
    if isinstance(b, bool) or not isinstance(b, int) or not 0 <= b <= n:
        raise ParameterError(f"threshold: got {b!r}; b must be an int in [0, n] = [0, {n}]")
    tail = sum((p for z, p in sampler.pmf(1).items() if z > b), Fraction(0))
    a = sampler.accuracy(beta)  # type: ignore[attr-defined]
    simultaneous_beta = 1 - (1 - beta) ** n

    def release(data: Dataset, rng: RandomSource) -> Any:
        return stability_histogram(sampler, b, data, m, rng, pad=True)

    claims = [AccuracyClaim("per-query", a, beta, a + b, "BV Thm 5.5 ii")]
    notes = [
        f"delta is Thm 5.5 i's smallest: 2 Pr[M(1, U) > b] = {exact_text(2 * tail)}",
        f"a = {a} is the counter's (a, beta)-accuracy at beta = {beta} (BV Thm 4.7 / 4.10)",
    ]
    if simultaneous_beta < 1:
        claims.append(
            AccuracyClaim("simultaneous", a + b, simultaneous_beta, None, "BV Thm 5.5 iii")
        )
    return AuditPlan(
        title=f"StabilityHistogram_{{M,b}} (paper layer) with M = {sampler!r}, b = {b}",
        description=(
            "paper layer: stability_histogram (BV Alg 5.4, Thm 5.5), padded to n oracle calls",
            f"counter {sampler!r}, d = {short_int(sampler.d)}, threshold b = {b}, |X| = {m}",
        ),
        explore=explorer(release, request.explore_limit),
        privacy=Privacy(sampler.epsilon, 2 * tail),
        privacy_source="BV Thm 5.5 i",
        accuracy=tuple(claims),
        estimate=_stability_estimate(support_sizes(sampler)),
        exact_calls=n,
        fixed_domains=True,
        notes=tuple(notes),
    )


def pure_sparse_plan(request: AuditRequest) -> AuditPlan:
    """PureSparseHistogram (BV Alg 6.9, Thm 6.11), whole or with the mixture split."""
    n, m, epsilon, beta, counter = _unpack(request)
    split_mixture = bool(request.option("split_mixture"))
    mech = PureSparseHistogram(n, m, epsilon, beta, counter=counter, noise=_noise(request))
    sampler, beta1 = mech.sampler, mech.beta1
    step = ApproxOrderStatistics(mech.precision, pad=True)
    sizes = support_sizes(sampler)
    fallback_paths = int((m * (n + 1)) ** n)
    order_paths: dict[int, int] = {}

    def order_statistics_paths(distinct: int) -> int:
        if distinct not in order_paths:

            def levels(rng: RandomSource) -> tuple[int, ...]:
                return step(sampler.scaled_cdf_at_zero, n, m - distinct, rng)

            order_paths[distinct] = len(explore(levels, limit=request.explore_limit))
        return order_paths[distinct]

    def sparse_paths(data: Dataset) -> int:
        counts = occupied(data)
        k = len(counts)
        noisy = math.prod(sizes[c] for c in counts.values())
        distinct = math.prod(m - k - i for i in range(n + 1))
        return noisy * distinct * order_statistics_paths(k)

    def sparse(data: Dataset, rng: RandomSource) -> Any:
        return kh_prime(sampler, data, m, rng, order_statistics=step, pad=True)

    def fallback(rng: RandomSource) -> Any:
        return pure_sparse_fallback(n, m, rng)

    notes = list(missing_accuracy(mech.accuracy(beta)))
    if split_mixture:
        whole = explorer(lambda data, rng: fallback(rng), request.explore_limit)
        part = explorer(sparse, request.explore_limit)
        cache: list[Explored] = []

        def explore_split(data: Dataset) -> Explored:
            first = not cache
            if first:
                cache.append(whole(data))
            other, mine = cache[0], part(data)
            law = {h: (1 - beta1) * p for h, p in mine.distribution.items()}
            for h, p in other.distribution.items():
                law[h] = law.get(h, Fraction(0)) + beta1 * p
            traces = frozenset(
                (beta1.denominator, *s, *f) for s in mine.traces for f in other.traces
            )
            return Explored(law, traces, mine.paths + (other.paths if first else 0))

        def estimate(datasets: list[Dataset]) -> int:
            return sum(sparse_paths(d) for d in datasets) + fallback_paths

        explore_fn: Explorer = explore_split
        notes.append(
            f"--split-mixture: each law is (1 - beta1) SparseHistogram + beta1 fallback with "
            f"beta1 = {beta1} (BV Alg 3.1 / 6.9: finitedp.counting.mixing.Mixture runs both "
            f"branches on independent draws and one draw in [1, 1/beta1] picks the release); "
            f"the two branches are explored separately, not the Mixture call itself "
            f"(tests/test_audit.py "
            f"checks the two agree end to end at n = 1)"
        )
    else:

        def estimate(datasets: list[Dataset]) -> int:
            return sum(2 * sparse_paths(d) * fallback_paths for d in datasets)

        explore_fn = explorer(mech.release, request.explore_limit)
    notes.append(
        "the oracle domains of DistinctSample depend on the number of distinct rows |A| "
        "(BV Alg 6.21 step 3; see finitedp.histograms.sparse): only the number of calls is "
        "data-independent"
    )
    hint = (
        ""
        if split_mixture
        else (
            " --split-mixture explores SparseHistogram and the fallback separately "
            "(BV Alg 3.1's law), which reaches n = 2, |X| = 5."
        )
    )
    return AuditPlan(
        title=repr(mech),
        description=(
            "user-level mechanism: PureSparseHistogram (BV Alg 6.9, Thm 6.10-6.11, Fig 5)",
            f"counter {sampler!r}, d = {short_int(sampler.d)}, beta1 = {beta1}, "
            f"delta = {exact_text(mech.delta)}, precision s = {short_int(mech.precision)}",
        ),
        explore=explore_fn,
        privacy=mech.privacy,
        privacy_source="BV Thm 6.11 i",
        accuracy=claims_of(mech.accuracy(beta)),
        estimate=estimate,
        exact_calls=mech.max_oracle_calls,
        notes=tuple(notes),
        hint=hint,
    )


def blanket_plan(request: AuditRequest) -> AuditPlan:
    """BlanketHistogram: the thresholded BasicHistogram, empty bins through the blanket."""
    n, m, epsilon, beta, counter = _unpack(request)
    noise = str(request.option("noise") or "tight")
    mech = BlanketHistogram(n, m, epsilon, beta, counter=counter, noise=noise)
    sampler, chain = mech.sampler, mech.chain
    accuracy = mech.accuracy(beta)
    sizes = support_sizes(sampler)
    # Shuffle paths: sum over blanket sizes k <= 2n of m (m - 1) ... (m - k + 1), and K > 2n.
    shuffles = sum(math.perm(m, k) for k in range(2 * n + 1)) + math.perm(m, 2 * n)

    def estimate(datasets: list[Dataset]) -> int:
        noisy = sum(math.prod(sizes[c] for c in occupied(d).values()) for d in datasets)
        return noisy * shuffles * 3 // 2  # the empty bins' values: measured 1.18-1.26

    return AuditPlan(
        title=repr(mech),
        description=(
            "user-level mechanism: BasicHistogram over every bin, noisy counts above b kept, "
            "the empty bins through the blanket (BV Alg 5.1, Thm 5.2; "
            "proofs_notes/blanket_histogram.md)",
            f"counter {sampler!r}, d = {short_int(sampler.d)}, b = {mech.threshold}, "
            f"chain: {chain.steps} steps in [1, 2^{chain.g}], factor 1 + 2^-{chain.h} a step",
        ),
        explore=explorer(mech.release, request.explore_limit),
        privacy=mech.privacy,
        privacy_source="BV Thm 5.2 i with the blanket chain's certified factor",
        accuracy=claims_of(accuracy),
        exact_calls=mech.max_oracle_calls,
        estimate=estimate,
        fixed_domains=True,
        notes=missing_accuracy(accuracy),
    )
