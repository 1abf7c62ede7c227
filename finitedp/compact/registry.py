"""CompactHistogram (BV Section 8), as every tool sees it.

Paper: BV Alg 8.2, Thm 8.6, Fig 6.  Neighbours replace one row (BV Def 2.1).
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
from . import vectorcases
from .audits import COMPACT_SIZES, compact_plan
from .histogram import CompactHistogram
from .release import CompactRelease

__all__ = ["ENTRIES", "READERS"]


def _compact(n: int, m: int, p: ReleaseParameters) -> Mechanism:
    return CompactHistogram(
        n, m, p.epsilon, p.beta, counter=p.counter, noise=p.option("noise") or "paper"
    )


_LAYERS = """
layers: the user-level CompactHistogram (BV Thm 8.6) works in a field of at least
  2^18 elements whose filler draws would be enumerated value by value: it is
  always refused. --level L audits the paper layer CompactHistogram_{M,M0}
  (Alg 8.2, Thm 8.3) with d0 = 2^(2*3^L) and M = GeoSample(n, eps) (--counter
  geo): --level 1 (d0 = 64) at n = 1.
"""

ENTRIES: tuple[MechanismEntry, ...] = (
    MechanismEntry(
        name="compact",
        summary="a polynomial, read with query; (eps, 0)-DP; BV Thm 8.6",
        paper="BV Alg 8.2, Thm 8.6, Fig 6",
        neighbours=REPLACE_ONE_ROW,
        build=_compact,
        release_type="compact_histogram",
        release_options=(NOISE,),
        audit=AuditTarget(
            "CompactHistogram's paper layer in a small field (--level)",
            COMPACT_SIZES,
            compact_plan,
            options=(
                Option("level", "paper layer: d0 = 2^(2*3^L), e.g. 1", kind="int", metavar="L"),
            ),
            help_extra=_LAYERS,
        ),
        vectors=vectorcases.COMPACT,
    ),
)

READERS: tuple[ReleaseReader, ...] = (
    ReleaseReader("compact_histogram", CompactRelease.from_json, lists_bins=False),
)
