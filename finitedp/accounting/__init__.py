"""Exact privacy accounting: guarantees in every notion, composed, and converted.

* :mod:`.ledger`: :class:`Guarantee` (what one step promises) and
  :class:`Accountant` (the steps of one release, composed).
* :mod:`.convert`: certified conversions (BS16 Prop 1.3, CKS20 Prop 12 / Cor 13).

Every figure is an exact rational or a rational bound on the safe side.

>>> from fractions import Fraction
>>> acc = Accountant("replace one row")
>>> for part in range(4):                      # PLAN's default: rho = 1/2 in four parts
...     acc.add(Guarantee.zcdp(Fraction(1, 8), f"part {part}"))
>>> acc.total().rho, float(acc.epsilon_for(Fraction(1, 10**6)))   # display only
(Fraction(1, 2), 5.222428...)
"""

from .convert import cks_delta, sqrt_upper, zcdp_epsilon, zcdp_to_dp_bs
from .ledger import Accountant, Guarantee

__all__ = [
    "Accountant",
    "Guarantee",
    "cks_delta",
    "sqrt_upper",
    "zcdp_epsilon",
    "zcdp_to_dp_bs",
]
