"""Exact audit of Private Misra-Gries: its plan for ``finitedp audit pmg``.

Paper: Lebeda thesis Lemma 3.4 (privacy), Lemma 3.5 (accuracy against the
sketch) and Theorem 3.1 (against the stream, with Fact 3.1's ``n/(k+1)``).

The audited mechanism is the one ``finitedp release --mechanism pmg`` builds.
Its neighbours add or remove one element (thesis Def 3.1), so the audit
explores every stream of 0 to ``n`` elements in order (Misra-Gries depends on
the order) and decides the privacy claim over every pair where one stream is
the other with one element removed.  The accuracy claim is Theorem 3.1 at the
longest stream (``floor(n/(k+1))``), which bounds every shorter one.
"""

from __future__ import annotations

from fractions import Fraction

from ..checker.plan import AuditPlan, AuditRequest, Dataset, claims_of, explorer
from ..oracle import RandomSource
from .private import pmg_release
from .rows import for_rows, pure_for_rows

__all__ = ["PMG_SIZES", "PURE_PMG_SIZES", "pmg_plan", "pure_pmg_plan"]

#: Instances measured to work (one core).
PMG_SIZES = (
    "n = 5, |X| = 2, --k 1, --delta 1/2 (63 streams, about 1 s); n = 4, |X| = 3, --k 2 "
    "(121 streams)"
)


#: Instances measured to work (one core).
PURE_PMG_SIZES = "n = 3, |X| = 3, --k 1, --max-length 3 (40 streams, 100k paths, about 35 s)"


def pure_pmg_plan(request: AuditRequest) -> AuditPlan:
    """The sparse pure release over every stream of at most ``n`` elements."""
    mech = pure_for_rows(request.universe_size, request.epsilon, request.option, request.beta)
    accuracy = mech.accuracy(request.beta, n=request.n)
    scale = mech.k + 1

    def release(data: Dataset, rng: RandomSource) -> tuple[tuple[int, int], ...]:
        return mech.release(data, rng).heavy

    def counts_of(output: tuple[tuple[int, int], ...]) -> tuple[Fraction, ...]:
        found = dict(output)
        return tuple(Fraction(found.get(x, 0), scale) for x in range(1, mech.universe_size + 1))

    return AuditPlan(
        title=repr(mech),
        description=(
            "user-level mechanism of finitedp release --mechanism pmg-pure: the rows in "
            "order are the stream",
            "datasets: every stream of 0 to n elements; neighbours add or remove one element "
            "(Lebeda thesis Def 3.1)",
            f"noise: GeoSample on [0, {mech.bound}] at ratio {mech.sampler.noise.exp_epsilon} "
            f"per 1/(k+1); fallback probability {mech.beta}; order statistics within "
            f"{mech.delta} of the dense release",
        ),
        explore=explorer(release, request.explore_limit),
        privacy=mech.privacy,
        privacy_source="Lebeda thesis Section 3.6; BV Prop 6.5, Lemma 3.2 (proofs_notes/pmg.md)",
        accuracy=claims_of(accuracy),
        exact_calls=mech.max_oracle_calls,
        fixed_domains=False,
        counts=counts_of,
        hint="use |X| = 3, --k 1 and --max-length 3 with n <= 3",
        streams=True,
        path_microseconds=500,  # 350 measured: the sparse sample's sorted list
    )


def pmg_plan(request: AuditRequest) -> AuditPlan:
    """PMG over every stream of at most ``n`` elements of a tiny universe."""
    mech = for_rows(request.universe_size, request.epsilon, request.option, request.beta)
    accuracy = mech.accuracy(request.beta, n=request.n)

    def release(data: Dataset, rng: RandomSource) -> tuple[tuple[int, int], ...]:
        return pmg_release(mech.sketch(data), mech.noise, mech.tau, rng)

    def counts_of(output: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
        found = dict(output)
        return tuple(found.get(x, 0) for x in range(1, request.universe_size + 1))

    return AuditPlan(
        title=repr(mech),
        description=(
            "user-level mechanism of finitedp release --mechanism pmg: the rows in order "
            "are the stream",
            "datasets: every stream of 0 to n elements; neighbours add or remove one element "
            "(Lebeda thesis Def 3.1)",
            f"noise: two-sided geometric of ratio {mech.alpha} clamped to "
            f"[-{mech.noise.r}, {mech.noise.r}]; threshold tau = {mech.tau} ({mech.threshold})",
        ),
        explore=explorer(release, request.explore_limit),
        privacy=mech.privacy,
        privacy_source="Lebeda thesis Lemma 3.4 (exact geometric tails)",
        accuracy=claims_of(accuracy),
        exact_calls=mech.k + 1,
        fixed_domains=True,
        counts=counts_of,
        hint="use |X| = 2 and --k 1 with n <= 5",
        streams=True,
    )
