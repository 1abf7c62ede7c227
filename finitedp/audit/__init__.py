"""Audits: exact reports of what a mechanism does against what its theorem claims.

Paper: BV Thm 4.7 (GeoSample), Thm 4.10 (FastSample), Thm 5.2-5.6 (BasicHistogram,
StabilityHistogram), Thm 6.10-6.11 (PureSparseHistogram), Thm 8.3 / 8.6
(CompactHistogram).

Three kinds of audit:

* :func:`audit_counting_sampler` explores a counting-query sampler exactly for
  every count (``finitedp audit geo|fast``).
* :func:`audit_histogram_mechanism` (``finitedp audit bounded-geometric|stability|
  pure-sparse|compact``) enumerates every dataset of ``n`` rows over a tiny
  universe, computes each exact release distribution with :mod:`finitedp.checker`,
  and decides the theorem's privacy and accuracy claims and the oracle-call
  shapes; :func:`audit_histogram` does the same for any ``fn(data, rng)``.
* :func:`compare` draws from a *foreign* sampler that claims to realise one of
  finitedp's exact distributions and reports the estimated total-variation
  distance with a rigorous confidence bound and a chi-square goodness-of-fit test.

Each claim states the exact value found and whether the claim holds, decided
without floating point.  Decimals appear only in the final "readable" section,
converted from the exact values for display, and in :func:`compare`'s p-value,
which is a statistical report and never a privacy decision.

Layout: :mod:`.counting` (counting samplers), :mod:`.histograms` (histogram
mechanisms, through the registry), :mod:`.engine` (the exact measurements),
:mod:`.report` (claims and their rendering), :mod:`.compare` (foreign samplers).
"""

from ..checker.plan import AccuracyClaim
from .compare import ComparisonReport, chi_square_survival, compare, load_callable
from .counting import (
    DEFAULT_MAX_COUNTING_PATHS,
    CountingReport,
    audit_counting_sampler,
    counting_paths,
)
from .histograms import (
    DEFAULT_MAX_PATHS,
    HISTOGRAM_TARGETS,
    KNOWN_SIZES,
    audit_histogram,
    audit_histogram_mechanism,
)
from .report import (
    AccuracyFinding,
    AuditTooLargeError,
    Claim,
    HistogramReport,
    ProgressSink,
)

__all__ = [
    "DEFAULT_MAX_COUNTING_PATHS",
    "DEFAULT_MAX_PATHS",
    "HISTOGRAM_TARGETS",
    "KNOWN_SIZES",
    "AccuracyClaim",
    "AccuracyFinding",
    "AuditTooLargeError",
    "Claim",
    "ComparisonReport",
    "CountingReport",
    "HistogramReport",
    "ProgressSink",
    "audit_counting_sampler",
    "audit_histogram",
    "audit_histogram_mechanism",
    "chi_square_survival",
    "compare",
    "counting_paths",
    "load_callable",
]
