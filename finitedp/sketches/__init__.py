"""Private Misra-Gries sketches: Lebeda thesis chapter 3 (Lebeda & Tětek, PODS'23).

Neighbours: streams that differ by adding or removing one element (thesis Def 3.1).

* :mod:`.misragries`: Alg 12 (dummy counters, zero counters kept), streaming.
* :mod:`.private`: Alg 13 (PMG) with exact clamped geometric noise and threshold.
* :mod:`.merge`: merging sketches and releasing a merged one (Section 3.7).
* :mod:`.pure`: pure DP through the shifted sketch (Section 3.6), dense.
* :mod:`.release`: the release type.
"""

from .misragries import MGSketch, MisraGries, misra_gries, standard_misra_gries
from .private import PrivateMisraGries
from .release import SketchRelease

__all__ = [
    "MGSketch",
    "MisraGries",
    "PrivateMisraGries",
    "SketchRelease",
    "misra_gries",
    "standard_misra_gries",
]
