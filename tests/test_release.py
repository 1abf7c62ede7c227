"""PartialHistogram: immutable, hashable, ordered, a mapping, and JSON round trips."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finitedp import ParameterError
from finitedp.histograms.release import PartialHistogram

bins_strategy = st.dictionaries(st.integers(1, 2**70), st.integers(0, 10**6), max_size=20)


@given(bins_strategy)
def test_json_round_trip_and_mapping_laws(counts: dict[int, int]) -> None:
    h = PartialHistogram.from_counts(2**70, counts)
    assert PartialHistogram.from_json(h.to_json()) == h
    assert json.loads(h.to_json())["version"] == 1
    for x, c in counts.items():
        assert h[x] == c
    assert list(h) == sorted(x for x, c in counts.items() if c)
    assert hash(h) == hash(PartialHistogram.from_pairs(2**70, list(counts.items())[::-1]))


@given(bins_strategy, bins_strategy)
def test_order_is_total_and_consistent_with_equality(a: dict[int, int], b: dict[int, int]) -> None:
    x, y = PartialHistogram.from_counts(2**70, a), PartialHistogram.from_counts(2**70, b)
    assert (x == y) == (not x < y and not y < x)


def test_immutable_and_validated() -> None:
    h = PartialHistogram(5, ((1, 2),))
    with pytest.raises(AttributeError):
        h.bins = ()  # type: ignore[misc]
    with pytest.raises(ParameterError, match="increasing"):
        PartialHistogram(5, ((3, 1), (2, 1)))
    with pytest.raises(ParameterError, match="increasing"):
        PartialHistogram(5, ((6, 1),))
    with pytest.raises(ParameterError, match="positive"):
        PartialHistogram(5, ((2, 0),))
    with pytest.raises(KeyError):
        h[6]
    with pytest.raises(ParameterError, match="version"):
        PartialHistogram.from_json('{"type": "partial_histogram", "version": 99}')
    with pytest.raises(ParameterError, match="type"):
        PartialHistogram.from_json('{"type": "compact_histogram", "version": 1}')
