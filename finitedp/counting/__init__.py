"""Counting-query samplers: BV Sections 3-4.

One count ``c`` in ``[0, n]`` becomes a noisy count from one oracle draw
(BV Def 4.1).  A sampler with budget ``eps`` is ``(eps/2, 0)``-DP for one count
(``c`` against ``c + 1``), so that a histogram, where replacing one row moves
two counts, is ``(eps, 0)``-DP.

* :mod:`.base`: :class:`CountingSampler`, the inverse-CDF machinery (Defs 4.1-4.3).
* :mod:`.geometric`: :class:`GeometricMechanism`, the clamped geometric law (Alg 4.5).
* :mod:`.geosample`: :class:`GeoSample` (Alg 4.8, Thm 4.7).
* :mod:`.fastsample`: :class:`FastSample` (Alg 4.11, Thm 4.10).
* :mod:`.twosided`: :class:`ClampedGeometric`, a two-sided geometric clamped to
  ``[-R, R]`` that spends its whole ``eps`` per unit change (ALP's Threshold2,
  Private Misra-Gries).
* :mod:`.mixing`: :class:`Mixture` and condition (1) (Alg 3.1, Lemma 3.2).
* :mod:`.registry`: the samplers by command-line name (``geo``, ``fast``).
"""

from .base import CountingSampler
from .fastsample import FastSample
from .geometric import GeometricMechanism
from .geosample import GeoSample
from .mixing import Mixture, satisfies_condition_1
from .twosided import ClampedGeometric

__all__ = [
    "ClampedGeometric",
    "CountingSampler",
    "FastSample",
    "GeoSample",
    "GeometricMechanism",
    "Mixture",
    "satisfies_condition_1",
]
