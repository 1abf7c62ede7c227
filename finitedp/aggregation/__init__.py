"""Aggregation: sums of vectors whose coordinates have different sensitivities (thesis ch. 4).

* :mod:`.split`: rational budget splits ``b`` with a certified distance to the
  optimum (Lemmas 4.8, 4.11).
* :mod:`.vectorsum`: :class:`ParallelotopeLaplace` (Alg 16) and
  :class:`EllipticalGaussian` (Alg 15) on public grids.
"""

from .split import BudgetSplit, budget_split

__all__ = ["BudgetSplit", "budget_split"]
