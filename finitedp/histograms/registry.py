"""The user-level histogram mechanisms of BV Sections 5-6, as every tool sees them.

Paper: BV Alg 5.1 / Thm 5.3 (bounded-geometric), Alg 5.4 / Thm 5.6 (stability),
Alg 6.9 / Thm 6.11 (pure-sparse), Alg 5.1 / Thm 5.2 thresholded with the
blanket (blanket, proofs_notes/blanket_histogram.md).  Neighbours replace one row (BV Def 2.1).
"""

from __future__ import annotations

from ..entries import (
    NOISE,
    REPLACE_ONE_ROW,
    AuditTarget,
    Mechanism,
    MechanismEntry,
    Option,
    ReleaseParameters,
    ReleaseReader,
)
from . import blanketvectors, vectorcases
from .audits import (
    BLANKET_SIZES,
    BOUNDED_GEOMETRIC_SIZES,
    PURE_SPARSE_SIZES,
    STABILITY_SIZES,
    blanket_plan,
    bounded_geometric_plan,
    pure_sparse_plan,
    stability_plan,
)
from .blanket import BlanketHistogram
from .mechanisms import BoundedGeometricHistogram, StabilityHistogram
from .release import PartialHistogram
from .sparse import PureSparseHistogram

__all__ = ["ENTRIES", "READERS"]


def _noise(p: ReleaseParameters) -> str:
    return p.option("noise") or "paper"


def _bounded_geometric(n: int, m: int, p: ReleaseParameters) -> Mechanism:
    return BoundedGeometricHistogram(n, m, p.epsilon, p.beta, counter=p.counter, noise=_noise(p))


def _stability(n: int, m: int, p: ReleaseParameters) -> Mechanism:
    return StabilityHistogram(
        n, m, p.epsilon, p.option("delta"), p.beta, counter=p.counter, noise=_noise(p)
    )


def _pure_sparse(n: int, m: int, p: ReleaseParameters) -> Mechanism:
    return PureSparseHistogram(n, m, p.epsilon, p.beta, counter=p.counter, noise=_noise(p))


def _blanket(n: int, m: int, p: ReleaseParameters) -> Mechanism:
    noise = p.option("noise") or "tight"
    absent = p.option("absent")
    return BlanketHistogram(n, m, p.epsilon, p.beta, counter=p.counter, noise=noise, absent=absent)


#: ``--absent``: blanket's budget for listing keys absent from the data.
ABSENT = Option(
    "absent",
    "blanket: list keys absent from the data at most P times per release on average "
    "(default beta/2; e.g. 2^-40 lists none in practice, at a higher threshold)",
    metavar="P",
)


_STABILITY_LAYERS = """
layers: with --delta D, the user-level StabilityHistogram (BV Thm 5.6); it needs
  n >= b = 1 + ceil(9/(2 eps) ln(2/delta)) (geo; 4/delta for fast), i.e. n >= 8 at
  eps = 1, delta = 1/2. With --threshold B instead, the paper layer
  StabilityHistogram_{M,B} (Alg 5.4, Thm 5.5) with M = GeoSample(n, eps) or
  FastSample(n, eps, --gamma), claiming delta = 2 Pr[M(1, U) > B].
"""

_SPLIT_MIXTURE = """
--split-mixture: explore SparseHistogram and the data-independent fallback
  separately and combine them as BV Alg 3.1's law (1 - beta1) S + beta1 F,
  instead of exploring their product: reaches n = 2.
"""

_DELTA = Option(
    "delta", "(eps, delta)-DP: delta = 1/k, e.g. 1/1000000", required=True, example="1/10"
)

#: The entries, in the order ``--help`` lists them.
ENTRIES: tuple[MechanismEntry, ...] = (
    MechanismEntry(
        name="bounded-geometric",
        summary="every bin, noisy; (eps, 0)-DP; BV Thm 5.3; |X| <= 10^7",
        paper="BV Alg 5.1, Thm 5.3, Fig 3",
        neighbours=REPLACE_ONE_ROW,
        build=_bounded_geometric,
        release_type="partial_histogram",
        dense=True,
        release_options=(NOISE,),
        audit=AuditTarget(
            "BoundedGeometricHistogram over every dataset of a tiny universe",
            BOUNDED_GEOMETRIC_SIZES,
            bounded_geometric_plan,
            options=(NOISE,),
        ),
        vectors=vectorcases.BOUNDED_GEOMETRIC,
    ),
    MechanismEntry(
        name="stability",
        summary="bins above a threshold; (eps, delta)-DP; BV Thm 5.6",
        paper="BV Alg 5.4, Thm 5.6, Fig 4",
        neighbours=REPLACE_ONE_ROW,
        build=_stability,
        release_type="partial_histogram",
        release_options=(_DELTA, NOISE),
        audit=AuditTarget(
            "StabilityHistogram (user level, or the paper layer with --threshold)",
            STABILITY_SIZES,
            stability_plan,
            options=(
                NOISE,
                Option("delta", "user level: delta = 1/k, e.g. 1/2"),
                Option(
                    "threshold", "paper layer: the threshold b in [0, n]", kind="int", metavar="B"
                ),
                Option("gamma", "paper layer with --counter fast: FastSample's gamma, e.g. 1/20"),
            ),
            help_extra=_STABILITY_LAYERS,
        ),
        vectors=vectorcases.STABILITY,
    ),
    MechanismEntry(
        name="pure-sparse",
        summary="at most n bins; (eps, 0)-DP; BV Thm 6.11; |X| >= 2n + 1",
        paper="BV Alg 6.9, Thm 6.11, Fig 5",
        neighbours=REPLACE_ONE_ROW,
        build=_pure_sparse,
        release_type="partial_histogram",
        release_options=(NOISE,),
        audit=AuditTarget(
            "PureSparseHistogram over every dataset of a tiny universe",
            PURE_SPARSE_SIZES,
            pure_sparse_plan,
            options=(
                NOISE,
                Option("split_mixture", "explore the two branches separately", kind="flag"),
            ),
            help_extra=_SPLIT_MIXTURE,
        ),
        vectors=vectorcases.PURE_SPARSE,
    ),
    MechanismEntry(
        name="blanket",
        summary="bins above a threshold, empty ones included; (eps, 0)-DP; linear in n",
        paper="BV Alg 5.1, Thm 5.2, thresholded; the blanket: proofs_notes/blanket_histogram.md",
        neighbours=REPLACE_ONE_ROW,
        build=_blanket,
        release_type="partial_histogram",
        release_options=(NOISE, ABSENT),
        audit=AuditTarget(
            "BlanketHistogram over every dataset of a tiny universe",
            BLANKET_SIZES,
            blanket_plan,
            options=(NOISE,),
        ),
        vectors=blanketvectors.BLANKET,
    ),
)

#: How releases of these mechanisms are read back.
READERS: tuple[ReleaseReader, ...] = (
    ReleaseReader("partial_histogram", PartialHistogram.from_json, lists_bins=True),
)
