"""An exact integer alias table: a finite law sampled in O(1) work, the same for every value.

Paper: Walker 1977 (the alias method), Vose 1991 (its linear construction);
here in integers, so the law is exact: ``Pr[i] = w_i / W``.

The table has one column per outcome (``N`` of them), each of capacity ``W``:
column ``c`` keeps ``thr[c]`` units for its own outcome and gives the rest,
``W - thr[c]``, to ``alias[c]``.  A draw is a column ``c`` uniform in
``[0, N)`` and an offset ``r`` uniform in ``[0, W)``; the outcome is ``c`` if
``r < thr[c]``, else ``alias[c]``.  Whatever the outcome, a draw reads one
column and makes one comparison: no search whose path depends on the value
(:mod:`.convolved` relies on this; proofs_notes/convolved_gaussian.md says
what CPython still leaves to chance).

The construction (Vose) moves units from columns above ``W`` to columns below
it, in a fixed order so that another language builds the same table
(SPEC.md, "ConvolvedGaussian"):

* ``scaled[i] = N w_i``; ``small`` and ``large`` are the indices with
  ``scaled[i] < W`` and ``>= W``, each in increasing order;
* while both are non-empty: pop ``s`` from the end of ``small`` and ``l`` from
  the end of ``large``; ``thr[s] = scaled[s]``, ``alias[s] = l``;
  ``scaled[l] -= W - scaled[s]``; append ``l`` to ``small`` if now below
  ``W``, else to ``large``;
* every index left has ``scaled[i] = W`` exactly: ``thr[i] = W``, ``alias[i] = i``.

Each outcome then receives ``thr[i] + sum_{alias[c] = i} (W - thr[c]) = N w_i``
units of the ``N W``: the law is exact.

>>> t = AliasTable([1, 2, 1])
>>> t.thresholds, t.aliases
([3, 4, 3], [1, 1, 1])
>>> sorted(t.outcome(c, r) for c in range(3) for r in range(4))
[0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2]
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ParameterError

__all__ = ["AliasTable"]


class AliasTable:
    """Walker's alias table for integer weights, built exactly (Vose's order).

    Args:
        weights: ``w_0, ..., w_(N-1)``, non-negative integers, not all 0.

    Raises:
        ParameterError: a negative weight, or all weights 0.
    """

    __slots__ = ("aliases", "columns", "thresholds", "total")

    def __init__(self, weights: Sequence[int]) -> None:
        n = len(weights)
        total = sum(weights)
        if n == 0 or total <= 0 or min(weights) < 0:
            raise ParameterError("weights: need non-negative integers with a positive sum")
        scaled = [n * w for w in weights]
        small = [i for i in range(n) if scaled[i] < total]
        large = [i for i in range(n) if scaled[i] >= total]
        thr = [total] * n
        alias = list(range(n))
        while small and large:
            s, g = small.pop(), large.pop()
            thr[s], alias[s] = scaled[s], g
            scaled[g] -= total - scaled[s]
            (small if scaled[g] < total else large).append(g)
        for i in small + large:  # exact integers: what is left is exactly full
            if scaled[i] != total:  # pragma: no cover - Vose's invariant
                raise AssertionError(f"alias column {i} left with {scaled[i]} of {total}")
        self.columns: int = n
        self.total: int = total
        self.thresholds: list[int] = thr
        self.aliases: list[int] = alias

    @property
    def domain(self) -> int:
        """``N W``: one uniform draw in ``[1, N W]`` picks a column and an offset."""
        return self.columns * self.total

    def outcome(self, column: int, offset: int) -> int:
        """The outcome of column ``column`` at offset ``offset`` in ``[0, W)``."""
        return column if offset < self.thresholds[column] else self.aliases[column]

    def received(self) -> list[int]:
        """Units each outcome receives, ``N w_i`` when the table is right (a check)."""
        got = list(self.thresholds)
        for c, a in enumerate(self.aliases):
            if a != c:
                got[a] += self.total - self.thresholds[c]
        return got
