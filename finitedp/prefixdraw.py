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

from bisect import bisect_right

__all__ = ["PREFIX_BITS", "PrefixBatch", "PrefixDraw", "PrefixPlan"]

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


class PrefixBatch:
    """``count`` accepted rounds of the system mapping, each known as ``(u - 1) >> shift``.

    Made by ``SystemRandomSource.uniform_many_shifted`` for a caller that compares
    the draws with integers only (``CountingSampler.invert_many``).  For each draw,
    ``shifted[i]`` is ``(u_i - 1) >> shift`` when the prefix decides it (the bracket of
    the module notes, with ``R <= shift - 128``: open with probability about
    ``2^-55``), and ``-1`` otherwise; ``value(i)`` is ``u_i`` itself, from the bytes
    kept.  Rounds are accepted or rejected exactly as ``uniform_many`` does, in order.

    Args:
        plan: the domain's plan (``PrefixPlan(d, W, limit)``).
        shift: ``(u - 1) >> shift`` is what ``shifted`` holds; at least 128.
    """

    __slots__ = ("_blocks", "_cut", "_plan", "_prefix", "_starts", "shift", "shifted")

    def __init__(self, plan: PrefixPlan, shift: int) -> None:
        self._plan, self.shift = plan, shift
        # x = X 2^R + rest with R a multiple of 8 at least 128 bits below the shift.
        cut = 8 * max(0, (shift - 128) // 8)
        self._cut, self._prefix = cut, plan.width - cut // 8
        self.shifted: list[int] = []
        # Per block read: (its bytes, the index of its first draw, its rejected slots).
        self._blocks: list[tuple[bytes, int, list[int]]] = []
        self._starts: list[int] = []

    def __len__(self) -> int:
        return len(self.shifted)

    def add_block(self, block: bytes) -> None:
        """Take the rounds of ``block`` (whole ``W``-byte words) in order."""
        plan, cut, size, width = self._plan, self._cut, self._prefix, self._plan.width
        top, limit_top, rel = plan.d >> cut, plan.limit >> cut, self.shift - cut
        from_bytes = int.from_bytes
        heads = [from_bytes(block[at : at + size], "big") for at in range(0, len(block), width)]
        rejected: list[int] = []
        if max(heads, default=0) >= limit_top:  # some round needs its whole word (rare)
            accepted = []
            for slot, head in enumerate(heads):
                at = slot * width
                if head > limit_top or (
                    head == limit_top and from_bytes(block[at : at + width], "big") >= plan.limit
                ):
                    rejected.append(slot)
                else:
                    accepted.append(head)
            heads = accepted
        self._blocks.append((block, len(self.shifted), rejected))
        self._starts.append(len(self.shifted))
        # Q = floor(X / (D + 1)) is the quotient unless X - Q D >= D - 1; then y = u - 1
        # lies in [(X - Q D - Q) 2^R, (X - Q D + 1) 2^R), whose ends agree after >> rel
        # unless a multiple of 2^shift falls inside (module notes; -1 marks both cases).
        top1, top_m1 = top + 1, top - 1
        self.shifted.extend(
            [
                w
                if (y := h - (q := h // top1) * top) < top_m1 and (y - q) >> rel == (w := y >> rel)
                else -1
                for h in heads
            ]
        )

    def value(self, i: int) -> int:
        """``u_i``, exactly as ``uniform(d)`` maps the same bytes."""
        block, first, rejected = self._blocks[bisect_right(self._starts, i) - 1]
        slot = i - first
        for skipped in rejected:  # the k-th accepted word sits after the rejected ones
            if skipped > slot:
                break
            slot += 1
        width = self._plan.width
        return int.from_bytes(block[slot * width : (slot + 1) * width], "big") % self._plan.d + 1
