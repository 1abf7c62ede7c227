"""Private Misra-Gries sketches: Lebeda thesis chapter 3 (Lebeda & Tětek, PODS'23).

Neighbours: streams that differ by adding or removing one element (thesis Def 3.1).

* :mod:`.misragries`: Alg 12 (dummy counters, zero counters kept), streaming.
* :mod:`.private`: Alg 13 (PMG) with exact clamped geometric noise and threshold.
* :mod:`.merge`: merging sketches and releasing a merged one (Section 3.7).
* :mod:`.pure`: pure DP through the shifted sketch (Section 3.6) and for merged
  sketches (Section 3.7), dense or over any universe (``Sparse`` classes).
* :mod:`.sparsetop`: KeepHeavy's top ``k`` without touching the universe (BV KH',
  ApproxTopSample, the mixture's fallback).
* :mod:`.release`: the release type.
"""

from .misragries import MGSketch, MisraGries, misra_gries, standard_misra_gries
from .private import PrivateMisraGries
from .pure import PureMergedMG, PureMisraGries, PureSparseMergedMG, PureSparseMisraGries
from .release import SketchRelease

__all__ = [
    "MGSketch",
    "MisraGries",
    "PrivateMisraGries",
    "PureMergedMG",
    "PureMisraGries",
    "PureSparseMergedMG",
    "PureSparseMisraGries",
    "SketchRelease",
    "misra_gries",
    "standard_misra_gries",
]
