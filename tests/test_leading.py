"""Fixed-step searches over leading words: the same function as bisection, the same steps always.

The word comparison decides ``value < key`` except on a tie of words, where the
values decide; few-bit words make ties common, so these tests reach that branch.
"""

from __future__ import annotations

from bisect import bisect_left
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finitedp.checker.symbolic import explore
from finitedp.counting import FastSample, GeoSample
from finitedp.counting.leading import LeadingWords, fixed_lower_bound, schedule, steps_for
from finitedp.counting.mixedgeometric import MixedGeometric
from finitedp.counting.mixedsearch import BlockSearch
from finitedp.errors import ParameterError
from finitedp.oracle import RandomSource


def _expected(values: list[int], key: int, first: int, length: int) -> int:
    """The least position of the window below its last whose value reaches key, else the last."""
    return bisect_left(values, key, first, first + length - 1)


@pytest.mark.parametrize("bits", [1, 2, 3, 62])
def test_every_key_and_window_of_a_small_table_gives_bisection(bits: int) -> None:
    values = [-7, -7, -3, 0, 0, 0, 2, 5, 9, 9, 14]
    low, high = -9, 16
    table = LeadingWords(values, low=low, high=high, bits=bits)
    for first in range(len(values)):
        for length in range(2, len(values) - first + 2):  # the last may lie past the table
            for extra in (0, 2):
                steps = steps_for(length) + extra
                for key in range(low, high + 1):
                    got = table.lower_bound(key, first, length, steps)
                    assert got == _expected(values, key, first, length), (first, length, key)


@given(
    st.lists(st.integers(0, 2**300), min_size=1, max_size=40),
    st.integers(0, 2**300),
    st.integers(1, 8),
    st.data(),
)
def test_big_values_with_ties_give_bisection(
    raw: list[int], key: int, bits: int, data: st.DataObject
) -> None:
    values = sorted(raw)
    # Keys on, next to and between the values: the boundaries a search must get right.
    key = data.draw(st.sampled_from([key, *values, *(v + 1 for v in values), values[0] - 1]))
    key = max(key, 0)
    for b in (bits, 62):
        table = LeadingWords(values, low=0, high=2**300 + 1, bits=b)
        first = data.draw(st.integers(0, len(values) - 1))
        length = data.draw(st.integers(2, len(values) - first + 1))
        assert table.lower_bound(key, first, length, steps_for(length)) == _expected(
            values, key, first, length
        )


def test_the_questions_are_fixed_in_number_and_repeated_ones_ask_the_first() -> None:
    asked: list[int] = []

    def less(p: int) -> bool:
        asked.append(p)
        return p < 5  # the answer: position 5

    assert fixed_lower_bound(less, 3, 9, 6) == 5
    assert len(asked) == 6 and asked[4:] == [3, 3]  # two repeated questions, about `first`
    assert schedule(9, 6) == (4, 2, 1, 1, 0, 0)
    with pytest.raises(ParameterError, match="steps: got 2; a search over 5 positions needs 3"):
        schedule(5, 2)
    with pytest.raises(ParameterError, match="sorted"):
        LeadingWords([3, 1], low=0, high=4)
    with pytest.raises(ParameterError, match=r"lie in \[low, high\]"):
        LeadingWords([3, 9], low=0, high=4)
    with pytest.raises(ParameterError, match="bits"):
        LeadingWords([3], low=0, high=4, bits=63)


def test_a_symbolic_draw_meets_one_interval_per_answer_and_every_step() -> None:
    values = [3, 3, 8, 20, 21, 40]
    table = LeadingWords(values, low=0, high=50)

    def search(rng: RandomSource) -> int:
        return table.lower_bound(rng.uniform(45), 1, 6, 4)  # one step more than needed

    paths = explore(search)
    assert {p.comparisons[0] for p in paths} == {4}  # the repeated question is counted
    assert [(p.output, p.draws[0].lo, p.draws[0].hi) for p in paths] == [
        (1, 1, 3),
        (2, 4, 8),
        (3, 9, 20),
        (4, 21, 21),
        (5, 22, 40),
        (6, 41, 45),  # the last position: never read
    ]


class _Recorder:
    """A words array that records the positions read."""

    def __init__(self, words: object) -> None:
        self.words = words
        self.read: list[int] = []

    def __getitem__(self, p: int) -> int:
        self.read.append(p)
        return self.words[p]  # type: ignore[index,no-any-return]


def test_geosample_reads_the_same_number_of_words_for_every_draw() -> None:
    g = GeoSample(40, 1)
    table = g._build_tables()
    assert isinstance(table, LeadingWords)
    recorder = _Recorder(table._words)
    table._words = recorder  # type: ignore[assignment]
    # Draws inside their outputs' intervals: a draw equal to a CDF value shares its word
    # and is searched among the values (the rare path, tested with few-bit words above).
    for z in (0, 5, 20, 35, 40):
        u = (g.cdf(20, z - 1) + g.cdf(20, z)) // 2 + 1
        recorder.read.clear()
        assert g(20, u) == g.bisect_reference(20, u) == z
        assert len(recorder.read) == g.max_comparisons


def test_geosample_with_few_bit_words_is_the_reference_at_every_boundary() -> None:
    g = GeoSample(9, "1/3", noise="tight")
    table = g._build_tables()
    assert isinstance(table, LeadingWords)
    g._tables = LeadingWords(table.values, low=0, high=g.d, bits=4)  # ties everywhere
    assert g._tables.shift > 0
    for c in range(10):
        for z in range(10):
            f = g.cdf(c, z)
            for u in {max(1, f - 1), f, min(g.d, f + 1)}:
                assert g(c, u) == g.bisect_reference(c, u)


def test_fastsample_makes_the_same_steps_in_every_region() -> None:
    # n > 2t: draws left of c - t and right of c + t (the uniform's share) are answered
    # by a division, and still read the same words and divide the same number of times.
    sampler = FastSample(300, 1, "1/2")
    assert sampler.n > 2 * sampler.t
    table = sampler._table
    assert isinstance(table, LeadingWords)
    recorder = _Recorder(table._words)
    table._words = recorder  # type: ignore[assignment]
    c = 150
    outputs = set()
    for z in (0, c - sampler.t - 1, c - 3, c, c + 3, c + sampler.t, 299, 300):
        lo, hi = sampler.cdf(c, z - 1), sampler.cdf(c, z)
        for u in (lo + (hi - lo) // 3, hi - (hi - lo) // 3):  # inside: no tie of words
            recorder.read.clear()
            z_found = sampler(c, u)
            assert len(recorder.read) == sampler._steps
            assert z_found == sampler.bisect_reference(c, u) == z
            outputs.add(z_found)
    assert len(outputs) == 8


def test_fastsample_symbolic_paths_near_the_edges_are_intervals() -> None:
    # Near an edge the window is shorter than the steps: the repeated questions ask
    # about its first position, which the earlier steps decided.
    from finitedp.checker.counting import is_inverse_cdf, sampler_paths

    sampler = FastSample(30, 2, "1/4", noise="tight")
    assert sampler.n > 2 * sampler.t
    for c in (0, 1, sampler.t, 15, 30):
        paths = sampler_paths(sampler, c)
        assert is_inverse_cdf(sampler, c, paths)
        assert max(p.comparisons[0] for p in paths) <= sampler.max_comparisons
        assert sum(p.probability for p in paths) == Fraction(1)


def test_mixed_geometric_makes_the_same_steps_in_every_region(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # gamma = 1/2: half the draws are the uniform's, most of them outside the noise.
    noise = MixedGeometric(1, 2, 0, 40, gamma_bits=1)
    search = noise._searcher()
    steps: list[int] = []
    original = BlockSearch.step_value

    def counted(self: BlockSearch, j: int) -> object:
        steps.append(j)
        return original(self, j)

    monkeypatch.setattr(BlockSearch, "step_value", counted)
    recorder = _Recorder(search._words._words)
    search._words._words = recorder  # type: ignore[assignment]
    value = 20
    first, last = noise.outputs
    for o in (first, value - noise.t - 1, value - 2, value, value + noise.t, last):
        lo, hi = noise.cdf(value, o - 1), noise.cdf(value, o)
        for u in (lo + (hi - lo) // 3, hi - (hi - lo) // 3):  # inside: no tie of words
            recorder.read.clear()
            steps.clear()
            assert noise(value, u) == o
            assert len(recorder.read) == search._outer
            assert len(steps) == search._inner
