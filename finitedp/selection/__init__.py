"""Selection: the exponential mechanism with a rational base, and private quantiles.

* :mod:`.exponential`: :class:`ExponentialMechanism` (McSherry-Talwar; Ilvento 2020).
* :mod:`.quantile`: :class:`ExponentialQuantile` (Smith 2011) and
  :class:`BinarySearchQuantile` (Huang-Liang-Yi 2021), on a public grid.
"""

from .exponential import ExponentialMechanism
from .grid import Grid
from .quantile import BinarySearchQuantile, ExponentialQuantile

__all__ = ["BinarySearchQuantile", "ExponentialMechanism", "ExponentialQuantile", "Grid"]
