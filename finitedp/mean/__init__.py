"""Mean estimation: PLAN, variance-aware private means (Lebeda thesis chapter 5).

* :mod:`.scaling`: the public arithmetic (budgets, integer scales, norm bounds,
  clipping levels and the exactly clipped sum).
* :mod:`.plan`: :class:`PLAN` (Alg 17 with Listing 5.1) and :class:`MeanRelease`.
"""

from .plan import PLAN, MeanRelease

__all__ = ["PLAN", "MeanRelease"]
