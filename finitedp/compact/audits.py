"""Exact audit of CompactHistogram: its plan for ``finitedp audit compact``.

Paper: BV Thm 8.3 (the paper layer ``CompactHistogram_{M,M0}`` in a small field),
Thm 8.6 (the user level, whose field is never small enough to enumerate: refused
with a hint).  Neighbours replace one row (BV Def 2.1).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ..checker.plan import (
    AccuracyClaim,
    AuditPlan,
    AuditRequest,
    Dataset,
    claims_of,
    explorer,
    missing_accuracy,
    occupied,
)
from ..counting.base import CountingSampler
from ..counting.registry import build_counter
from ..errors import ParameterError
from ..guarantees import Privacy
from ..oracle import RandomSource
from ..params import short_int
from .emptybin import EmptyBinSampler
from .gf2 import MAX_LEVEL
from .histogram import CompactHistogram, compact_histogram

__all__ = ["COMPACT_SIZES", "compact_plan"]

#: Instances measured to work (one shared core, ``epsilon = 1``).
COMPACT_SIZES = (
    "paper layer only (--level 1, d0 = 64, --counter geo): n = 1, |X| = 3 (12,288 paths, "
    "2 s); n = 1, |X| = 8 (32,768 paths, 8 s); n = 2 needs d0^3 = 262,144 paths per dataset"
)


def _estimate(
    sampler: CountingSampler, d0: int, preimage: Callable[[int], tuple[int, int]], n: int
) -> Callable[[list[Dataset]], int]:
    def per_count(c: int) -> int:
        total = 0
        for v in sampler.pmf(c):
            low, high = preimage(v)
            total += high - low + 1
        return total

    cache: dict[int, int] = {}

    def estimate(datasets: list[Dataset]) -> int:
        total = 0
        for data in datasets:
            counts = occupied(data)
            paths = d0 ** (n + 1 - len(counts))
            for c in counts.values():
                if c not in cache:
                    cache[c] = per_count(c)
                paths *= cache[c]
            total += paths
        return total

    return estimate


def compact_plan(request: AuditRequest) -> AuditPlan:
    """CompactHistogram: refused at user level (Thm 8.6), the paper layer with a level."""
    n, m, epsilon, beta = request.n, request.universe_size, request.epsilon, request.beta
    counter, level = request.counter, request.option("level")
    if level is None:
        mech = CompactHistogram(n, m, epsilon, beta, counter=counter)
        empty = mech.empty_bin
        accuracy = mech.accuracy(beta)
        hint = (
            f" CompactHistogram (BV Thm 8.6) takes d0 = 2^{mech.d0.bit_length() - 1} here, and "
            f"its n + 1 - |A| filler draws in [1, d0] are used as field elements, so the checker "
            f"must enumerate them value by value. Audit the paper layer instead, "
            f"CompactHistogram_{{M,M0}} of BV Alg 8.2 / Thm 8.3 in a small field: --level 1 "
            f"(d0 = 64) with --counter geo, at n = 1."
        )
        return AuditPlan(
            title=repr(mech),
            description=(
                "user-level mechanism: CompactHistogram (BV Alg 8.2, Thm 8.6, Fig 6)",
                f"counter {mech.sampler!r}, d = {short_int(mech.sampler.d)}, "
                f"d0 = 2^{mech.d0.bit_length() - 1}",
            ),
            explore=explorer(mech.release, request.explore_limit),
            privacy=mech.privacy,
            privacy_source="BV Thm 8.6 i",
            accuracy=claims_of(accuracy),
            estimate=_estimate(mech.sampler, mech.d0, empty.preimage, n),
            exact_calls=mech.max_oracle_calls,
            notes=missing_accuracy(accuracy),
            hint=hint,
        )
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
        raise ParameterError(f"level: got {level!r}; it must be an int in [0, {MAX_LEVEL}]")
    if counter == "fast":
        raise ParameterError(
            "counter: the compact paper layer needs d0 >= (4/3) d (BV Lemma 8.4), and "
            "FastSample's d has dozens of digits even at n = 1, far above any d0 whose filler "
            "draws can be enumerated; use --counter geo"
        )
    sampler = build_counter(counter, n, epsilon, None)
    d0 = 1 << (2 * 3**level)
    if d0 < max(m, n + 1):
        raise ParameterError(
            f"level: d0 = 2^{2 * 3**level} is below max(|X|, n + 1) = {max(m, n + 1)} "
            f"(BV Alg 8.2 needs d0 >= |X|); raise --level"
        )
    empty = EmptyBinSampler(sampler, d0)
    a_sampler = sampler.accuracy(beta)  # type: ignore[attr-defined]
    m0 = empty.pmf()
    a_empty = next(a for a in range(n + 1) if sum(p for v, p in m0.items() if v <= a) >= 1 - beta)
    a = max(a_sampler, a_empty)

    def release(data: Dataset, rng: RandomSource) -> Any:
        return compact_histogram(sampler, empty, data, m, rng, workers=1, pad=True)

    claims = [AccuracyClaim("per-query", a, beta, None, "BV Thm 8.3 ii")]
    if beta * m < 1:
        claims.append(AccuracyClaim("simultaneous", a, beta * m, None, "BV Thm 8.3 iii"))
    budget = sampler.epsilon + Fraction(3 * sampler.d, d0)
    return AuditPlan(
        title=f"CompactHistogram_{{M,M0}} (paper layer) with M = {sampler!r}, d0 = {d0}",
        description=(
            "paper layer: compact_histogram (BV Alg 8.2, Thm 8.3) with the empty-bin sampler "
            "M0 of Alg 8.5, padded to 2n + 1 oracle calls",
            f"counter {sampler!r}, d = {sampler.d}, field GF(2^{2 * 3**level}), d0 = {d0}",
        ),
        explore=explorer(release, request.explore_limit),
        privacy=Privacy(budget),
        privacy_source=f"BV Thm 8.3 i with Lemma 8.4: eps1 + eps2 + eps3 = {sampler.epsilon} + "
        f"d/d0 + 2d/d0",
        accuracy=tuple(claims),
        estimate=_estimate(sampler, d0, empty.preimage, n),
        exact_calls=2 * n + 1,
        notes=(
            f"a = max({a_sampler}, {a_empty}): the counter's (a, beta)-accuracy (BV Thm 4.7) and "
            f"the least a with Pr[M0(U0) <= a] >= 1 - beta (Thm 8.3's assumption)",
            "the S_v draws have domain |supp S_v|, which depends on the noisy count v (BV Lemma "
            "8.4 v): only the number of calls is data-independent",
            "releases are polynomials; privacy is measured on them, the counts h_x = M0(p(x)) "
            "are their post-processing",
        ),
    )
