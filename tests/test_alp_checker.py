"""ALP proven by the checker: exact laws on tiny instances against the thesis' lemmas.

Paper: Lebeda thesis Lemmas 2.4 / 2.15 (privacy of Algs 2 / 4), 2.30 (Alg 10),
2.9 (the random walk), 2.10, 2.12-2.13 and 2.31-2.32 (accuracy); Section 2.2
(random rounding, randomized response, universal hashing).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise, product

import pytest
import sympy

from finitedp.alp.bounds import (
    collision_flip,
    histogram_error_bound,
    tail_holds,
    walk_expectation,
    y_error_bound,
)
from finitedp.alp.exact import estimate_law, projection_law
from finitedp.alp.hashing import HashSequence, HashTable
from finitedp.alp.projection import alp1_projection, histogram_projection
from finitedp.alp.randomized import flip_mask, rand_round
from finitedp.checker.measures import max_ratio
from finitedp.checker.symbolic import exact_distribution
from finitedp.exactmath import compare_exp

F = Fraction


# --- primitives -------------------------------------------------------------------


@pytest.mark.parametrize("r", [F(0), F(3, 4), F(5, 4), F(2), F(7, 4)])
def test_rand_round_is_exact_with_one_call(r: Fraction) -> None:
    law = exact_distribution(rand_round, r, 4)
    low = r.numerator // r.denominator
    expected = {low: 1 - (r - low), low + 1: r - low}
    assert law == {y: p for y, p in expected.items() if p}


def test_rand_round_padded_is_rand_round_call_by_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """In blocks of 4 draws: the values and the tape of one ``rand_round`` per value and
    one ``uniform(q)`` per padding call; a value off the grid is refused before any draw."""
    from finitedp.alp import randomized
    from finitedp.errors import ParameterError
    from finitedp.oracle import RecordingSource, SeededSource

    monkeypatch.setattr(randomized, "_ROUND_BLOCK", 4)
    values = [F(k, 4) for k in (0, 1, 3, 4, 5, 7, 9, 11, 2)]
    for calls in (9, 10, 13):
        ours, theirs = RecordingSource(SeededSource(b"pad")), RecordingSource(SeededSource(b"pad"))
        got = randomized.rand_round_padded(values, 4, calls, ours)
        assert got == [rand_round(v, 4, theirs) for v in values]
        for _ in range(calls - len(values)):
            theirs.uniform(4)
        assert ours.tape == theirs.tape and len(ours.tape) == calls
    law = exact_distribution(lambda rng: tuple(randomized.rand_round_padded([F(3, 4)], 4, 2, rng)))
    assert law == {(1,): F(3, 4), (0,): F(1, 4)}
    quiet = RecordingSource(SeededSource(b"pad"))
    with pytest.raises(ParameterError, match="q = 4"):
        randomized.rand_round_padded([F(1, 4), F(1, 3)], 4, 2, quiet)
    with pytest.raises(ParameterError, match="calls = 1"):
        randomized.rand_round_padded([F(1, 4), F(1, 2)], 4, 1, quiet)
    assert quiet.tape == ()


def test_flip_mask_is_a_product_of_exact_bernoullis() -> None:
    law = exact_distribution(lambda rng: tuple(flip_mask(4, 1, 3, rng).tolist()))
    for bits, prob in law.items():
        expected = F(1)
        for b in bits:
            expected *= F(1, 3) if b else F(2, 3)
        assert prob == expected
    assert len(law) == 16


@pytest.mark.parametrize("base", [4, 5, 7, (1 << 64) + 3])
def test_flip_mask_from_offsets_is_the_flips_of_the_tape(base: int) -> None:
    """The seeded source hands ``u - 1`` as ``uint64`` (``draw_offsets``), a recording
    source hands ints: the same flips for ``base^r`` below, at (``4^32 = 2^64``) and above
    ``2^64`` (``r = 1``), and the recording's domains are the calls'."""
    from finitedp.alp.randomized import digits_per_draw
    from finitedp.oracle import RecordingSource, SeededSource

    r = digits_per_draw(base)
    count = 3 * r + 2
    recorder = RecordingSource(SeededSource(b"offsets"))
    by_ints = flip_mask(count, 1, base, recorder)
    assert flip_mask(count, 1, base, SeededSource(b"offsets")).tolist() == by_ints.tolist()
    full, rest = divmod(count, r)
    assert [d for d, _ in recorder.tape] == [base**r] * full + ([base**rest] if rest else [])


def test_flip_mask_chunks_and_paths_agree() -> None:
    # base 5: 27 digits per draw; 60 positions are draws of 5^27, 5^27 and 5^6.
    from finitedp.oracle import RecordingSource, ReplaySource, SeededSource

    recorder = RecordingSource(SeededSource(b"chunks"))
    fast = flip_mask(60, 2, 5, recorder)
    assert [d for d, _ in recorder.tape] == [5**27, 5**27, 5**6]

    class OneByOne:  # no uniform_many: the pure-Python digit path
        def __init__(self) -> None:
            self.inner = ReplaySource(recorder.tape)

        def uniform(self, d: int) -> int:
            return self.inner.uniform(d)

    slow = flip_mask(60, 2, 5, OneByOne())
    assert fast.tolist() == slow.tolist()
    digits = []
    for d, u in recorder.tape:
        v = u - 1
        for _ in range(27 if d == 5**27 else 6):
            v, digit = divmod(v, 5)
            digits.append(digit < 2)
    assert fast.tolist() == digits


def test_multiply_add_shift_collides_with_probability_exactly_one_over_s() -> None:
    # Keys of w = 3 bits, s = 4 (l = 2): W = 4 >= w + l - 1; enumerate every (a, b).
    universe, s, word = 7, 4, 4
    for x, y in [(1, 2), (3, 7), (2, 6), (4, 5)]:
        pairs: dict[tuple[int, int], int] = {}
        for a, b in product(range(1 << word), repeat=2):
            h = HashSequence(universe, s, (a,), (b,), word)
            key = (h.rows(x)[0], h.rows(y)[0])
            pairs[key] = pairs.get(key, 0) + 1
        # Strongly universal: every pair of buckets equally likely, so collisions are 1/s.
        assert len(pairs) == s * s and set(pairs.values()) == {(1 << (2 * word)) // (s * s)}


def test_too_small_a_word_is_refused() -> None:
    with pytest.raises(ValueError, match="W >= w \\+ l - 1"):
        HashSequence(7, 4, (1,), (1,), 3)


# --- privacy: Lemma 2.4 / 2.15 and Lemma 2.30 --------------------------------------------

#: d = 2 keys, s = 2 buckets, m = 3 columns: no collision, full collision, and mixed.
TABLES = {
    "apart": HashTable(2, ((0, 0, 0), (1, 1, 1))),
    "together": HashTable(2, ((0, 1, 0), (0, 1, 0))),
    "mixed": HashTable(2, ((0, 0, 1), (1, 0, 1))),
}


def _grid(top: Fraction, step: Fraction) -> list[Fraction]:
    return [step * i for i in range(int(top / step) + 1)]


def _explored(x: dict[int, Fraction], table: HashTable, alpha: Fraction, q: int):  # type: ignore[no-untyped-def]
    def run(rng):  # type: ignore[no-untyped-def]
        z = alp1_projection(x, table, alpha=alpha, psi=F(3) * alpha, k=2, q=q, rng=rng)
        return tuple(int(v) for v in z.columns.reshape(-1))

    return exact_distribution(run)


@pytest.mark.parametrize("x", [{}, {1: F(1, 2)}, {1: F(3, 4), 2: F(9, 4)}, {1: F(3), 2: F(1, 4)}])
def test_composed_law_is_the_implementations_law(x: dict[int, Fraction]) -> None:
    table = TABLES["mixed"]
    assert _explored(x, table, F(1), 4) == projection_law(x, table, F(1), 1, 3)


def test_lemma_2_4_worst_ratio_on_the_quarter_grid() -> None:
    """ALP1-Projection (alpha = 1, m = 3, s = 2, d = 2) on values in {0, 1/4, ..., 2}."""
    grid = _grid(F(2), F(1, 4))
    worst = (F(0), None)
    for name, table in TABLES.items():
        laws = {(a, b): projection_law({1: a, 2: b}, table, F(1), 1, 3) for a in grid for b in grid}
        for (x, lx), (y, ly) in product(laws.items(), repeat=2):
            distance = abs(x[0] - y[0]) + abs(x[1] - y[1])
            if not 0 < distance <= 1:
                continue
            ratio = max_ratio(lx, ly)
            assert isinstance(ratio, Fraction)
            assert compare_exp(ratio, distance) <= 0, (name, x, y, ratio)  # Lemma 2.4
            if ratio > worst[0]:
                worst = (ratio, (name, x, y))
    assert worst[0] == F(9, 4)
    name, x, y = worst[1]  # type: ignore[misc]
    assert name == "apart" and {x, y} == {(F(1, 2), F(1, 2)), (F(0), F(0))}


def test_lemma_2_15_scaling_by_epsilon() -> None:
    # Alg 4 at eps = 1/2 is Alg 2 on x eps: its worst ratio at l1 distance 1 is e^(1/2)-bounded.
    table = TABLES["apart"]
    grid = _grid(F(2), F(1, 2))
    laws = {
        (a, b): projection_law({1: a / 2, 2: b / 2}, table, F(1), 1, 3) for a in grid for b in grid
    }
    worst = F(0)
    for (x, lx), (y, ly) in product(laws.items(), repeat=2):
        distance = abs(x[0] - y[0]) + abs(x[1] - y[1])
        if 0 < distance <= 1:
            ratio = max_ratio(lx, ly)
            assert isinstance(ratio, Fraction) and compare_exp(ratio, distance / 2) <= 0
            worst = max(worst, ratio)
    # (1/2, 1/2) against (0, 0): each first-column bit moves from 1/3 to 5/12: (5/4)^2 < e^(1/2).
    assert worst == F(25, 16)


def _integer_laws(table: HashTable, a: int, b: int, top: int) -> dict[tuple[int, int], dict]:  # type: ignore[type-arg]
    return {
        (u, v): projection_law({1: F(u), 2: F(v)}, table, F(1), a, a + b)
        for u in range(top + 1)
        for v in range(top + 1)
    }


def test_histogram_projection_explored_equals_its_law() -> None:
    table = TABLES["together"]

    def run(rng):  # type: ignore[no-untyped-def]
        z = histogram_projection({1: 2, 2: 1}, table, a=1, b=2, k=2, rng=rng)
        return tuple(int(v) for v in z.columns.reshape(-1))

    assert exact_distribution(run) == projection_law({1: F(2), 2: F(1)}, table, F(1), 1, 3)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_lemma_2_30_ratio_is_exactly_b_over_a(name: str) -> None:
    """Alg 10 with p = a/(a+b): neighbouring integer vectors (one entry moves by one)."""
    a, b = 7, 19  # b/a = 19/7 <= e, the ratio finitedp picks at eps = 1
    laws = _integer_laws(TABLES[name], a, b, 3)
    worst = F(0)
    for (x, lx), (y, ly) in product(laws.items(), repeat=2):
        if abs(x[0] - y[0]) + abs(x[1] - y[1]) == 1:
            ratio = max_ratio(lx, ly)
            assert isinstance(ratio, Fraction) and ratio <= F(b, a)
            worst = max(worst, ratio)
    assert worst == F(b, a)  # some bit changes and nothing else does: exactly (1 - p)/p
    assert compare_exp(F(b, a), 1) < 0


# --- accuracy: Lemmas 2.9, 2.10, 2.12-2.13, 2.31-2.32 -------------------------------------


def test_lemma_2_9_generating_function_with_sympy() -> None:
    z = sympy.symbols("z", positive=True)
    closed = 2 * z / (1 - 4 * z) ** sympy.Rational(3, 2)
    series = sympy.series(closed, z, 0, 12).removeO()
    for n in range(12):
        assert series.coeff(z, n) == n * sympy.binomial(2 * n, n)
    p = sympy.symbols("p", positive=True)
    expectation = 2 * (1 - 2 * p) * closed.subs(z, p - p**2)
    simplified = sympy.simplify(expectation - 4 * (p - p**2) / (1 - 2 * p) ** 2)
    assert sympy.simplify(simplified.subs(p, sympy.Rational(1, 5))) == 0
    assert sympy.simplify(simplified.subs(p, sympy.Rational(1, 7))) == 0
    assert sympy.nsimplify(simplified.subs(p, sympy.Rational(2, 9))) == 0


@pytest.mark.parametrize("p", [F(1, 5), F(1, 3), F(7, 26)])
def test_lemma_2_9_partial_sums_approach_the_closed_form(p: Fraction) -> None:
    total, term_p = F(0), p - p * p
    for j in range(1, 400):
        total += 2 * j * sympy.binomial(2 * j, j) * term_p**j * (1 - 2 * p)
    closed = walk_expectation(p)
    assert total < closed and closed - total < F(1, 10**6)


@pytest.mark.parametrize(
    ("alpha", "collision"), [(F(3), F(0)), (F(3), F(1, 10)), (F(1), F(1, 5)), (F(10), F(1, 20))]
)
def test_lemma_2_10_expected_error_exactly(alpha: Fraction, collision: Fraction) -> None:
    p = 1 / (alpha + 2)
    up = collision_flip(p, collision)
    bound = y_error_bound(alpha, collision)
    m = 12
    for y in range(m + 1):
        law = estimate_law(y, m, p, up)
        assert sum(law.values()) == 1
        expected = sum((abs(v - y) * q for v, q in law.items()), F(0))
        assert expected <= bound, (y, expected, bound)


@pytest.mark.parametrize(
    ("a", "b", "collision"), [(7, 19, F(0)), (7, 19, F(1, 10)), (1, 20, F(1, 40))]
)
def test_lemmas_2_31_2_32_histogram_error_exactly(a: int, b: int, collision: Fraction) -> None:
    p = F(a, a + b)
    bound = histogram_error_bound(F(b, a), collision)
    m = 12
    for y in range(m + 1):
        law = estimate_law(y, m, p, collision_flip(p, collision))
        expected = sum((abs(v - y) * q for v, q in law.items()), F(0))
        assert expected <= bound
        if collision == 0:  # Lemma 2.31: 8 e^eps/(e^eps - 1)^2 with b/a for e^eps
            r = F(b, a)
            assert expected <= 8 * r / (r - 1) ** 2


@pytest.mark.parametrize(("alpha", "collision"), [(F(3), F(1, 10)), (F(1), F(0)), (F(4), F(1, 16))])
def test_lemma_2_12_tails_exactly(alpha: Fraction, collision: Fraction) -> None:
    p = 1 / (alpha + 2)
    up = collision_flip(p, collision)
    m = 12
    for y in (0, 3, 6, 12):
        law = estimate_law(y, m, p, up)
        for tau in range(1, m + 1):
            tail = sum((q for v, q in law.items() if abs(v - y) >= tau), F(0))
            assert tail_holds(tail, up, tau), (y, tau, tail)


# --- Threshold2 (Alg 9, Lemma 2.24) with exact geometric noise -----------------------------


@pytest.mark.parametrize(("epsilon", "delta"), [(F(1), F(1, 4)), (F(1, 2), F(1, 10))])
def test_lemma_2_24_exact_delta_of_threshold2(epsilon: Fraction, delta: Fraction) -> None:
    """Integer vectors on {0..3}^2, l1 neighbours: the exact hockey-stick at b/a is delta(t)."""
    from finitedp.alp.threshold import ClampedGeometric, threshold2, threshold_delta, threshold_for
    from finitedp.checker.measures import hockey_stick

    ratio = ClampedGeometric(epsilon, 1).ratio
    t = threshold_for(ratio, delta)
    noise = ClampedGeometric(epsilon, t - 1)
    claimed = threshold_delta(ratio, t)
    assert claimed <= delta < threshold_delta(ratio, t - 1) or t == 2  # the least such t
    exp_eps = 1 / ratio  # b/a <= e^eps: a hockey-stick at b/a bounds the one at e^eps
    assert compare_exp(exp_eps, epsilon) <= 0

    def run(x: tuple[int, int], rng):  # type: ignore[no-untyped-def]
        counts = {i + 1: v for i, v in enumerate(x) if v}
        return tuple(sorted(threshold2(counts, noise, t, 2, rng).items()))

    laws = {x: exact_distribution(run, x) for x in product(range(4), repeat=2)}
    worst = F(0)
    for (x, lx), (y, ly) in product(laws.items(), repeat=2):
        if abs(x[0] - y[0]) + abs(x[1] - y[1]) == 1:
            worst = max(worst, hockey_stick(lx, ly, exp_eps))
    assert worst == claimed  # exactly the tail of a count of 1 (and of each clamp end)


def test_threshold2_with_a_short_clamp_is_caught() -> None:
    # R = t - 2 puts alpha^(t-2)/(1 + alpha) > delta(t) on the clamp ends: the checker sees it.
    from finitedp.alp.threshold import ClampedGeometric, threshold2, threshold_delta, threshold_for
    from finitedp.checker.measures import hockey_stick

    ratio = ClampedGeometric(1, 1).ratio
    t = threshold_for(ratio, F(1, 10))
    short = ClampedGeometric(1, t - 2)

    def run(x: int, rng):  # type: ignore[no-untyped-def]
        return tuple(sorted(threshold2({1: x}, short, t, 1, rng).items()))

    two, three = exact_distribution(run, 2), exact_distribution(run, 3)
    hs = max(hockey_stick(two, three, 1 / ratio), hockey_stick(three, two, 1 / ratio))
    assert hs > threshold_delta(ratio, t)


def _path_ratio(a: Fraction, b: Fraction, epsilon: Fraction) -> Fraction:
    """``prod (1 + eps D)`` over the pieces of ``[a, b]`` cut at the integers."""
    lo, hi = min(a, b), max(a, b)
    cuts = sorted({lo, hi} | {F(j) for j in range(-(-lo.numerator // lo.denominator), int(hi) + 1)})
    out = F(1)
    for u, v in pairwise(cuts):
        out *= 1 + epsilon * (v - u)
    return out


def test_threshold2_on_a_grid_interpolates_exactly() -> None:
    """Rational Threshold2 (values on 1/2, every entry rounded, noise ratio 1/(1 + eps)).

    On {0, 1/2, ..., 2}^2 at eps = 1, delta = 1/4, every pair at l1 distance at
    most 1: the exact hockey-stick at the path ratio ``P = prod (1 + eps D)`` is
    at most ``delta(t) (P - 1)/eps`` (the proof note's lemma; attained), and the
    hockey-stick at the user-level ratio ``(1 + eps/2)^2 = 9/4 <= e`` is within the
    stated ``grid_delta``.
    """
    from finitedp.alp.threshold import (
        ClampedGeometric,
        grid_delta,
        least_grid_threshold,
        one_plus_epsilon,
        threshold2_on_grid,
        threshold_delta,
    )
    from finitedp.checker.measures import hockey_stick

    eps, q = F(1), 2
    t = least_grid_threshold(eps, F(1, 4), 1, q)
    noise = ClampedGeometric(eps, t - 1, ratio=one_plus_epsilon(eps))
    unit = threshold_delta(1 / (1 + eps), t)

    def run(x: tuple[Fraction, Fraction], rng):  # type: ignore[no-untyped-def]
        entries = {i + 1: v for i, v in enumerate(x) if v}
        return tuple(sorted(threshold2_on_grid(entries, noise, t, 2, q, rng).items()))

    grid = [F(j, q) for j in range(5)]
    laws = {x: exact_distribution(run, x) for x in product(grid, repeat=2)}
    sharpest, user = F(0), F(0)
    for (x, lx), (y, ly) in product(laws.items(), repeat=2):
        distance = abs(x[0] - y[0]) + abs(x[1] - y[1])
        if 0 < distance <= 1:
            path = _path_ratio(x[0], y[0], eps) * _path_ratio(x[1], y[1], eps)
            sharpest = max(sharpest, hockey_stick(lx, ly, path) / (unit * (path - 1) / eps))
            user = max(user, hockey_stick(lx, ly, (1 + eps / q) ** q))
    assert sharpest == 1  # the per-path bound holds and is attained
    assert compare_exp(F(9, 4), eps) <= 0
    assert user == F(1, 6) and user <= grid_delta(eps, t, 1, q) == F(5, 24)


# --- Max-Projection (Alg 11, Lemma 2.33) -----------------------------------------------------


def test_lemma_2_33_max_projection_ratio_is_b_over_a_for_every_table() -> None:
    from finitedp.alp.maxproj import MaxProjection, max_projection

    mech = MaxProjection(3, 1, s=2, u=3)
    ratio = mech.sampler.noise.exp_epsilon  # b/a <= e
    assert compare_exp(ratio, 1) <= 0
    worst = F(0)
    for values in product(range(2), repeat=3):  # every table [3] -> [2]
        table = HashTable(2, tuple((v,) for v in values))
        laws = {
            x: exact_distribution(
                max_projection, {i + 1: v for i, v in enumerate(x) if v}, table, 3, mech.sampler
            )
            for x in product(range(4), repeat=3)
        }
        for (x, lx), (y, ly) in product(laws.items(), repeat=2):
            if sum(abs(a - b) for a, b in zip(x, y, strict=True)) == 1:
                r = max_ratio(lx, ly)
                assert isinstance(r, Fraction) and r <= ratio
                worst = max(worst, r)
    assert worst == ratio


def test_lemma_2_34_expected_error_over_a_random_table() -> None:
    """E|x_i - y~_h(i)| <= ||x||_1 / s + E|Z|, over every table (a truly random h) and the noise."""
    from finitedp.alp.maxproj import MaxProjection, max_projection

    mech = MaxProjection(3, 1, s=2, u=3)
    alpha = mech.sampler.noise.alpha
    noise_mean = 2 * alpha / ((1 - alpha) * (1 + alpha))  # E|Z| of the unclamped geometric
    tables = [HashTable(2, tuple((v,) for v in values)) for values in product(range(2), repeat=3)]
    for x in [(3, 0, 0), (1, 2, 3), (0, 3, 3), (2, 2, 0)]:
        vector = {i + 1: v for i, v in enumerate(x) if v}
        for i in range(3):
            error = F(0)
            for table in tables:
                law = exact_distribution(max_projection, vector, table, 3, mech.sampler)
                bucket = table.rows(i + 1)[0]
                error += sum((abs(out[bucket] - x[i]) * p for out, p in law.items()), F(0))
            error /= len(tables)
            assert error <= F(sum(x), 2) + noise_mean, (x, i, error)


# --- Section 2.6: the 1-Lipschitz logarithm --------------------------------------------------


@pytest.mark.parametrize("base", [F(2), F(511, 500), F(3, 2), F(7)])
def test_log_map_is_increasing_one_lipschitz_and_exactly_invertible(base: Fraction) -> None:
    from finitedp.alp.multiplicative import LogMap

    g = LogMap(base, F(10**4))
    pts = g.breakpoints
    for j, (a, b) in enumerate(pairwise(pts)):
        width = b - a
        assert width >= 1 and width & (width - 1) == 0  # a power of two: slope 1/width <= 1
        assert (g(F(a)) == j and (base + 1) / 2 < F(b, a) <= base) or a * (base - 1) < 1
    grid = [F(v, 4) for v in range(0, 4 * 300)] + [F(pts[-1])]
    values = [g(x) for x in grid]
    for (x, gx), (y, gy) in pairwise(list(zip(grid, values, strict=True))):
        assert 0 <= gy - gx <= y - x
    for x in grid:
        if x >= pts[0]:
            assert g.inverse(g(x)) == x


def test_lemma_2_28_privacy_through_the_log_map() -> None:
    """ALP1 on g(x), B = 2 (breakpoints 1, 2, 4): ratio <= e^{||x - x'||_1} on the half grid."""
    from finitedp.alp.multiplicative import LogMap

    g = LogMap(F(2), F(4))
    table = HashTable(2, ((0, 1), (1, 1)))
    grid = [F(v, 2) for v in range(9)]
    laws = {
        (a, b): projection_law({1: g(a), 2: g(b)}, table, F(1), 1, 3) for a in grid for b in grid
    }
    worst = F(0)
    for (x, lx), (y, ly) in product(laws.items(), repeat=2):
        distance = abs(x[0] - y[0]) + abs(x[1] - y[1])
        if 0 < distance <= 1:
            ratio = max_ratio(lx, ly)
            assert isinstance(ratio, Fraction) and compare_exp(ratio, distance) <= 0
            worst = max(worst, ratio)
    # (3/2, 3/2) against (1, 1): g moves each entry from 0 to 1/2, as Lemma 2.4's (1/2, 1/2).
    assert worst == F(9, 4)


# --- Section 2.10: a private sparsity ---------------------------------------------------------


def test_section_2_10_noisy_sparsity_is_eps_k_dp_and_its_shift_covers_k() -> None:
    """k~'s law at every k in [0, K] (exact): ratio <= e^{eps_k} between k and k + 1, and
    Pr[k~ + shift < k] <= beta_k for every k."""
    from finitedp.alp.unknown import UnknownSparsityALP

    mech = UnknownSparsityALP(50, 1, psi=6, max_k=12, beta_k=F(1, 20))
    laws = [mech.counter.pmf(k) for k in range(13)]
    for k in range(12):
        for a, b in ((laws[k], laws[k + 1]), (laws[k + 1], laws[k])):
            r = max_ratio(a, b)
            assert isinstance(r, Fraction) and compare_exp(r, mech.epsilon_k) <= 0
    for k, law in enumerate(laws):
        short = sum((p for v, p in law.items() if min(12, v + mech.shift) < k), F(0))
        assert short <= F(1, 20)
    # the shift is the least that works: one less fails where the clamp is out of reach
    wide = UnknownSparsityALP(50, 1, psi=6, max_k=100, beta_k=F(1, 20))
    middle = wide.counter.pmf(50)
    assert sum((p for v, p in middle.items() if v + wide.shift < 50), F(0)) <= F(1, 20)
    assert sum((p for v, p in middle.items() if v + wide.shift - 1 < 50), F(0)) > F(1, 20)


def test_threshold_alp_states_the_exact_delta_of_its_threshold2() -> None:
    """ThresholdALP's own noise and threshold (not a rebuilt pair) give exactly its delta."""
    from finitedp.alp.combined import ThresholdALP
    from finitedp.alp.threshold import threshold2
    from finitedp.checker.measures import hockey_stick

    mech = ThresholdALP(2, 2, "1/4", k=2)  # eps_1 = 1, delta(t) <= 1/4
    exp_eps = 1 / mech.noise.ratio

    def run(x: tuple[int, int], rng):  # type: ignore[no-untyped-def]
        counts = {i + 1: v for i, v in enumerate(x) if v}
        return tuple(sorted(threshold2(counts, mech.noise, mech.t, 2, rng).items()))

    laws = {x: exact_distribution(run, x) for x in product(range(3), repeat=2)}
    worst = max(
        hockey_stick(lx, ly, exp_eps)
        for (x, lx), (y, ly) in product(laws.items(), repeat=2)
        if abs(x[0] - y[0]) + abs(x[1] - y[1]) == 1
    )
    assert worst == mech.privacy.delta <= F(1, 4)


def test_threshold2_releases_a_noisy_value_equal_to_t() -> None:
    """Alg 9 step 4 keeps v >= t: a count of t is released exactly when Z >= 0."""
    from finitedp.alp.threshold import ClampedGeometric, threshold2

    noise = ClampedGeometric(1, 4)
    t = 5
    law = exact_distribution(lambda rng: tuple(threshold2({1: t}, noise, t, 1, rng)))
    assert law[(1,)] == 1 / (1 + noise.ratio)  # Pr[Z >= 0] of the two-sided geometric


@pytest.mark.parametrize("values", [(0, 0), (0, 1), (1, 1)])
def test_rounding_then_ratio_one_over_one_plus_eps_interpolates(values: tuple[int, int]) -> None:
    """Max-Projection on the 1/4 grid (random rounding, then ratio 1/(1 + eps)): for every
    pair the ratio is at most prod_a (1 + eps |y_a - y'_a|) <= e^{eps ||x - x'||_1}."""
    from finitedp.alp.maxproj import MaxProjection, bucket_maxima, max_projection

    mech = MaxProjection(2, 1, s=2, u=2, step=F(1, 4))
    assert mech.sampler.noise.exp_epsilon == 2  # b/a = 1 + eps
    table = HashTable(2, tuple((v,) for v in values))
    grid = [F(v, 4) for v in range(9)]
    laws = {}
    for x in product(grid, repeat=2):
        vector = {i + 1: v for i, v in enumerate(x) if v}
        laws[x] = exact_distribution(max_projection, vector, table, 2, mech.sampler, q=4)
    rows = {1: values[0], 2: values[1]}
    worst = F(0)
    for (x, lx), (y, ly) in product(laws.items(), repeat=2):
        distance = abs(x[0] - y[0]) + abs(x[1] - y[1])
        if not 0 < distance <= 1:
            continue
        ratio = max_ratio(lx, ly)
        ya = bucket_maxima(dict(enumerate(x, 1)), rows, 2, 2)
        yb = bucket_maxima(dict(enumerate(y, 1)), rows, 2, 2)
        bound = F(1)
        for a, b in zip(ya, yb, strict=True):
            bound *= 1 + abs(a - b)  # eps = 1
        assert isinstance(ratio, Fraction) and ratio <= bound
        assert compare_exp(ratio, distance) <= 0
        worst = max(worst, ratio)
    # one bucket: a whole unit moved, exactly b/a = 1 + eps; two buckets: 1/2 in each, (3/2)^2
    assert worst == (F(9, 4) if values[0] != values[1] else 2)


def test_threshold2_for_a_replaced_row_states_its_group_delta() -> None:
    """Two counts move by one (one row replaced): the exact hockey-stick at (b/a)^2 is at
    most delta(t) (1 + b/a), the group delta ThresholdALP(contribution=2) states."""
    from finitedp.alp.combined import ThresholdALP
    from finitedp.alp.threshold import threshold2
    from finitedp.checker.measures import hockey_stick

    mech = ThresholdALP(2, 2, "1/3", k=2, contribution=2)  # eps_1 = 1: 1/2 per unit
    r = 1 / mech.noise.ratio
    assert compare_exp(r * r, mech.epsilon1) <= 0

    def run(x: tuple[int, int], rng):  # type: ignore[no-untyped-def]
        counts = {i + 1: v for i, v in enumerate(x) if v}
        return tuple(sorted(threshold2(counts, mech.noise, mech.t, 2, rng).items()))

    laws = {x: exact_distribution(run, x) for x in product(range(4), repeat=2)}
    worst = max(
        hockey_stick(laws[x], laws[(x[0] - 1, x[1] + 1)], r * r)
        for x in laws
        if x[0] >= 1 and x[1] <= 2
    )
    assert 0 < worst <= mech.privacy.delta <= F(1, 3)
