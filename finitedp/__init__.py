"""finitedp: differential privacy on finite computers, in exact arithmetic.

The reference implementation of Balcer & Vadhan, *Differential Privacy on
Finite Computers* (JPC 2019): every sampler uses integers and rationals only,
draws its randomness from one oracle ``uniform(d)``, and runs in time bounded
from public parameters.  :mod:`finitedp.checker` computes exact output
distributions, so the library checks its own theorems.

>>> from finitedp import FastSample, SeededSource
>>> sampler = FastSample(n=100, epsilon="1/2", gamma="1/1000")
>>> 0 <= sampler.sample(42, rng=SeededSource(b"doc")) <= 100
True
"""

from .compact import CompactHistogram, CompactRelease
from .counting.fastsample import FastSample
from .counting.geometric import GeometricMechanism
from .counting.geosample import GeoSample
from .counting.mixing import Mixture, satisfies_condition_1
from .errors import (
    CertificationError,
    CheckerLimitError,
    FiniteDPError,
    FloatParameterError,
    NotApplicableError,
    OracleError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    TapeError,
)
from .guarantees import Accuracy, Privacy
from .histograms.blanket import BlanketHistogram
from .histograms.mechanisms import BoundedGeometricHistogram, HistogramMechanism, StabilityHistogram
from .histograms.release import PartialHistogram
from .histograms.sparse import PureSparseHistogram
from .oracle import (
    ChaChaSource,
    RandomSource,
    RecordingSource,
    ReplaySource,
    SeededSource,
    SystemRandomSource,
    default_source,
)
from .ratio import GeometricRatio

__version__ = "0.1.0"

__all__ = [
    "Accuracy",
    "BlanketHistogram",
    "BoundedGeometricHistogram",
    "CertificationError",
    "ChaChaSource",
    "CheckerLimitError",
    "CompactHistogram",
    "CompactRelease",
    "FastSample",
    "FiniteDPError",
    "FloatParameterError",
    "GeoSample",
    "GeometricMechanism",
    "GeometricRatio",
    "HistogramMechanism",
    "Mixture",
    "NotApplicableError",
    "OracleError",
    "ParameterError",
    "ParameterTypeError",
    "PartialHistogram",
    "Privacy",
    "PureSparseHistogram",
    "RandomSource",
    "RecordingSource",
    "ReplaySource",
    "ResourceLimitError",
    "SeededSource",
    "StabilityHistogram",
    "SystemRandomSource",
    "TapeError",
    "__version__",
    "default_source",
    "release",
    "satisfies_condition_1",
]


def __getattr__(name: str) -> object:
    """``finitedp.release`` (:mod:`finitedp.api`), imported when first asked: the entry
    point reads files through DuckDB and the command line, which ``import finitedp``
    does not load."""
    if name in ("release", "Release"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'finitedp' has no attribute {name!r}")
