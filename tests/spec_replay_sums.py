"""SPEC.md section 2e replayed from the text alone (used by tests/test_vectors.py).

Nothing here imports finitedp: the unit ratio is the simplest rational between
brackets of ``exp`` from Python's ``decimal`` (checked to be the interval's own),
the recursions, the split and the tables are written again from the spec.
"""

from __future__ import annotations

import decimal
import functools
from bisect import bisect_left
from collections.abc import Callable
from fractions import Fraction
from math import isqrt
from typing import Any, Protocol

import spec_replay_convolved


class Taking(Protocol):
    def take(self, d: int) -> int: ...


_CONTEXT = decimal.Context(prec=120)


def _signed(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _exp_bracket(x: Fraction) -> tuple[Fraction, Fraction]:
    value = _CONTEXT.exp(_CONTEXT.divide(decimal.Decimal(x.numerator), x.denominator))
    exact = Fraction(value)
    margin = Fraction(1, 10**100)
    return exact - margin, exact + margin


def _simplest(low: Fraction, high: Fraction) -> Fraction:
    """The rational with the least denominator in ``[low, high]`` (``0 < low <= high``)."""
    floor = low.numerator // low.denominator
    if Fraction(floor) == low or floor + 1 <= high:
        return Fraction(floor if Fraction(floor) == low else floor + 1)
    # low and high share the integer part: recurse on the reciprocals of the fractional parts
    return floor + 1 / _simplest(1 / (high - floor), 1 / (low - floor))


def _unit_ratio(eps: Fraction, shift: int) -> Fraction:
    lo = _exp_bracket(eps * (1 - Fraction(2, 1 << 16)) / shift)
    hi = _exp_bracket(eps * (1 - Fraction(1, 1 << 16)) / shift)
    inner, outer = _simplest(lo[1], hi[0]), _simplest(lo[0], hi[1])
    assert inner == outer  # the interval's own simplest rational
    return inner


def _least_power(ratio: Fraction, target: Fraction) -> int:
    """The least ``k >= 0`` with ``ratio^k >= target``: a float guess, then exact powers."""
    k = 0
    if target > 1:
        guess = _CONTEXT.ln(decimal.Decimal(target.numerator) / target.denominator)
        step = _CONTEXT.ln(decimal.Decimal(ratio.numerator) / ratio.denominator)
        k = max(0, int(guess / step) - 2)
    while ratio**k >= target and k > 0:
        k -= 1
    while ratio**k < target:
        k += 1
    return k


def _mixed(eps: Fraction, shift: int, low: int, high: int) -> dict[str, Any]:
    ratio = _unit_ratio(eps, shift)
    b, a = ratio.numerator, ratio.denominator
    t = shift
    while True:
        k = _least_power(ratio, Fraction((1 << 64) * (high - low + 2 * t + 1)) / eps)
        if shift - 1 + k <= t:
            break
        t = shift - 1 + k
    m = isqrt(t) + 1
    blocks = t // m + 1
    g = Fraction(b * shift * (1 << 19), a * eps).__ceil__().bit_length() + 1
    per_step = min(Fraction(3 * (b - a), 2 * a), Fraction((-(-b // a)).bit_length()))
    p = g + ((t + m) * per_step).__ceil__() + t.bit_length() + 4
    v = [1 << p]
    for _ in range(m - 1):
        v.append(v[-1] * a // b)
    u = [1 << p]
    for _ in range(blocks - 1):
        u.append(u[-1] * v[-1] * a // ((1 << p) * b))
    w = [u[j // m] * v[j % m] for j in range(t + 1)]
    total = 2 * sum(w) - w[0]
    prefix = [0]  # prefix[k] = w(-t) + ... over the first k noise values z = -t..t
    for z in range(-t, t + 1):
        prefix.append(prefix[-1] + w[abs(z)])
    size = high - low + 2 * t + 1
    return {
        "a": a,
        "b": b,
        "t": t,
        "m": m,
        "W": total,
        "d": (1 << 64) * size * total,
        "prefix": prefix,
        "low": low,
        "size": size,
    }


def _sample_mixed(law: dict[str, Any], value: int, tape: Taking) -> int:
    t, total, size, prefix = law["t"], law["W"], law["size"], law["prefix"]
    first = law["low"] - t
    k_mix = ((1 << 64) - 1) * size

    def cumulative(o: int) -> int:  # weight of the outputs first..o
        noise = prefix[min(max(o - value + t + 1, 0), 2 * t + 1)]
        return (o - first + 1) * total + k_mix * noise

    u = tape.take(law["d"])
    lo, hi = first, first + size - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cumulative(mid) >= u:
            hi = mid
        else:
            lo = mid + 1
    return lo


def mixed_geometric(p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> list[str]:
    law = _mixed(Fraction(p["epsilon"]), int(p["sensitivity"]), int(p["low"]), int(p["high"]))
    for key in ("a", "b", "t", "m", "W", "d"):
        assert str(law[key]) == derived[key], key
    return [str(_sample_mixed(law, int(p["value"]), tape)) for _ in range(int(p["count"]))]


def _split(deltas: list[Fraction], e: Fraction, l2: bool) -> list[Fraction]:
    least = min(deltas)
    x = []
    for d in deltas:
        power = (d / least) ** e.numerator * (1 << (40 * e.denominator))
        r = int(_CONTEXT.power(decimal.Decimal(int(power)), _CONTEXT.divide(1, e.denominator)))
        while r**e.denominator > int(power):
            r -= 1
        while (r + 1) ** e.denominator <= int(power):
            r += 1
        x.append(r)
    scale = isqrt(sum(v * v for v in x) - 1) + 1 if l2 else sum(x)
    return [Fraction(v, scale) for v in x]


@functools.cache
def _gaussian_table(sigma2: Fraction) -> tuple[int, ...]:
    if sigma2 <= 1 << 28:
        precision = 128
    else:
        r = isqrt(sigma2.numerator // sigma2.denominator + 1) + 1
        precision = max(1, min(48, 62 - ((251 * r) // 100 + 2).bit_length()))
    scale = _CONTEXT.power(decimal.Decimal(2), precision)
    two_s2 = _CONTEXT.divide(decimal.Decimal(2 * sigma2.numerator), sigma2.denominator)
    out = [1 << precision]
    z = 1
    while True:
        x = _CONTEXT.multiply(scale, _CONTEXT.exp(_CONTEXT.divide(-decimal.Decimal(z * z), two_s2)))
        floor = int(x.to_integral_value(rounding=decimal.ROUND_FLOOR))
        margin = decimal.Decimal(10) ** -60
        assert x - floor > margin and floor + 1 - x > margin
        if floor == 0:
            return tuple(out)
        out.append(floor)
        z += 1


def gaussian_cdf(sigma2: Fraction) -> tuple[list[int], int]:
    """The default table's CDF over ``[-R, R]`` and its radius ``R`` (section 2e step 3)."""
    w = _gaussian_table(sigma2)
    radius = len(w) - 1
    cdf, running = [], 0
    for z in range(-radius, radius + 1):
        running += w[abs(z)]
        cdf.append(running)
    return cdf, radius


def noise_sampler(sigma2: Fraction, law: str) -> tuple[int, int, Callable[[Taking], int]]:
    """``(R, domain, draw)`` of the discrete Gaussian of ``law`` (SPEC 2d)."""
    if law == "convolved":
        return spec_replay_convolved.sampler(sigma2)
    cdf, radius = gaussian_cdf(sigma2)
    return radius, cdf[-1], lambda tape: bisect_left(cdf, tape.take(cdf[-1])) - radius


def vector_sum(p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> list[str]:
    lowers = [Fraction(x) for x in p["lowers"]]
    steps = [Fraction(x) for x in p["steps"]]
    units = [
        int((Fraction(hi) - lo) / st)
        for hi, lo, st in zip(p["uppers"], lowers, steps, strict=False)
    ]
    n, power, sums = int(p["n"]), int(p["p"]), [int(s) for s in p["sums"]]
    deltas = [u * st for u, st in zip(units, steps, strict=False)]
    gaussian = "rho" in p
    e = Fraction(power, power + 2) if gaussian else Fraction(power, power + 1)
    b = _split(deltas, e, gaussian)
    assert [_signed(x) for x in b] == derived["shares"]
    noisy = list(sums)
    if not gaussian:
        eps = Fraction(p["epsilon"])
        for i, (unit, s) in enumerate(zip(units, sums, strict=False)):
            law = _mixed(eps * b[i], unit, 0, n * unit)
            assert str(law["t"]) == derived["truncations"][i]
            noisy[i] = _sample_mixed(law, s, tape)
    else:
        rho = Fraction(p["rho"]) * (1 - Fraction(1, 1 << 20))
        variances = [Fraction(u * u) / (2 * rho * x * x) for u, x in zip(units, b, strict=False)]
        assert [_signed(v) for v in variances] == derived["variances"]
        for v in sorted(set(variances)):
            radius, _, draw = noise_sampler(v, p.get("noise_law", "table"))
            for i in (i for i, vi in enumerate(variances) if vi == v):
                assert str(radius) == derived["radii"][i]
                noisy[i] += draw(tape)
    return [_signed(n * lo + st * s) for lo, st, s in zip(lowers, steps, noisy, strict=False)]


REPLAYERS: dict[str, Callable[[dict[str, Any], dict[str, Any], Taking], Any]] = {
    "MixedGeometric": mixed_geometric,
    "ParallelotopeLaplace": vector_sum,
    "EllipticalGaussian": vector_sum,
}
