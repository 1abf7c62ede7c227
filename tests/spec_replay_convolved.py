"""An independent replayer of SPEC.md's ConvolvedGaussian, written from its text alone.

It shares no code with finitedp: ``pi`` from the ``decimal`` module's own series,
floors of ``X exp(.)`` at 150 digits with a margin asserted, Vose's order
re-implemented, and the draw read as bit fields.
"""

from __future__ import annotations

import decimal
import functools
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Protocol

L, SJ2, Q, M2 = 16, Fraction(2304), 192, Fraction(144)
CONTEXT = decimal.Context(prec=150)
MARGIN = decimal.Decimal(10) ** -60


class Taking(Protocol):
    def take(self, d: int) -> int: ...


def _pi() -> decimal.Decimal:
    """pi by the recipe of the ``decimal`` documentation, at the context's precision."""
    with decimal.localcontext(CONTEXT) as ctx:
        ctx.prec += 2
        lasts, t, s = decimal.Decimal(0), decimal.Decimal(3), decimal.Decimal(3)
        n, na, d, da = 1, 0, 0, 24
        while s != lasts:
            lasts = s
            n, na = n + na, na + 8
            d, da = d + da, da + 32
            t = (t * n) / d
            s += t
        ctx.prec -= 2
        return +s


def _floor(x: decimal.Decimal) -> int:
    f = int(x.to_integral_value(rounding=decimal.ROUND_FLOOR))
    assert x - f > MARGIN and f + 1 - x > MARGIN, "too close to an integer to decide"
    return f


def _theta(two_v: decimal.Decimal) -> decimal.Decimal:
    """``G = sum_z exp(-z^2/(2v))`` in the current context: the sum itself for ``2v < 2``,
    else Poisson's ``sqrt(2 pi v) (1 + 2 sum_k exp(-2 pi^2 k^2 v))``."""
    tiny = decimal.Decimal(10) ** -170
    total, k = decimal.Decimal(1), 1
    if two_v < 2:
        while (term := (-decimal.Decimal(k * k) / two_v).exp()) > tiny:
            total, k = total + 2 * term, k + 1
        return total
    pi = _pi()
    while (term := (-pi * pi * k * k * two_v).exp()) > tiny:
        total, k = total + 2 * term, k + 1
    return (pi * two_v).sqrt() * total


@functools.lru_cache(maxsize=16)
def table(v: Fraction, bits: int) -> tuple[int, int, list[int]]:
    """``(X, R, w)`` of SPEC step 2 (every operation at CONTEXT's 150 digits)."""
    with decimal.localcontext(CONTEXT):
        D = decimal.Decimal
        two_v = 2 * D(v.numerator) / D(v.denominator)
        x = _floor(D(1 << bits) / _theta(two_v))
        w = [0]
        while True:
            z = len(w)
            value = _floor(D(x) * (-D(z * z) / two_v).exp())
            if value < 1:
                break
            w.append(value)
    w[0] = (1 << bits) - 2 * sum(w[1:])
    return x, len(w) - 1, w


@functools.lru_cache(maxsize=16)
def alias(v: Fraction, bits: int) -> tuple[int, list[int], list[int]]:
    """``(N, thr, alias)`` of SPEC step 3."""
    _, radius, w = table(v, bits)
    n = 1 << (2 * radius).bit_length()
    weights = [w[abs(i - radius)] if i <= 2 * radius else 0 for i in range(n)]
    total = 1 << bits
    scaled = [n * c for c in weights]
    small = [i for i in range(n) if scaled[i] < total]
    large = [i for i in range(n) if scaled[i] >= total]
    thr, out = [total] * n, list(range(n))
    while small and large:
        s, g = small.pop(), large.pop()
        thr[s], out[s] = scaled[s], g
        scaled[g] -= total - scaled[s]
        if scaled[g] < total:
            small.append(g)
        else:
            large.append(g)
    return n, thr, out


@functools.lru_cache(maxsize=16)
def _levels(s2: Fraction) -> tuple[int, Fraction]:
    n, t = 0, s2
    while (t - SJ2) / (L * L) >= M2:
        n, t = n + 1, (t - SJ2) / (L * L)
    return n, t


def sampler(s2: Fraction) -> tuple[int, int, Callable[[Taking], int]]:
    """``(R, 2^K, draw)`` of ConvolvedGaussian(``s2``): its support radius, its one
    draw's domain, and one sample from the tape (SPEC steps 1-5)."""
    n, t = _levels(s2)
    words = -(-Q // 64)
    field = 64 * (words + 1)
    levels = [(t, n)] + [(SJ2, k) for k in range(n - 1, -1, -1)]
    radius = table(t, Q)[1] * L**n + (table(SJ2, Q)[1] * (L**n - 1) // (L - 1) if n else 0)
    domain = 1 << ((n + 1) * field)

    def draw(tape: Taking) -> int:
        u = tape.take(domain) - 1
        total = 0
        for v, k in levels:
            columns, thr, to = alias(v, Q)
            r = u & ((1 << (64 * words)) - 1)
            c = (u >> (64 * words)) % (1 << 64) % columns
            index = c if r < thr[c] << (64 * words - Q) else to[c]
            total += (index - table(v, Q)[1]) * L**k
            u >>= field
        return total

    return radius, domain, draw


def convolved(p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> list[str]:
    s2 = Fraction(p["sigma2"])
    n, t = 0, s2
    while (t - SJ2) / (L * L) >= M2:
        n, t = n + 1, (t - SJ2) / (L * L)
    x_b, r_b, w_b = table(t, Q)
    mine = {"levels": str(n), "X_B": str(x_b), "R_B": str(r_b), "w0_B": str(w_b[0])}
    levels = [(t, n)]
    if n:
        x_j, r_j, w_j = table(SJ2, Q)
        mine |= {"X_J": str(x_j), "R_J": str(r_j), "w0_J": str(w_j[0])}
        levels += [(SJ2, k) for k in range(n - 1, -1, -1)]
    words = -(-Q // 64)
    field = 64 * (words + 1)
    mine["K"] = str((n + 1) * field)
    assert mine == {k: v for k, v in derived.items() if k != "top_sigma2"}
    assert Fraction(derived["top_sigma2"]) == t
    draw = sampler(s2)[2]
    return [str(draw(tape)) for _ in range(int(p["count"]))]


REPLAYERS = {"ConvolvedGaussian": convolved}
