"""Histograms: BV Sections 5-7 and Appendix A.

A dataset is ``n`` rows in ``X = [1, |X|]``; neighbours replace one row
(BV Def 2.1), so two counts move by one each.

* :mod:`.dataset`, :mod:`.release`: datasets, and :class:`PartialHistogram`.
* :mod:`.basic` (Alg 5.1), :mod:`.stability` (Alg 5.4): Section 5.
* :mod:`.keepheavy` (KeepHeavy, KH', OrdSample: Algs 6.1, 6.4, 6.7),
  :mod:`.approx` (ApproxConvExp, ApproxBinSample, ApproxOrdSample: Algs 6.14-6.20),
  :mod:`.binomial` (exact binomial and order-statistic samplers),
  :mod:`.sparse` (SparseHistogram, PureSparseHistogram: Algs 6.8, 6.9): Section 6.
* :mod:`.distinct`: DistinctSample (Appendix A).
* :mod:`.bounds`: the accuracy tables (Figs 3-5) and lower bounds (Section 7).
* :mod:`.mechanisms`: the user-level :class:`BoundedGeometricHistogram` and
  :class:`StabilityHistogram`; :class:`PureSparseHistogram` is in :mod:`.sparse`.
* :mod:`.registry`: their entries for the tools (audits in :mod:`.audits`,
  reference vectors in :mod:`.vectorcases`).
"""

from .mechanisms import BoundedGeometricHistogram, HistogramMechanism, StabilityHistogram
from .release import PartialHistogram
from .sparse import PureSparseHistogram

__all__ = [
    "BoundedGeometricHistogram",
    "HistogramMechanism",
    "PartialHistogram",
    "PureSparseHistogram",
    "StabilityHistogram",
]
