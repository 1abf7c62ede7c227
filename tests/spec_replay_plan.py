"""SPEC.md sections 2d (the fixed-weight and Gaussian binary-search quantiles) and 2f (PLAN),
replayed from the text alone (used by tests/test_vectors.py).

Nothing here imports the mechanisms.  The discrete Gaussian's tables come from
``spec_replay_sums`` (Python's ``decimal``), the candidates and the BV-count search
from ``spec_replay_noise``, both written from the spec.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from fractions import Fraction
from math import isqrt
from typing import Any

from spec_replay_noise import Taking, _grid, _least, binary_search, candidates, clip_of
from spec_replay_sums import _split, noise_sampler


def _signed(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _iroot(x: int, k: int) -> int:
    """The largest ``r`` with ``r^k <= x``."""
    assert 0 <= x < 2**1000  # a float guess, then exact steps
    r = round(x ** (1 / k))
    while r**k > x:
        r -= 1
    while (r + 1) ** k <= x:
        r += 1
    return r


def _ceil(q: Fraction) -> int:
    return -(-q.numerator // q.denominator)


# -- section 2d -----------------------------------------------------------------------------------


def _fixed(
    beta: Fraction, size: int, s: list[int], m: int, tape: Taking
) -> tuple[int, dict[str, str]]:
    """ExponentialQuantileFixed's chosen index, and the values ``derived`` records."""
    k = clip_of(beta, size)
    precision = 128 + size.bit_length() + _ceil(beta).bit_length()
    cands = candidates(s, m, k, size)

    def w(t: int) -> int:  # floor(2^P beta^-t), exactly
        return (beta.denominator**t << precision) // beta.numerator**t

    weights = [count * w(e) for _, count, e in cands]
    prefix, running = [], 0
    for x in weights:
        running += x
        prefix.append(running)
    u = tape.take(running)
    i = bisect_left(prefix, u)
    start, per = prefix[i] - weights[i], w(cands[i][2])
    j = _least(0, cands[i][1] - 1, lambda t: start + (t + 1) * per >= u)
    facts = {
        "rank": str(m),
        "K": str(k),
        "P": str(precision),
        "w_K": str(w(k)),
        "candidates": str(len(cands)),
    }
    return cands[i][0] + j, facts


def fixed_quantile(p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> str:
    lower, step, size, s, m = _grid(p)
    index, facts = _fixed(Fraction(p["base"]), size, s, m, tape)
    assert facts == derived
    return _signed(lower + index * step)


def _gaussian_search(
    rho: Fraction, size: int, s: list[int], m: int, tape: Taking, law: str = "table"
) -> tuple[int, dict[str, str]]:
    steps = max(1, (size - 1).bit_length())
    sigma2 = Fraction(steps) / (2 * rho * (1 - Fraction(1, 1 << 20)))
    radius, domain, draw = noise_sampler(sigma2, law)
    noise = [draw(tape) for _ in range(steps)]
    lo, hi = 0, size - 1
    for z in noise:
        mid = (lo + hi) // 2
        if lo < hi:
            if sum(1 for x in s if x <= mid) + z >= m:
                hi = mid
            else:
                lo = mid + 1
    facts = {
        "rank": str(m),
        "steps": str(steps),
        "sigma2": _signed(sigma2),
        "radius": str(radius),
        "W": str(domain),
    }
    return lo, facts


def gaussian_quantile(p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> str:
    lower, step, size, s, m = _grid(p)
    index, facts = _gaussian_search(
        Fraction(p["rho"]), size, s, m, tape, p.get("noise_law", "table")
    )
    assert facts == derived
    return _signed(lower + index * step)


# -- section 2f -----------------------------------------------------------------------------------


def _f(x: Fraction) -> Fraction:
    if x <= 0:
        return Fraction(0)
    return Fraction(isqrt((x.numerator << 128) // x.denominator), 1 << 64)


def _simplest(low: Fraction, high: Fraction) -> Fraction:
    """The rational of least denominator in ``[low, high]`` (``0 < low <= high``)."""
    whole = low.numerator // low.denominator
    if whole == low or whole + 1 <= high:
        return Fraction(whole if whole == low else whole + 1)
    return whole + 1 / _simplest(1 / (high - whole), 1 / (low - whole))


def exponential_base(x: Fraction) -> Fraction:
    """SPEC.md 2f, "The bases": the exponential quantile's base for the zCDP share ``x``."""
    eight = 8 * x
    s = 64 + eight.denominator.bit_length()
    eps = Fraction(isqrt((eight.numerator << (2 * s)) // eight.denominator), 1 << s)
    eps *= 1 - Fraction(1, 1 << 20)
    y = eps / 2
    total, term, j = Fraction(0), Fraction(1), 0
    while True:  # S = the sum of the terms before the first small one past 2y
        total += term
        j += 1
        term = term * y / j
        if j + 1 > 2 * y and term <= Fraction(1, 1 << 68):
            break
    low = Fraction((total.numerator << 64) // total.denominator, 1 << 64)
    return _simplest(1 + (low - 1) * (1 - Fraction(1, 1 << 16)), low)


class _Plan:
    def __init__(self, p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> None:
        self.p, self.derived, self.tape = p, derived, tape
        self.law = p.get("noise_law", "table")  # absent: made before issue 41
        self.lower, self.step = Fraction(p["lower"]), Fraction(p["step"])
        self.size = int((Fraction(p["upper"]) - self.lower) / self.step) + 1
        self.d = int(p["d"])
        self.n = len(p["rows"]) // self.d
        rho = Fraction(p["rho"])
        c, v, r, z = (Fraction(x) for x in p["shares"])
        self.rounds = int(p["rounds"])
        self.rho_c, self.rho_v = c * rho, v * rho
        self.rho_r, self.rho_z = r * rho / self.rounds, z * rho / self.rounds

    def quantile(
        self, name: str, rho: Fraction, size: int, values: Sequence[int], q: Fraction
    ) -> int:
        """The index the ``name`` selector (``centre``, ``spread``, ``radius``) chooses."""
        s = sorted(values)
        mq = q * len(s)
        m = mq.numerator // mq.denominator
        kind = "exponential" if name == "radius" else self.p["selection"]
        if kind == "exponential":
            base = exponential_base(rho)  # recomputed: the vectors' derived value only checks it
            assert str(base) == self.derived[f"{name}_base"]
            return _fixed(base, size, s, m, self.tape)[0]
        if kind == "gaussian":
            return _gaussian_search(rho, size, s, m, self.tape, self.law)[0]
        a, b = int(self.derived[f"{name}_a"]), int(self.derived[f"{name}_b"])
        del rho  # BinarySearchQuantile: e(rho) only names the ratio b/a given here
        return binary_search(size, s, m, a, b, self.tape)[0]


def plan(p: dict[str, Any], derived: dict[str, Any], tape: Taking) -> dict[str, list[str]]:
    run = _Plan(p, derived, tape)
    d, n, size, lower, step = run.d, run.n, run.size, run.lower, run.step
    span = size - 1
    rows = [
        [int((Fraction(x) - lower) / step) for x in p["rows"][j * d : (j + 1) * d]]
        for j in range(n)
    ]
    half = Fraction(1, 2)
    # 1. the centre
    if p["centre"] == "median":
        centre = [
            run.quantile("centre", run.rho_c / d, size, [r[i] for r in rows], half)
            for i in range(d)
        ]
    else:
        centre = [0] * d
    # 2. the spread
    levels_t = [1]
    while levels_t[-1] < span or len(levels_t) < 2:
        power = Fraction(6, 5) ** len(levels_t)
        levels_t.append(_ceil(power))
    assert str(len(levels_t)) == derived["gap_levels"]
    if p["variance"] == "gaussian":
        pairs = n // 2
        tau = []
        for i in range(d):
            gaps = [abs(rows[2 * j][i] - rows[2 * j + 1][i]) for j in range(pairs)]
            levels = [_least(0, len(levels_t) - 1, lambda t, g=g: levels_t[t] >= g) for g in gaps]
            grid = max(1, len(levels_t) - 1) + 1
            tau.append(
                Fraction(levels_t[run.quantile("spread", run.rho_v / d, grid, levels, half)])
            )
    elif p["variance"] == "binary":
        upper = Fraction(p["upper"])
        b = _split([upper - lower] * d, Fraction(2, 4), True)
        rho = run.rho_v * (1 - Fraction(1, 1 << 20))
        sums = [sum(r[i] for r in rows) for i in range(d)]
        outputs = []
        for i in range(d):  # equal grids: one variance, draws in coordinate order
            variance = Fraction(span * span) / (2 * rho * b[i] * b[i])
            noisy = sums[i] + noise_sampler(variance, run.law)[2](tape)
            outputs.append(n * lower + step * noisy)
        edge = (upper - lower) / max(4, _iroot(d * d, 5))
        means = [min(max(o / n, lower + edge), upper - edge) for o in outputs]
        tau = [_f((q - lower) * (upper - q)) for q in means]
    else:
        tau = [_f(Fraction(x)) for x in p["variances"]]
    mean = sum(tau, Fraction(0)) / d
    tau = [t + mean for t in tau]
    # 3. the scales
    q_bits = 40 - span.bit_length()
    positive = [t for t in tau if t > 0]
    power = int(p["p"]) + 2
    scales = []
    for t in tau:
        if not positive or t <= 0:
            scales.append(1 << q_bits)
            continue
        x = min(positive) / t
        scales.append(
            max(1, _iroot((x.numerator**2 << (q_bits * power)) // x.denominator**2, power))
        )
    # 4. the radii
    top = isqrt(sum((span * s) ** 2 for s in scales)) + 1
    count, ratio = int(p["clip_count"]), Fraction(p["clip_ratio"])
    radii = [_ceil(top / ratio**h) for h in range(count)][::-1]
    # 5. the rounds
    units, clipped = int(p["units"]), int(p["clipped"])
    c = isqrt(d - 1) + 1 if d > 1 else 1
    sigma2 = Fraction((2 * units) ** 2) / (2 * run.rho_z * (1 - Fraction(1, 1 << 20)))
    radius, domain, draw = noise_sampler(sigma2, run.law)
    assert (_signed(sigma2), str(radius), str(domain)) == (
        derived["sigma2"],
        derived["noise_radius"],
        derived["W"],
    )
    first = [lower + m * step for m in centre]
    done: list[tuple[int, list[Fraction]]] = []
    estimate: list[Fraction] = []
    for _ in range(run.rounds):
        w = [[(r[i] - centre[i]) * scales[i] for i in range(d)] for r in rows]
        bounds = []
        for row in w:
            square = sum(x * x for x in row)
            root = isqrt(square)
            bounds.append(root + (root * root < square))
        levels = [next((h for h, big in enumerate(radii) if big >= b_), count - 1) for b_ in bounds]
        chosen = run.quantile(
            "radius", run.rho_r, max(1, count - 1) + 1, levels, Fraction(n - clipped, n)
        )
        big_c = radii[chosen]
        sums = [0] * d
        for row, bound in zip(w, bounds, strict=True):
            a, b = (
                (units, big_c)
                if 2 * bound * units <= big_c * (2 * units - c)
                else (
                    2 * units - c,
                    2 * bound,
                )
            )
            for i in range(d):
                sums[i] += (2 * row[i] * a + b) // (2 * b)
        noise = [draw(tape) for _ in range(d)]
        done.append(
            (
                big_c,
                [
                    lower
                    + centre[i] * step
                    + Fraction((sums[i] + noise[i]) * big_c, units * n * scales[i]) * step
                    for i in range(d)
                ],
            )
        )
        if len(done) == 1:
            estimate = done[0][1]
        else:
            weights = [Fraction(1, big * big) for big, _ in done]
            total = sum(weights, Fraction(0))
            estimate = [
                sum((wt * e[i] for wt, (_, e) in zip(weights, done, strict=True)), Fraction(0))
                / total
                for i in range(d)
            ]
        centre = [min(max(_floor((e - lower) / step + half), 0), span) for e in estimate]
    return {
        "centre": [_signed(x) for x in first],
        "scales": [str(s) for s in scales],
        "radii": [str(big) for big, _ in done],
        "estimates": [_signed(e) for e in estimate],
    }


def _floor(q: Fraction) -> int:
    return q.numerator // q.denominator


REPLAYERS: dict[str, Callable[[dict[str, Any], dict[str, Any], Taking], Any]] = {
    "ExponentialQuantileFixed": fixed_quantile,
    "GaussianBinarySearchQuantile": gaussian_quantile,
    "PLAN": plan,
}
