"""The exact checker: enumerate a mechanism's randomness and measure its output distributions.

Paper: BV Section 2 (differential privacy) and Section 2.4 (the oracle).
"""

from .measures import (
    INFINITY,
    Distribution,
    Infinity,
    Ratio,
    hockey_stick,
    is_distribution,
    max_privacy_ratio,
    max_ratio,
    privacy_ratio,
    renyi_moment,
    statistical_distance,
)
from .symbolic import (
    DEFAULT_LIMIT,
    DrawRecord,
    EnumeratingSource,
    ExplorationError,
    Path,
    SymbolicDraw,
    exact_distribution,
    explore,
    iter_paths,
)

__all__ = [
    "DEFAULT_LIMIT",
    "INFINITY",
    "Distribution",
    "DrawRecord",
    "EnumeratingSource",
    "ExplorationError",
    "Infinity",
    "Path",
    "Ratio",
    "SymbolicDraw",
    "exact_distribution",
    "explore",
    "hockey_stick",
    "is_distribution",
    "iter_paths",
    "max_privacy_ratio",
    "max_ratio",
    "privacy_ratio",
    "renyi_moment",
    "statistical_distance",
]
