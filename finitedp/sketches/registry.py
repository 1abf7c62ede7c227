"""Private Misra-Gries (Lebeda thesis chapter 3), as every tool sees it.

Paper: Lebeda thesis Alg 12 + Alg 13 (Lemma 3.4, Theorem 3.1), Section 3.5.1.
Neighbours: streams that differ by one added or removed element (Def 3.1); the
file's rows, in order, are the stream, and the stream length is not published.
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
from .audits import PMG_SIZES, PURE_PMG_SIZES, pmg_plan, pure_pmg_plan
from .private import STREAM_NEIGHBOURS
from .release import SketchRelease
from .rows import for_rows, pure_for_rows

__all__ = ["ENTRIES", "READERS"]

_OPTIONS = (
    Option(
        "delta", "the delta of Private Misra-Gries (stated exactly)", required=True, example="1/10"
    ),
    Option("k", "the sketch's number of counters", kind="int", required=True, example="2"),
    Option(
        "clamp_threshold",
        "threshold 2R + 2 (the clamp carries all of delta) instead of Lemma 3.3's",
        kind="flag",
    ),
    Option(
        "standard_sketch",
        "the standard sketch, zero counters dropped (Section 3.5.1)",
        kind="flag",
    ),
    Option(
        "debias",
        "also release the noisy number of decrements (1/10 of eps and delta), so that query "
        "adds half of it to each count: the middle of what the sketch's undercount allows",
        kind="flag",
    ),
)


_PURE_OPTIONS = (
    _OPTIONS[1],
    Option(
        "max_length",
        "a public bound N on the stream length (the noise covers [0, kN])",
        kind="int",
        required=True,
        example="10",
    ),
)


def _pmg(n: int, m: int, p: ReleaseParameters) -> Mechanism:
    return for_rows(m, p.epsilon, p.option, p.beta)  # n is not public: unused


def _pure(n: int, m: int, p: ReleaseParameters) -> Mechanism:
    return pure_for_rows(m, p.epsilon, p.option, p.beta)


ENTRIES: tuple[MechanismEntry, ...] = (
    MechanismEntry(
        name="pmg",
        summary="the heavy hitters of the rows as a stream: Private Misra-Gries, "
        "(eps, delta)-DP; Lebeda thesis Alg 13",
        paper="Lebeda thesis Alg 12 + Alg 13 (Lemma 3.4, Theorem 3.1), Section 3.5.1",
        neighbours=STREAM_NEIGHBOURS,
        build=_pmg,
        release_type="pmg",
        release_options=_OPTIONS,
        audit=AuditTarget(
            "Private Misra-Gries over every stream up to n elements, add/remove neighbours",
            PMG_SIZES,
            pmg_plan,
            options=_OPTIONS,
        ),
        vectors=vectorcases.PMG_VECTORS,
        public_n=False,
    ),
    MechanismEntry(
        name="pmg-pure",
        summary="the heavy hitters of the rows as a stream, pure eps-DP, any universe: "
        "Section 3.6 with BV's KH' and mixture",
        paper="Lebeda thesis Alg 12 + Section 3.6; BV Alg 6.4, Prop 6.5, Alg 3.1",
        neighbours=STREAM_NEIGHBOURS,
        build=_pure,
        release_type="pmg",
        release_options=_PURE_OPTIONS,
        audit=AuditTarget(
            "Section 3.6's pure release over every stream up to n elements",
            PURE_PMG_SIZES,
            pure_pmg_plan,
            options=_PURE_OPTIONS,
        ),
        vectors=vectorcases.PURE_PMG_VECTORS,
        public_n=False,
    ),
)

READERS: tuple[ReleaseReader, ...] = (
    ReleaseReader("pmg", SketchRelease.from_json, lists_bins=False),
)
