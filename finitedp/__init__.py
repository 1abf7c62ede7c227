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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names as type checkers and editors see them (imported lazily)
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
    from .histograms.mechanisms import (
        BoundedGeometricHistogram,
        HistogramMechanism,
        StabilityHistogram,
    )
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

#: Each public name -> the module that defines it, imported when the name is first
#: asked for: ``import finitedp`` (and every submodule's import, which runs this
#: file first) loads no family, so ``finitedp query`` and ``--version`` start fast.
_LAZY = {
    "Accuracy": ".guarantees",
    "BlanketHistogram": ".histograms.blanket",
    "BoundedGeometricHistogram": ".histograms.mechanisms",
    "CertificationError": ".errors",
    "ChaChaSource": ".oracle",
    "CheckerLimitError": ".errors",
    "CompactHistogram": ".compact",
    "CompactRelease": ".compact",
    "FastSample": ".counting.fastsample",
    "FiniteDPError": ".errors",
    "FloatParameterError": ".errors",
    "GeoSample": ".counting.geosample",
    "GeometricMechanism": ".counting.geometric",
    "GeometricRatio": ".ratio",
    "HistogramMechanism": ".histograms.mechanisms",
    "Mixture": ".counting.mixing",
    "NotApplicableError": ".errors",
    "OracleError": ".errors",
    "ParameterError": ".errors",
    "ParameterTypeError": ".errors",
    "PartialHistogram": ".histograms.release",
    "Privacy": ".guarantees",
    "PureSparseHistogram": ".histograms.sparse",
    "RandomSource": ".oracle",
    "RecordingSource": ".oracle",
    "ReplaySource": ".oracle",
    "ResourceLimitError": ".errors",
    "SeededSource": ".oracle",
    "StabilityHistogram": ".histograms.mechanisms",
    "SystemRandomSource": ".oracle",
    "TapeError": ".errors",
    "default_source": ".oracle",
    "satisfies_condition_1": ".counting.mixing",
}

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
    """A public name, imported when first asked (:data:`_LAZY`); ``finitedp.release``
    (:mod:`finitedp.api`) likewise: the entry point reads files through DuckDB and the
    command line."""
    if name in ("release", "Release"):
        from . import api

        return getattr(api, name)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'finitedp' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
