"""SPEC.md section 2g replayed from the text alone (used by tests/test_vectors.py).

The chain's brackets, thresholds and draws, the shuffle and the release are written
again from the spec; only the counting samplers (section 1) come from finitedp.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Protocol

from finitedp.counting.base import CountingSampler
from finitedp.counting.fastsample import FastSample
from finitedp.counting.geosample import GeoSample

BLOCK = 2**14


class Taking(Protocol):
    def take(self, d: int) -> int: ...


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def chain_thresholds(
    n_keys: int, tail: int, d: int, last: int, h: int
) -> tuple[int, int, list[int]]:
    """``(G, W, [a_0..a_L])`` as SPEC.md 2g computes them."""
    num, den = (n_keys - last) * tail, (last + 1) * (d - tail)
    low = max(0, den.bit_length() - num.bit_length()) + 2
    g = h + low + 4
    w = g + 32
    one, nb = 2**w, n_keys.bit_length()
    c_lo, rem = divmod(tail * 2 ** (w + nb), d - tail)
    c_hi = c_lo + (1 if rem else 0)

    def rho(j: int) -> tuple[int, int]:
        if j >= n_keys:
            return 0, 0
        return (n_keys - j) * c_lo // ((j + 1) * 2**nb), _ceil((n_keys - j) * c_hi, (j + 1) * 2**nb)

    def step(j: int, lo: int, hi: int) -> tuple[int, int]:
        rl, rh = rho(j)
        return one + rl * lo // one, one + _ceil(rh * hi, one)

    out: list[int] = []
    for start in range(0, last + 1, BLOCK):
        stop = min(start + BLOCK, last + 1)
        top = stop + w
        lo, hi = one, _ceil(one * one, one - rho(top)[1])
        for j in range(top - 1, stop - 1, -1):
            lo, hi = step(j, lo, hi)
        block = []
        for j in range(stop - 1, start - 1, -1):
            nlo = lo
            lo, hi = step(j, lo, hi)
            block.append(rho(j)[0] * nlo // (hi * 2 ** (w - g)))
        out += reversed(block)
    return g, w, out


def chain_size(tape: Taking, g: int, thresholds: list[int]) -> int | None:
    size: int | None = None
    for j, a in enumerate(thresholds):
        u = tape.take(2**g)
        if size is None and u > a:
            size = j
    return size


def _chain(p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> Any:
    args = [int(p[k]) for k in ("universe_size", "tail", "d", "last", "h")]
    g, w, thresholds = chain_thresholds(*args)
    assert (str(g), str(w)) == (derived["G"], derived["W"])
    assert [str(a) for a in thresholds] == derived["thresholds"]
    size = chain_size(tape, g, thresholds)
    return None if size is None else str(size)


def exp_at_least(r: Fraction, x: Fraction) -> bool:
    """``r <= e^x`` for rationals ``x >= 0``, decided by Taylor brackets narrowed until
    they decide (``r = e^x`` is impossible for rational ``x > 0``)."""
    terms = 8
    while True:
        total, term = Fraction(0), Fraction(1)
        for j in range(terms):
            total += term
            term = term * x / (j + 1)
        # the remainder after `terms` terms is at most term / (1 - x/(terms + 1))
        upper = total + term / (1 - x / (terms + 1)) if terms + 1 > x else None
        if r <= total:
            return True
        if upper is not None and r > upper:
            return False
        terms *= 2


def slack_h(ratio: Fraction, eps: Fraction, n: int) -> int:
    """SPEC.md 2g, "The slack h"."""
    m = 2 * (2 * n + 1)
    h = m.bit_length() + 16
    while h <= 4096:
        if exp_at_least(ratio * ratio * Fraction(2**h, 2**h - m), eps):
            return h
        h += 16
    raise ValueError("no h: the mechanism is refused")


def _blanket(p: dict[str, Any], derived: dict[str, Any], rows: list[int], tape: Taking) -> Any:
    n, big_n = int(p["n"]), int(p["universe_size"])
    eps, beta = Fraction(p["epsilon"]), Fraction(p["beta"])
    sampler: CountingSampler
    if p["counter"] == "fast":
        sampler = FastSample(n, eps, Fraction(1, big_n << 40), noise="tight")
    else:
        sampler = GeoSample(n, eps, noise=p["noise"])
    d = sampler.d
    b = next(z for z in range(n) if big_n * (d - sampler.cdf(0, z)) <= beta / 2 * d)
    tail = d - sampler.cdf(0, b)
    assert (str(b), str(tail)) == (derived["threshold"], derived["tail"])
    counts: dict[int, int] = {}
    for x in rows:
        counts[x] = counts.get(x, 0) + 1
    released = []
    for x in sorted(counts):
        v = sampler(counts[x], tape.take(d))
        if v > b:
            released.append((x, v))
    for _ in range(n - len(counts)):
        tape.take(d)
    last = 2 * n
    ratio = sampler.privacy_ratio  # section 1's b/a
    assert ratio is not None
    h = slack_h(ratio, eps, n)
    assert str(h) == derived["h"]
    g, _, thresholds = chain_thresholds(big_n, tail, d, last, h)
    size = chain_size(tape, g, thresholds)
    used = last if size is None else size
    moved: dict[int, int] = {}
    keys = []
    for i in range(last):
        u = tape.take(big_n - i)
        if i < used:
            j = i + u - 1
            keys.append(moved.get(j, j) + 1)
            moved[j] = moved.get(i, i)
    empty = sorted(x for x in keys if x not in counts)
    pairs: list[tuple[int, int]] = []
    if size is not None and len(released) + len(empty) <= n:
        floor = sampler.cdf(0, b)
        values = [tape.take(tail) for _ in empty]
        pairs = sorted(
            released + [(x, sampler(0, floor + u)) for x, u in zip(empty, values, strict=True)]
        )
        for _ in range(n - len(empty)):
            tape.take(tail)
    else:
        for _ in range(n):
            tape.take(tail)
    return {
        "type": "partial_histogram",
        "universe_size": str(big_n),
        "bins": [[str(x), str(v)] for x, v in pairs],
    }


REPLAYERS = {"blanket_chain": _chain}
HISTOGRAM_REPLAYERS = {"BlanketHistogram": _blanket}
