"""The inverse-CDF search of :class:`~.mixedgeometric.MixedGeometric`, in fixed steps.

Paper: BV Alg 4.11 step 4 (a draw searched among integer CDF values, with the
stretches outside the noise inverted by one division); proof note
proofs_notes/mixed_geometric.md, section "Timing".

With ``k = o - (L - t)`` the CDF, less ``(S - L) W``, is ``(k + 1) W`` left of
the noise, ``(k + 1 + K) W`` right of it and ``T(j) = (j + 1) W + K C(j - t)``
in between, ``0 <= j <= 2t``.  ``T`` is found among the block ends (their
words, :mod:`.leading`) and then inside one block.  Every draw makes the same
steps: the two region tests, both levels, two divisions; the checker's symbolic
draw is replaced by ``d`` in the steps its region does not need, so it meets the
comparisons of its own region only.
"""

from __future__ import annotations

from typing import Any

import gmpy2

from .leading import LeadingWords, fixed_lower_bound, steps_for

__all__ = ["BlockSearch"]


class BlockSearch:
    """The search tables of a two-level noise law: ``O(sqrt t)`` integers.

    Args:
        t: the truncation; the noise lies in ``[-t, t]``.
        block: ``m``, the block length.
        rows, rows_sum: ``u(q)`` and ``u(0) + ... + u(q - 1)``.
        cells_sum: ``v(0) + ... + v(r - 1)`` for ``r = 0..m``.
        total, half, k: ``W``, ``w(0) + ... + w(t)``, and ``K``.
        d: the draw's domain.
    """

    __slots__ = (
        "_block",
        "_cells_sum",
        "_d",
        "_ends",
        "_inner",
        "_k",
        "_k_total",
        "_outer",
        "_rows",
        "_rows_before",
        "_side",
        "_sign",
        "_t",
        "_top",
        "_total",
        "_words",
    )

    def __init__(
        self,
        *,
        t: int,
        block: int,
        rows: list[int],
        rows_sum: list[int],
        cells_sum: list[int],
        total: int,
        half: int,
        k: int,
        d: int,
    ) -> None:
        m = block
        ends = {t - q * m - 1 for q in range(t // m + 1) if t - q * m - 1 >= 0}  # z < 0
        ends |= {t + q * m + m - 1 for q in range(t // m + 1) if q * m + m - 1 < t}  # z >= 0
        ends.add(2 * t)
        marks = sorted(ends)
        self._t, self._block, self._d, self._total, self._k = t, m, d, total, k
        self._k_total = k * total
        self._ends = [-1, *marks]  # block i is (ends[i], ends[i + 1]]
        self._outer = steps_for(len(marks))  # 2t, the last end, qualifies
        self._top = (2 * t + 1 + k) * total  # T(2t): past it, the right stretch
        self._inner = steps_for(max(b - a for a, b in zip(self._ends, marks, strict=False)))
        mpz = gmpy2.mpz
        # No product by 0 in a step (the first block's prefix sum is 0, which centre
        # values would meet far more often than tails): the prefix sums times the
        # block total are kept, and gmpy2 products cost about the same at every size.
        self._rows_before = [mpz(v * cells_sum[-1]) for v in rows_sum]
        self._rows = [mpz(v) for v in rows]
        self._cells_sum = [mpz(v) for v in cells_sum]
        # C(z) = (W - half) + up_to(z) for z >= 0, half - up_to(-z - 1) for z < 0.
        self._side = (mpz(total - half), mpz(half))
        self._sign = (mpz(1), mpz(-1))
        self._words = LeadingWords([int(self.step_value(j)) for j in marks], low=-d, high=d)

    @property
    def max_comparisons(self) -> int:
        """The two region tests and the steps of the two levels: every draw makes them."""
        return 2 + self._outer + self._inner

    def step_value(self, j: int) -> gmpy2.mpz:
        """``T(j)`` for ``0 <= j <= 2t``, by the same operations whatever ``j``."""
        z = j - self._t
        negative = z < 0
        y = z ^ -negative  # -z - 1 for z < 0, else z
        q, r = divmod(y, self._block)
        up_to = self._rows_before[q] + self._rows[q] * self._cells_sum[r + 1]
        below = self._side[negative] + self._sign[negative] * up_to
        return (j + 1) * self._total + self._k * below

    def invert(self, s: int, u: Any) -> int:
        """The least ``k`` in ``[0, M)`` whose CDF reaches ``u``, for ``S - L = s``."""
        w, ends = self._total, self._ends
        in_left = u <= s * w
        rest = u - s * w
        in_right = rest > self._top
        # Outside the noise the search is keyed by a number inside its range, u (left) or
        # u - K W (right): the same steps and reads as varied as a noise draw's.  The
        # checker's symbolic draw is replaced by d there (its own region's comparisons
        # only).  Indexing with the tests, not `if`/`or`: no region skips an operation.
        spare = u if type(u) is int else self._d
        outside = (spare - self._k_total, spare)[in_left]
        key = (rest, outside)[in_left | in_right]
        i = self._words.lower_bound(key, 0, len(ends) - 1, self._outer)
        low, high = ends[i] + 1, ends[i + 1]
        if type(key) is int:
            key = gmpy2.mpz(key)  # once, not at each comparison
        step_value = self.step_value

        def below(j: int) -> bool:
            return bool(step_value(j) < key)

        j = fixed_lower_bound(below, low, high - low + 1, self._inner)
        right = ((u if in_right else spare) - self._k_total - 1) // w
        left = ((u if in_left else spare) - 1) // w
        return (s + j, right, left)[in_right + 2 * in_left]
