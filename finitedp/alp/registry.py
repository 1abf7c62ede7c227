"""ALP (Lebeda thesis chapter 2), as every tool sees it.

Paper: Lebeda thesis Alg 4/5 (Lemma 2.15) and Alg 10 with Alg 3 (Lemma 2.30).
Neighbours: vectors at l1 distance at most 2, i.e. one row of the file replaced
(two counts move by one; ``n`` public), with ``eps/2`` per unit of l1.
"""

from __future__ import annotations

from ..entries import (
    AuditTarget,
    Mechanism,
    MechanismEntry,
    Option,
    ReleaseParameters,
    ReleaseReader,
)
from . import vectorcases
from .audits import ALP_SIZES, alp_plan
from .combined import ThresholdALPRelease
from .mechanism import l1_neighbours
from .release import ALPRelease
from .rows import for_rows

__all__ = ["ENTRIES", "READERS"]


def _alp(n: int, m: int, p: ReleaseParameters) -> Mechanism:
    values = None if p.value_bound is None else (p.value_bound, p.value_step)
    return for_rows(n, m, p.epsilon, p.option, p.beta, values)


_OPTIONS = (
    Option("psi", "the value bound psi (default n): m = ceil(psi eps / (2 alpha)) columns"),
    Option("alpha", "Alg 2's scale alpha (default 3, the thesis' choice)"),
    Option("k", "the public bound on distinct values (default min(n, |X|))", kind="int"),
    Option("buckets", "s, a power of two > 2k (default: the least >= 10k)", kind="int"),
    Option(
        "delta",
        "Threshold ALP (Algs 7-9): (eps, delta)-DP, large counts released by Threshold2",
    ),
    Option(
        "histogram_projection",
        "Alg 10 (flip ratio near e^(eps/2)) instead of Alg 4: better from eps ~ 1.4 (Fig 2.5)",
        kind="flag",
    ),
)

_LAYERS = """
hash functions: the release draws multiply-add-shift functions from uniform(2^64),
  which cannot be enumerated; the audit draws them uniformly from every table
  [d] -> [s] instead (privacy holds for each fixed table), so it needs a tiny
  --buckets and universe: --buckets 4 with |X| = 2 and n = 1.
"""

ENTRIES: tuple[MechanismEntry, ...] = (
    MechanismEntry(
        name="alp",
        summary="a noisy bit matrix, read with query; (eps, 0)-DP (--delta: Threshold ALP); "
        "Lebeda thesis Alg 4/10",
        paper="Lebeda thesis Alg 4/5 (Lemma 2.15), Alg 10 (Lemma 2.30), Algs 7-9 (Lemma 2.26)",
        neighbours=l1_neighbours(2),
        build=_alp,
        release_type="alp",
        release_options=_OPTIONS,
        audit=AuditTarget(
            "ALP over every dataset and every hash table of a tiny universe",
            ALP_SIZES,
            alp_plan,
            options=_OPTIONS,
            help_extra=_LAYERS,
        ),
        vectors=vectorcases.ALP_VECTORS,
        weighted=True,
    ),
)

READERS: tuple[ReleaseReader, ...] = (
    ReleaseReader("alp", ALPRelease.from_json, lists_bins=False),
    ReleaseReader("threshold_alp", ThresholdALPRelease.from_json, lists_bins=False),
)
