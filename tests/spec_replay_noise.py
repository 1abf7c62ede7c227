"""SPEC.md section 2d replayed from the text alone (used by tests/test_vectors.py).

Nothing here imports the mechanisms: the weights, the candidates and the
searches are written again from the spec, and the fixed-precision weights'
floors come from Python's ``decimal`` module at 80 digits (each floor asserted
to be far from an integer boundary), not from ``finitedp.exactmath``.
"""

from __future__ import annotations

import decimal
import functools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Protocol


class Taking(Protocol):
    def take(self, d: int) -> int: ...


def _signed(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _least(low: int, high: int, holds: Callable[[int], bool]) -> int:
    """The least ``z`` in ``[low, high]`` with ``holds(z)`` (``holds(high)`` is true)."""
    while low < high:
        mid = (low + high) // 2
        if holds(mid):
            high = mid
        else:
            low = mid + 1
    return low


@functools.lru_cache(maxsize=8)
def _fixed_weights(sigma: Fraction, radius: int, precision: int) -> list[int]:
    context = decimal.Context(prec=80)
    two_sigma2 = decimal.Decimal(2 * sigma.numerator**2) / decimal.Decimal(sigma.denominator**2)
    scale = decimal.Decimal(2) ** precision
    out = [1 << precision]  # exp(0) = 1 exactly
    for z in range(1, radius + 1):
        x = context.multiply(
            scale, context.exp(context.divide(-decimal.Decimal(z * z), two_sigma2))
        )
        floor = int(x.to_integral_value(rounding=decimal.ROUND_FLOOR))
        margin = decimal.Decimal(10) ** -40  # exp(-z^2/(2 s^2)) is irrational for z != 0
        assert x - floor > margin and floor + 1 - x > margin
        out.append(floor)
    return out


def gaussian(p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> list[str]:
    radius = int(p["radius"])
    if "base" in p:
        base = Fraction(p["base"])
        a, b = base.numerator, base.denominator
        w = [a ** (z * z) * b ** (radius * radius - z * z) for z in range(radius + 1)]
    else:
        w = _fixed_weights(Fraction(p["sigma"]), radius, int(p["precision"]))
    total = 2 * sum(w) - w[0]
    assert (str(total), str(w[radius])) == (derived["W"], derived["w_R"])
    cdf, running = {}, 0
    for z in range(-radius, radius + 1):
        running += w[abs(z)]
        cdf[z] = running
    out = []
    for _ in range(int(p["count"])):
        u = tape.take(total)
        out.append(str(_least(-radius, radius, lambda z, u=u: cdf[z] >= u)))
    return out


def _exponential(
    base: Fraction, utilities: list[int], counts: list[int], tape: Taking
) -> tuple[int, int, int]:
    a, b = base.denominator, base.numerator  # beta = b/a
    lo, hi = min(utilities), max(utilities)
    w = [c * b ** (u - lo) * a ** (hi - u) for u, c in zip(utilities, counts, strict=True)]
    total = sum(w)
    u = tape.take(total)
    prefix = [sum(w[: i + 1]) for i in range(len(w))]
    i = _least(0, len(w) - 1, lambda k: prefix[k] >= u)
    start, per = prefix[i] - w[i], w[i] // counts[i]
    j = _least(0, counts[i] - 1, lambda k: start + (k + 1) * per >= u)
    return i, j, total


def exponential(p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> list[str]:
    utilities = [int(u) for u in p["utilities"]]
    counts = [int(c) for c in p["counts"]]
    i, j, total = _exponential(Fraction(p["base"]), utilities, counts, tape)
    assert str(total) == derived["W"]
    return [str(i), str(j)]


def _grid(p: dict[str, Any]) -> tuple[Fraction, Fraction, int, list[int], int]:
    lower, step = Fraction(p["lower"]), Fraction(p["step"])
    size = int((Fraction(p["upper"]) - lower) / step) + 1
    indices = sorted(int((Fraction(v) - lower) / step) for v in p["values"])
    n = len(indices)
    q = Fraction(p["quantile"]) * n
    return lower, step, size, indices, q.numerator // q.denominator


def clip_of(beta: Fraction, size: int) -> int:
    """``K``: the least integer with ``beta^K >= N 2^64`` (a float guess, then exact steps)."""
    target = size * 2**64
    k = max(0, int(math.log(target) / math.log(beta)) - 2)
    while k > 0 and beta ** (k - 1) >= target:
        k -= 1
    while beta**k < target:
        k += 1
    return k


def candidates(s: list[int], m: int, k: int, size: int) -> list[tuple[int, int, int]]:
    """The candidates ``(first, count, e)`` of sorted indices ``s`` (section 2d)."""
    n = len(s)

    def err(below: int, upto: int) -> int:
        return min(k, max(0, below - m, m - upto))

    cands: list[tuple[int, int, int]] = []
    first, last = max(0, m - k), min(n, m + k)
    pos = 0
    if m - k >= 0:
        pos = s[first] if first < n else size
        if pos > 0:
            cands.append((0, pos, k))
    i = first
    while pos < size:
        if i >= last:
            cands.append((pos, size - pos, err(i, i)))
            break
        v = s[i]
        j = sum(1 for x in s if x <= v)
        if pos < v:
            cands.append((pos, v - pos, err(i, i)))
        cands.append((v, 1, err(i, j)))
        pos, i = v + 1, j
    return cands


def exponential_quantile(p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> str:
    lower, step, size, s, m = _grid(p)
    beta = Fraction(p["base"])
    k = clip_of(beta, size)
    assert (str(m), str(k)) == (derived["rank"], derived["K"])
    cands = candidates(s, m, k, size)
    assert str(len(cands)) == derived["candidates"]
    c, j, _ = _exponential(beta, [-e for _, _, e in cands], [c[1] for c in cands], tape)
    return _signed(lower + (cands[c][0] + j) * step)


def binary_search_quantile(p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> str:
    lower, step, size, s, m = _grid(p)
    a, b = int(derived["a"]), int(derived["b"])
    lo, facts = binary_search(size, s, m, a, b, tape)
    assert facts == (derived["rank"], derived["steps"], derived["L"], derived["d"])
    return _signed(lower + lo * step)


def binary_search(
    size: int, s: list[int], m: int, a: int, b: int, tape: Taking
) -> tuple[int, tuple[str, str, str, str]]:
    """The search's index, and ``(m, steps, L, d)`` as strings (section 2d)."""
    steps = max(1, (size - 1).bit_length())
    window = 0
    while Fraction(b, a) ** window < 2**64:
        window += 1
    n = 2 * window + 2
    d = (a + b) * b ** (n - 1)  # GeoSample(2L + 2, .), SPEC section 1

    def cdf(c: int, z: int) -> int:
        if z >= n:
            return d
        if z < c:
            return a ** (c - z) * b ** (n - (c - z))
        return d - a ** (z - c + 1) * b ** (n - 1 - (z - c))

    lo, hi = 0, size - 1
    for _ in range(steps):
        mid = (lo + hi) // 2
        count = min(max(sum(1 for x in s if x <= mid) - (m - window - 1), 0), n)
        u = tape.take(d)
        noisy = _least(0, n, lambda z, u=u, c=count: cdf(c, z) >= u)
        if lo < hi:
            if noisy >= window + 1:
                hi = mid
            else:
                lo = mid + 1
    return lo, (str(m), str(steps), str(window), str(d))


REPLAYERS: dict[str, Callable[[dict[str, Any], dict[str, Any], Taking], Any]] = {
    "DiscreteGaussianBase": gaussian,
    "DiscreteGaussianFixed": gaussian,
    "ExponentialMechanism": exponential,
    "ExponentialQuantile": exponential_quantile,
    "BinarySearchQuantile": binary_search_quantile,
}
