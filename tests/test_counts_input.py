"""Counts as input: every user-level histogram mechanism takes ``{value: count}`` as well as rows.

The law pinned here: for the same dataset, the histogram and the rows (in any
order) give the same release and the same oracle calls (domains and answers),
for every registry entry whose ``n`` is public (the stream mechanisms read the
rows in order, so they take rows only).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from finitedp.entries import MechanismEntry, ReleaseParameters
from finitedp.errors import ParameterError, ParameterTypeError
from finitedp.histograms import BoundedGeometricHistogram
from finitedp.histograms.dataset import dataset_counts
from finitedp.oracle import RecordingSource, SeededSource
from finitedp.registry import MECHANISMS

HISTOGRAM_ENTRIES = [entry for entry in MECHANISMS.values() if entry.public_n]


def _build(entry: MechanismEntry, n: int, m: int) -> Any:
    options = {
        o.name: (o.example if o.required else None)
        for o in entry.release_options
        if o.kind != "flag"
    }
    options.update({o.name: None for o in entry.release_options if o.kind == "flag"})
    return entry.build(n, m, ReleaseParameters("1", "1/10", "geo", options))


@pytest.mark.parametrize("entry", HISTOGRAM_ENTRIES, ids=lambda e: e.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_counts_and_rows_give_the_same_release_and_tape(entry: MechanismEntry, seed: int) -> None:
    rng = random.Random(seed)
    n, m = 30, 100
    rows = [rng.choice([3, 3, 7, 11, 100]) for _ in range(n)]
    mech = _build(entry, n, m)
    shuffled = rows[:]
    rng.shuffle(shuffled)
    histogram = dict(Counter(rows))
    releases, tapes = [], []
    for data in (rows, shuffled, histogram, dict(reversed(list(histogram.items())))):
        recorder = RecordingSource(SeededSource(bytes([seed])))
        releases.append(mech.release(data, rng=recorder))
        tapes.append(recorder.tape)
    assert all(r == releases[0] for r in releases), entry.name
    assert all(t == tapes[0] for t in tapes), entry.name


def test_counts_are_validated() -> None:
    mech = BoundedGeometricHistogram(3, 5, 1, "1/10")
    with pytest.raises(ParameterError, match="sum to 4; the mechanism is for n = 3"):
        mech.release({1: 2, 2: 2})
    with pytest.raises(ParameterError, match=r"data\[2\]: got 0"):
        mech.release({1: 3, 2: 0})
    with pytest.raises(ParameterError, match="universe"):
        mech.release({6: 3})
    with pytest.raises(ParameterTypeError, match="a count must be an int"):
        mech.release({1: 3.0})
    with pytest.raises(ParameterTypeError):
        mech.release({True: 3})
    assert dataset_counts({5: 1, 2: 2}, 3, 5) == {2: 2, 5: 1}
    assert list(dataset_counts({5: 1, 2: 2}, 3, 5)) == [2, 5]  # increasing in x
