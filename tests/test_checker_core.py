"""Tests of the exact checker core: symbolic enumeration and exact measures."""

from __future__ import annotations

import bisect
import copy
import dataclasses
import itertools
import operator
import pickle
import random
from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import Any

import gmpy2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from work import calls_made

from finitedp.checker import (
    INFINITY,
    EnumeratingSource,
    ExplorationError,
    Infinity,
    Path,
    SymbolicDraw,
    exact_distribution,
    explore,
    hockey_stick,
    is_distribution,
    iter_paths,
    max_privacy_ratio,
    max_ratio,
    privacy_ratio,
    statistical_distance,
)
from finitedp.errors import (
    CheckerLimitError,
    FiniteDPError,
    FloatParameterError,
    OracleError,
    ParameterError,
)
from finitedp.oracle import ReplaySource, draw

F = Fraction

# -- brute force: run fn on every tape of concrete draws ---------------------


class _NeedDraw(Exception):
    def __init__(self, d: int) -> None:
        self.d = d


class _TapeSource:
    """Answers from a tape of values; asks for one more draw when it runs out."""

    def __init__(self, tape: list[int]) -> None:
        self.tape = tape
        self.position = 0
        self.domains: list[int] = []

    def uniform(self, d: int) -> int:
        if self.position == len(self.tape):
            raise _NeedDraw(d)
        self.domains.append(d)
        self.position += 1
        return self.tape[self.position - 1]


def brute_force(fn: Callable[..., Hashable], *args: Any) -> dict[Hashable, Fraction]:
    """The output distribution by running fn on every sequence of concrete draws."""
    dist: dict[Hashable, Fraction] = {}
    stack: list[tuple[list[int], Fraction]] = [([], F(1))]
    while stack:
        tape, weight = stack.pop()
        try:
            output = fn(*args, rng=_TapeSource(tape))
        except _NeedDraw as need:
            stack.extend(([*tape, u], weight / need.d) for u in range(1, need.d + 1))
            continue
        dist[output] = dist.get(output, F(0)) + weight
    return dist


def replay(fn: Callable[..., Hashable], tape: tuple[int, ...], *args: Any) -> Hashable:
    return fn(*args, rng=_TapeSource(list(tape)))


def check_paths_against_replay(fn: Callable[..., Hashable], paths: list[Path[Any]]) -> None:
    """Every draw tuple in each path's box must give the path's output and domains."""
    for path in paths:
        boxes = [range(r.lo, r.hi + 1) for r in path.draws]
        for tape in itertools.product(*boxes):
            source = _TapeSource(list(tape))
            assert fn(rng=source) == path.output
            assert source.domains == [r.d for r in path.draws]


# -- toy functions -----------------------------------------------------------


def coin(rng: Any) -> bool:
    return bool(rng.uniform(6) <= 2)


def two_draws(rng: Any) -> tuple[bool, bool]:
    u = rng.uniform(6)
    v = rng.uniform(4)
    return bool(u <= 2), bool(v > 3)


def dependent_domain(rng: Any) -> tuple[bool, bool]:
    u = rng.uniform(3)
    v = rng.uniform(2) if u == 1 else rng.uniform(5)
    return bool(u == 1), bool(v <= 1)


def combo(ds: list[int], ts: list[int], ks: list[int], qs: list[int], *, rng: Any) -> int:
    """Comparisons, offsets, views of views and divmod over up to 3 draws."""
    total, previous = 0, False
    for i, d in enumerate(ds):
        u = rng.uniform(d + int(previous))
        v = u + ks[i]
        w = (ks[i] + v) - ts[i]
        q, r = divmod(w, qs[i])
        previous = bool(r < ts[i] % qs[i])
        total = total * 97 + 11 * q + 3 * int(previous) + int(v == ts[i]) + 5 * int(u // 2 >= 2)
        total += 7 * int(w % qs[i] != 1)
    return total


# -- symbolic enumeration ----------------------------------------------------


def test_coin() -> None:
    assert exact_distribution(coin) == {True: F(1, 3), False: F(2, 3)}
    paths = explore(coin)
    assert [(p.draws[0].lo, p.draws[0].hi) for p in paths] == [(1, 2), (3, 6)]
    assert all(p.comparisons == (1,) and p.divisions == (0,) for p in paths)
    assert [p.probability for p in paths] == [F(1, 3), F(2, 3)]


def test_decided_comparison_does_not_branch() -> None:
    def f(rng: Any) -> tuple[bool, bool, bool]:
        u = rng.uniform(6)
        return bool(u <= 6), bool(u > 0), bool(u == 7)

    (path,) = explore(f)
    assert path.output == (True, True, False)
    assert path.comparisons == (3,)
    assert path.probability == 1


def test_two_draws() -> None:
    expected = {
        (True, True): F(1, 12),
        (True, False): F(3, 12),
        (False, True): F(2, 12),
        (False, False): F(6, 12),
    }
    assert exact_distribution(two_draws) == expected
    assert exact_distribution(two_draws) == brute_force(two_draws)


def test_domain_depending_on_earlier_draw() -> None:
    expected = {
        (True, True): F(1, 3) * F(1, 2),
        (True, False): F(1, 3) * F(1, 2),
        (False, True): F(2, 3) * F(1, 5),
        (False, False): F(2, 3) * F(4, 5),
    }
    assert exact_distribution(dependent_domain) == expected
    paths = explore(dependent_domain)
    assert {tuple(r.d for r in p.draws) for p in paths} == {(3, 2), (3, 5)}
    check_paths_against_replay(dependent_domain, paths)


def test_symbolic_domain_is_concretized() -> None:
    def f(rng: Any) -> bool:
        u = rng.uniform(3)
        return bool(rng.uniform(u + 1) == 1)

    assert exact_distribution(f) == brute_force(f)
    assert exact_distribution(f)[True] == F(1, 3) * (F(1, 2) + F(1, 3) + F(1, 4))


def _thresholds(d: int, count: int) -> list[int]:
    generator = random.Random(2024)
    return sorted({generator.randrange(1, d) for _ in range(count)})


def test_bisect_over_2000_bit_domain() -> None:
    d = 2**2000 + 12345
    a = _thresholds(d, 199)
    dist: dict[int, F] = {}
    error, calls = calls_made(
        lambda: dist.update(exact_distribution(lambda rng: bisect.bisect_left(a, rng.uniform(d))))
    )
    # bisect_left returns #{t < u}: output i iff a[i-1] < u <= a[i].
    edges = [0, *a, d]
    assert error is None and dist == {i: F(edges[i + 1] - edges[i], d) for i in range(200)}
    # Work linear in the paths (200 paths of 8 comparisons), whatever d's 2000 bits.
    assert calls < 200 * 8 * 60, calls


def test_manual_binary_search_counts_comparisons() -> None:
    d = 2**2000
    a = _thresholds(d, 199)

    def search(rng: Any) -> int:
        u = rng.uniform(d)
        lo, hi = 0, len(a)
        while lo < hi:
            mid = (lo + hi) // 2
            if u <= a[mid]:
                hi = mid
            else:
                lo = mid + 1
        return lo

    paths = explore(search)
    assert len(paths) == 200
    assert all(1 <= p.comparisons[0] <= 8 for p in paths)
    assert all(p.concretizations == (0,) for p in paths)
    edges = [0, *a, d]
    for p in paths:
        record = p.draws[0]
        assert (record.lo, record.hi) == (edges[p.output] + 1, edges[p.output + 1])
        assert p.probability == F(record.size, d)


def test_bisect_and_reflected_comparisons_with_mpz() -> None:
    d = gmpy2.mpz(2) ** 300
    a = [gmpy2.mpz(t) for t in _thresholds(int(d), 9)]

    def f(rng: Any) -> tuple[int, bool, bool]:
        u = rng.uniform(d)
        shifted = gmpy2.mpz(5) + u
        return bisect.bisect_left(a, u), bool(gmpy2.mpz(a[4]) < u), bool(shifted > a[4] + 5)

    dist = exact_distribution(f)
    edges = [0, *map(int, a), int(d)]
    assert dist == {(i, i > 4, i > 4): F(edges[i + 1] - edges[i], int(d)) for i in range(10)}
    assert all(p.concretizations == (0,) for p in explore(f))


def test_offsets_and_views_of_views() -> None:
    def f(rng: Any) -> tuple[bool, bool, bool, bool]:
        u = rng.uniform(10)
        v = 10 + u
        w = (v - 3) + 1
        if isinstance(u, SymbolicDraw):  # not under brute force
            assert isinstance(w, SymbolicDraw) and w.offset == 8
        return bool(u + 10 <= 12), bool(v == 15), bool(w >= 17), bool(u - 1 < w - 9)

    assert exact_distribution(f) == brute_force(f)
    assert exact_distribution(f)[(False, True, False, False)] == F(1, 10)


def test_same_draw_comparison_is_decided() -> None:
    def f(rng: Any) -> tuple[bool, bool]:
        u = rng.uniform(2**500)
        return bool(u < u + 1), bool(u + 2 == 2 + u)

    (path,) = explore(f)
    assert path.output == (True, True)
    assert path.concretizations == (0,)


def test_rational_comparisons_stay_symbolic() -> None:
    d = 2**1000

    def f(rng: Any) -> tuple[bool, bool, bool]:
        u = rng.uniform(d)
        return bool(u < F(7, 2)), bool(u <= gmpy2.mpq(7, 2)), bool(u == F(1, 2))

    assert exact_distribution(f) == {
        (True, True, False): F(3, d),
        (False, False, False): 1 - F(3, d),
    }


def test_equality_branches_below_equal_above() -> None:
    paths = explore(lambda rng: rng.uniform(6) == 3)
    assert [(p.draws[0].lo, p.draws[0].hi) for p in paths] == [(1, 2), (3, 3), (4, 6)]
    assert exact_distribution(lambda rng: rng.uniform(6) != 3) == {True: F(5, 6), False: F(1, 6)}


def test_divmod_and_mod() -> None:
    def f(rng: Any) -> tuple[int, bool, bool]:
        u = rng.uniform(10)
        q, r = divmod(u + 1, 3)
        m = u % 4
        if isinstance(u, SymbolicDraw):  # not under brute force
            assert isinstance(r, SymbolicDraw) and isinstance(m, SymbolicDraw)
        return q, bool(r == 0), bool(m <= 1)

    assert exact_distribution(f) == brute_force(f)
    assert all(p.divisions == (2,) and p.concretizations == (0,) for p in explore(f))


def test_division_of_huge_domain() -> None:
    d = 2**2000
    dist = exact_distribution(lambda rng: (rng.uniform(d) - 1) // (d // 8))
    assert dist == {q: F(1, 8) for q in range(8)}


def test_division_with_too_many_quotients() -> None:
    with pytest.raises(CheckerLimitError, match="limit = 1000"):
        explore(lambda rng: rng.uniform(2**100) // 3, limit=1000)


def test_concretization_of_small_draw() -> None:
    dist = exact_distribution(lambda rng: rng.uniform(4) * rng.uniform(4))
    assert dist == brute_force(lambda rng: rng.uniform(4) * rng.uniform(4))
    assert dist[4] == F(3, 16)
    squares = explore(lambda rng: (lambda u: u * u)(rng.uniform(5)))
    assert sorted(p.output for p in squares) == [1, 4, 9, 16, 25]
    # u * u concretizes the left operand, then int * u the right one: two uses.
    assert all(p.concretizations == (2,) for p in squares)


def test_concretization_limit() -> None:
    with pytest.raises(CheckerLimitError) as info:
        explore(lambda rng: rng.uniform(2**100) * 2)
    message = str(info.value)
    assert "limit = 1000000" in message
    assert "101-bit integer" in message  # the interval size, 2**100
    assert "only compare draws with integers" in message


def test_other_uses_concretize() -> None:
    table = ["a", "b", "c"]

    def f(rng: Any) -> tuple[Any, ...]:
        u = rng.uniform(3)
        return (
            int(u),
            operator.index(u),
            hash(u),
            str(u),
            table[u - 1],
            bool(u - 1),
            u + F(1, 2),
            -u,
            u**2,
            f"{u:03d}",
        )

    assert exact_distribution(f) == brute_force(f)


def test_comparing_two_draws() -> None:
    def f(rng: Any) -> bool:
        return bool(rng.uniform(4) < rng.uniform(4))

    assert exact_distribution(f) == {True: F(6, 16), False: F(10, 16)}


def test_returned_draws_are_settled() -> None:
    assert exact_distribution(lambda rng: rng.uniform(3)) == {i: F(1, 3) for i in (1, 2, 3)}
    dist = exact_distribution(lambda rng: (rng.uniform(2), [rng.uniform(2)][0] <= 1))
    assert dist == {
        (1, True): F(1, 4),
        (1, False): F(1, 4),
        (2, True): F(1, 4),
        (2, False): F(1, 4),
    }


def test_oracle_draw_accepts_symbolic_draws() -> None:
    assert exact_distribution(lambda rng: draw(rng, 6) <= 3) == {True: F(1, 2), False: F(1, 2)}


def test_arguments_are_passed() -> None:
    def f(x: int, *, rng: Any, y: int) -> bool:
        return bool(rng.uniform(10) <= x + y)

    assert exact_distribution(f, 2, y=3) == {True: F(1, 2), False: F(1, 2)}
    with pytest.raises(ParameterError):
        explore(f, 2, y=3, rng=None)
    with pytest.raises(ParameterError):
        explore(f, 2, y=3, limit=0)


def test_leaf_limit() -> None:
    def rejection(rng: Any) -> int:
        while True:
            u = rng.uniform(3)
            if u <= 2:
                return int(u)

    with pytest.raises(CheckerLimitError, match="limit = 50"):
        explore(rejection, limit=50)


def test_iter_paths_streams_the_leaves_of_explore() -> None:
    def two_draws(rng: Any) -> tuple[bool, bool]:
        return rng.uniform(6) <= 2, rng.uniform(10**40) <= 10**39

    streamed = iter_paths(two_draws)
    first = next(streamed)  # one run, not the whole tree
    assert [first, *streamed] == explore(two_draws)
    exactly_fifty = iter_paths(lambda rng: rng.uniform(50) <= 0 or int(rng.uniform(50)), limit=50)
    assert len(list(exactly_fifty)) == 50
    with pytest.raises(CheckerLimitError, match="limit = 49"):
        list(iter_paths(lambda rng: int(rng.uniform(50)), limit=49))


def test_iter_paths_checks_the_total_after_the_last_leaf(monkeypatch: pytest.MonkeyPatch) -> None:
    # A checker bug that lost mass must be reported at the end of the stream.
    import finitedp.checker.symbolic as symbolic

    original = symbolic._leaf

    def lossy(output: Any, draws: Any) -> Any:
        path = original(output, draws)
        return dataclasses.replace(path, probability=path.probability / 2)

    monkeypatch.setattr(symbolic, "_leaf", lossy)
    with pytest.raises(ExplorationError, match="sum to 1/2"):
        list(iter_paths(lambda rng: rng.uniform(4) <= 1))


def test_nondeterminism_is_detected() -> None:
    calls = [0]

    def f(rng: Any) -> bool:
        calls[0] += 1
        u = rng.uniform(10)
        return bool(u <= 5) if calls[0] == 1 else bool(u == 5)

    with pytest.raises(ExplorationError, match="deterministic"):
        explore(f)


def test_stale_draw_is_refused() -> None:
    kept: list[Any] = []

    def f(rng: Any) -> int:
        kept.append(rng.uniform(4))
        return 0

    explore(f)
    assert "restricted to [1, 4]" in repr(kept[0])
    with pytest.raises(ExplorationError, match="after the run"):
        _ = kept[0] < 2


def test_bad_domains() -> None:
    source = EnumeratingSource()
    for bad in (0, -3, F(1, 2), "6", True):
        with pytest.raises(OracleError):
            source.uniform(bad)  # type: ignore[arg-type]


def test_unhashable_output() -> None:
    with pytest.raises(TypeError, match="unhashable"):
        exact_distribution(lambda rng: [rng.uniform(2)])  # type: ignore[type-var]


def test_errors_are_in_the_family() -> None:
    assert issubclass(ExplorationError, FiniteDPError)
    assert issubclass(CheckerLimitError, ValueError)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 3).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(1, 7), min_size=n, max_size=n),
            st.lists(st.integers(-2, 9), min_size=n, max_size=n),
            st.lists(st.integers(-3, 4), min_size=n, max_size=n),
            st.lists(st.integers(1, 4), min_size=n, max_size=n),
        )
    )
)
def test_matches_brute_force(params: tuple[list[int], list[int], list[int], list[int]]) -> None:
    ds, ts, ks, qs = params
    paths = explore(combo, ds, ts, ks, qs)
    assert sum(p.probability for p in paths) == 1
    assert exact_distribution(combo, ds, ts, ks, qs) == brute_force(combo, ds, ts, ks, qs)
    check_paths_against_replay(lambda rng: combo(ds, ts, ks, qs, rng=rng), paths)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=8), st.integers(1, 40))
def test_thresholds_match_replay_source(thresholds: list[int], d: int) -> None:
    def f(rng: Any) -> int:
        return sum(int(rng.uniform(d) <= t) for t in thresholds[:1]) + bisect.bisect_right(
            sorted(thresholds), rng.uniform(d)
        )

    dist = exact_distribution(f)
    by_replay: dict[int, Fraction] = {}
    for u, v in itertools.product(range(1, d + 1), repeat=2):
        out = f(rng=ReplaySource([(d, u), (d, v)]))
        by_replay[out] = by_replay.get(out, F(0)) + F(1, d * d)
    assert dist == by_replay


# -- measures ----------------------------------------------------------------

P = {"a": F(1, 2), "b": F(1, 2)}
Q = {"a": F(1, 4), "b": F(3, 4)}


def test_measures_by_hand() -> None:
    assert statistical_distance(P, Q) == F(1, 4)
    assert max_ratio(P, Q) == 2
    assert max_ratio(Q, P) == F(3, 2)
    assert privacy_ratio(P, Q) == 2
    assert hockey_stick(P, Q, F(3, 2)) == F(1, 8)
    assert hockey_stick(P, Q, F(2)) == 0
    assert hockey_stick(P, Q, F(1)) == F(1, 4)
    assert statistical_distance(P, {"c": F(1)}) == 1
    assert max_ratio(P, {"a": F(1)}) is INFINITY
    assert privacy_ratio({"a": F(1)}, P) is INFINITY
    assert max_ratio({}, P) == 0


def test_infinity() -> None:
    assert Infinity() is INFINITY
    assert repr(INFINITY) == "INFINITY"
    # Both operand orders on purpose: the reflected ones go through Infinity's methods too.
    for big in (F(10**100), 5, gmpy2.mpz(3), gmpy2.mpq(7, 2)):
        assert operator.gt(INFINITY, big) and operator.ge(INFINITY, big)
        assert not operator.lt(INFINITY, big) and not operator.le(INFINITY, big)
        assert operator.lt(big, INFINITY) and operator.le(big, INFINITY)
        assert operator.ne(INFINITY, big) and operator.ne(big, INFINITY)
    assert INFINITY == INFINITY and INFINITY >= INFINITY and INFINITY <= INFINITY
    assert not INFINITY > INFINITY and not INFINITY < INFINITY
    assert operator.ne(INFINITY, "inf")
    assert pickle.loads(pickle.dumps(INFINITY)) is INFINITY
    assert copy.deepcopy(INFINITY) is INFINITY
    assert max(F(2), INFINITY, F(3)) is INFINITY
    with pytest.raises(TypeError):
        _ = INFINITY < "x"


def test_max_privacy_ratio() -> None:
    dists = [P, Q, {"a": F(1)}]
    assert max_privacy_ratio(dists, [(0, 1)]) == (F(2), (0, 1))
    assert max_privacy_ratio(dists, [(1, 0)]) == (F(2), (0, 1))
    assert max_privacy_ratio(dists, [(0, 1), (1, 2)]) == (INFINITY, (1, 2))
    assert max_privacy_ratio({"x": P, "y": Q}, [("y", "x")]) == (F(2), ("x", "y"))
    with pytest.raises(ParameterError, match="no pairs"):
        max_privacy_ratio(dists, [])
    with pytest.raises(ParameterError, match="index 7"):
        max_privacy_ratio(dists, [(0, 7)])


def test_measures_validate() -> None:
    with pytest.raises(ParameterError):
        statistical_distance({"a": F(-1, 2)}, P)
    with pytest.raises(ValueError):
        hockey_stick(P, {"a": F(3, 2)}, F(1))
    with pytest.raises(FloatParameterError):
        max_ratio({"a": 0.5}, P)  # type: ignore[dict-item]
    with pytest.raises(ParameterError):
        hockey_stick(P, Q, F(-1))
    with pytest.raises(FloatParameterError):
        hockey_stick(P, Q, 1.5)  # type: ignore[arg-type]


def test_is_distribution() -> None:
    assert is_distribution(P) and is_distribution({0: 1}) and is_distribution({0: gmpy2.mpq(1)})
    assert not is_distribution({"a": F(1, 2)})
    assert not is_distribution({"a": F(0), "b": F(1)})
    assert not is_distribution({"a": 0.5, "b": 0.5})
    assert not is_distribution({"a": True})
    assert not is_distribution([F(1)])
    assert not is_distribution({"a": F(3, 2), "b": F(-1, 2)})


@st.composite
def distributions(draw_: st.DrawFn) -> dict[int, Fraction]:
    weights = draw_(st.lists(st.integers(0, 20), min_size=1, max_size=6))
    if sum(weights) == 0:
        weights[0] = 1
    total = sum(weights)
    return {o: F(w, total) for o, w in enumerate(weights) if w}


@given(distributions(), distributions())
def test_statistical_distance_laws(p: dict[int, Fraction], q: dict[int, Fraction]) -> None:
    sd = statistical_distance(p, q)
    assert sd == statistical_distance(q, p)
    assert 0 <= sd <= 1
    assert (sd == 0) == (p == q)
    assert statistical_distance(p, p) == 0
    assert hockey_stick(p, q, F(1)) == sd


@given(distributions(), distributions(), st.fractions(1, 10), st.fractions(1, 10))
def test_hockey_stick_decreasing(
    p: dict[int, Fraction], q: dict[int, Fraction], a: Fraction, b: Fraction
) -> None:
    low, high = min(a, b), max(a, b)
    assert hockey_stick(p, q, low) >= hockey_stick(p, q, high) >= 0


@given(distributions(), distributions())
def test_privacy_ratio_laws(p: dict[int, Fraction], q: dict[int, Fraction]) -> None:
    assert is_distribution(p) and is_distribution(q)
    r = privacy_ratio(p, q)
    assert r >= 1
    assert (r == 1) == (p == q)
    if isinstance(r, Fraction):
        # Pure r-DP between the pair: no delta is needed at e^eps = r, and every event obeys it.
        assert hockey_stick(p, q, r) == 0 and hockey_stick(q, p, r) == 0
        for size in range(len(p) + 1):
            for event in itertools.combinations(p, size):
                p_event = sum((p[o] for o in event), F(0))
                assert p_event <= r * sum((q.get(o, 0) for o in event), F(0))
    else:
        assert set(p) != set(q)
