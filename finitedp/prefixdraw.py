"""Draws of the system sources whose value is computed only if a comparison needs it.

Paper: BV Section 2.4 (the oracle ``uniform(d)``); ``SPEC.md``, "System source" (the
mapping from bytes to ``[1, d]``, which this module does not change).

ApproxOrdSample (BV Alg 6.20) draws ``u`` uniform in ``[1, s]`` with ``s`` of about
``n log2(3|X|)`` bits (656 kbit at ``n = 10^4``, 6.6 Mbit at ``n = 10^5``) and only
compares it with integers.  The system mapping reads ``W`` bytes as ``x``, accepts
``x < limit`` and returns ``x mod d + 1``: converting ``x`` and reducing it costs
about 2.5 ms at ``n = 10^5``, ``n`` times per release.  A :class:`PrefixDraw` keeps
the very bytes the source read and brackets ``u`` from their first bytes:

* with ``x = X 2^R + rest`` (``0 <= rest < 2^R``) and ``d = D 2^R + rest'``, the
  quotient ``Q = floor(x / d)`` lies in ``[floor(X / (D + 1)), floor((X + 1) / D)]``;
* when those agree, ``y = x - Q d = u - 1`` lies in
  ``[max(0, X - Q (D + 1)) 2^R, (X + 1 - Q D) 2^R)``.

``Q < 2^73`` (``x < 2^(k + 72)``, ``d > 2^(k - 1)``), so the bracket is about
``2^(R + 73)`` wide, against ``d >= 2^(R + PREFIX_BITS - 1)``: a fixed threshold falls
inside it with probability about ``2^(74 - PREFIX_BITS)``.  Only then, or when
``Q`` is not determined, is ``x`` converted and reduced exactly.  The acceptance
test ``x < limit`` is decided the same way, at once (a rejected round must read the
next ``W`` bytes before any later draw does).  Whatever is decided from the prefix
is what the full value decides, so every output is the one ``uniform(d)`` gives
from the same bytes.
"""

from __future__ import annotations

__all__ = ["PREFIX_BITS", "PrefixDraw", "PrefixPlan"]

#: Bits of ``d`` kept in a prefix: below ``2^(this + 64)`` nothing is gained, the
#: draw is converted at once.
PREFIX_BITS = 512


class PrefixPlan:
    """What a domain ``d`` needs for prefix comparisons: ``R``, ``D = d >> R``, ``limit >> R``.

    Args:
        d: the domain, ``d >= 1``.
        width: ``W``, the bytes read per round.
        limit: the largest multiple of ``d`` not above ``2^(8W)``.
    """

    __slots__ = ("d", "limit", "limit_top", "prefix_bytes", "shift", "top", "width")

    def __init__(self, d: int, width: int, limit: int) -> None:
        self.d, self.width, self.limit = d, width, limit
        # R a multiple of 8, so that the prefix is whole bytes; 0 when d is short.
        self.shift = 8 * max(0, (d.bit_length() - PREFIX_BITS) // 8)
        self.prefix_bytes = width - self.shift // 8
        self.top = d >> self.shift
        self.limit_top = limit >> self.shift

    @property
    def lazy(self) -> bool:
        """Whether prefixes pay: only for domains longer than the prefix."""
        return self.shift > 0

    def accepts(self, data: memoryview) -> bool:
        """``x < limit`` for the ``W`` bytes ``data``, from the prefix when it decides."""
        head = int.from_bytes(data[: self.prefix_bytes], "big")
        if head != self.limit_top:
            return head < self.limit_top
        return int.from_bytes(data, "big") < self.limit


class PrefixDraw:
    """An accepted round of the system mapping: ``u = x mod d + 1``, bracketed from a prefix.

    ``shifted_bounds(r)`` gives ``lo <= (u - 1) >> r <= hi``; ``value()`` gives ``u``
    (computed once, on first need).  Made by ``SystemRandomSource.uniform_compared``.
    """

    __slots__ = ("_bracket", "_data", "_plan", "_value")

    def __init__(self, data: memoryview, plan: PrefixPlan) -> None:
        self._data, self._plan = data, plan
        self._value: int | None = None
        # y = u - 1 in [lo 2^R, hi 2^R), or None: Q is not determined by the prefix.
        head = int.from_bytes(data[: plan.prefix_bytes], "big")
        quotient = head // (plan.top + 1)
        self._bracket: tuple[int, int] | None = None
        if quotient == (head + 1) // plan.top:
            low = max(0, head - quotient * (plan.top + 1))
            self._bracket = (low, head + 1 - quotient * plan.top)

    def value(self) -> int:
        """``u``, exactly as ``uniform(d)`` maps the same bytes."""
        if self._value is None:
            self._value = int.from_bytes(self._data, "big") % self._plan.d + 1
        return self._value

    def shifted_bounds(self, r: int) -> tuple[int, int]:
        """Integers ``lo <= (u - 1) >> r <= hi`` (equal once the value is known)."""
        bracket = self._bracket
        if self._value is not None or bracket is None:
            w = (self.value() - 1) >> r
            return w, w
        low, high = bracket  # y in [low 2^R, high 2^R - 1]
        shift = self._plan.shift
        if r >= shift:
            return low >> (r - shift), (high - 1) >> (r - shift)
        return low << (shift - r), (high << (shift - r)) - 1

    def __repr__(self) -> str:
        return f"PrefixDraw(d={self._plan.d.bit_length()} bits)"
