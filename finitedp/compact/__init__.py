"""CompactHistogram: BV Section 8.

A release is a polynomial over ``GF(2^(2*3^l))`` whose value at each bin
decodes to that bin's noisy count; neighbours replace one row (BV Def 2.1).

* :mod:`.gf2`: the fields ``GF(2^(2*3^l))``.
* :mod:`.kpoly`, :mod:`.subproduct`, :mod:`.polynomial`: packed polynomials over a
  subfield, the subproduct tree, interpolation and evaluation.
* :mod:`.emptybin`: the empty-bin sampler ``M0`` (Alg 8.5, Lemma 8.4).
* :mod:`.family`: the map from the universe into the field and the sampling of
  the polynomial (Lemma 8.1).
* :mod:`.histogram`: ``compact_histogram`` (Alg 8.2, Thm 8.3) and the user-level
  :class:`CompactHistogram` (Thm 8.6); :mod:`.release`: :class:`CompactRelease`.
* :mod:`.parallel`: the process pool the release and the counts share.
* :mod:`.registry`: the entry for the tools (audit in :mod:`.audits`, reference
  vectors in :mod:`.vectorcases`).
"""

from .histogram import CompactHistogram, compact_histogram
from .release import CompactRelease

__all__ = ["CompactHistogram", "CompactRelease", "compact_histogram"]
