"""DistinctSample (BV Alg A.3, Lemma A.1), exactly."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finitedp import ParameterError, SeededSource
from finitedp.checker import exact_distribution, explore
from finitedp.histograms.distinct import distinct_sample


@pytest.mark.parametrize(
    ("excluded", "m", "r"), [((), 4, 2), ((2, 4), 6, 3), ((1, 5), 5, 3), ((), 3, 3)]
)
def test_lemma_a_1_uniform_over_sequences(excluded: tuple[int, ...], m: int, r: int) -> None:
    free = [x for x in range(1, m + 1) if x not in excluded]
    dist = exact_distribution(distinct_sample, excluded, m, r)
    expected = set(permutations(free, r))
    assert set(dist) == expected
    assert set(dist.values()) == {Fraction(1, len(expected))}


def test_draw_domains_are_public() -> None:
    # The i-th draw is uniform in [1, m - |A| - i], whatever the outcomes.
    paths = explore(distinct_sample, (3, 7), 9, 3)
    assert {tuple(d.d for d in p.draws) for p in paths} == {(7, 6, 5)}


@given(st.sets(st.integers(1, 2**64), max_size=30), st.integers(0, 30), st.binary(max_size=8))
def test_large_universe(excluded: set[int], r: int, seed: bytes) -> None:
    out = distinct_sample(excluded, 2**64, r, SeededSource(seed))
    assert len(set(out)) == r and not set(out) & excluded
    assert all(1 <= x <= 2**64 for x in out)


def test_errors() -> None:
    with pytest.raises(ParameterError, match=r"r: got 3"):
        distinct_sample([1], 3, 3)
    with pytest.raises(ParameterError, match="excluded"):
        distinct_sample([0], 3, 1)


@given(
    st.integers(min_value=1, max_value=80).flatmap(
        lambda m: st.tuples(
            st.just(m), st.sets(st.integers(min_value=1, max_value=m), max_size=m - 1)
        )
    ),
    st.data(),
)
def test_the_free_element_is_the_searched_one(
    case: tuple[int, set[int]], data: st.DataObject
) -> None:
    """``_select_free`` computes the z-th free element from the ranks of the taken ones;
    BV Alg A.3 step 3c's search over ``X`` gives the same element, for plain and for
    symbolic draws (the checker's path compares only)."""
    from sortedcontainers import SortedList

    from finitedp.histograms.distinct import _select_free

    m, taken = case
    ordered = SortedList(taken)
    free = [x for x in range(1, m + 1) if x not in taken]
    z = data.draw(st.integers(min_value=1, max_value=len(free)))
    assert _select_free(ordered, m, z) == free[z - 1]


def test_a_huge_universe_costs_no_search_over_it() -> None:
    """A 524,289-bit universe (one 60 KB key): DistinctSample's elements come from the
    ranks of the taken ones, not from 524,289 steps of bisection each."""
    m = 1 << 524_288
    chosen = distinct_sample([5, m], m, 3, SeededSource(b"huge"))
    assert len(set(chosen)) == 3 and all(1 <= x <= m and x not in (5, m) for x in chosen)
