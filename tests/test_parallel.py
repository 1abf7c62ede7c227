"""fork_map: same results for any number of workers; workers never touch the parent's streams."""

from __future__ import annotations

import os
import sys

import pytest

from finitedp.compact.parallel import SHARED, fork_map, worker_count
from finitedp.errors import ParameterError


def _square_plus_shared(x: int) -> int:
    return x * x + SHARED.get("offset", 0)


def _stream_names(_: int) -> tuple[str, str]:
    return (getattr(sys.stdout, "name", ""), getattr(sys.stderr, "name", ""))


def test_fork_map_equals_map_for_any_number_of_workers() -> None:
    SHARED["offset"] = 7  # inherited by the forked workers
    try:
        expected = [x * x + 7 for x in range(20)]
        assert all(fork_map(_square_plus_shared, list(range(20)), w) == expected for w in (1, 2, 3))
    finally:
        SHARED.pop("offset")


def test_forked_workers_write_to_devnull() -> None:
    # A worker that flushed the parent's stderr could hang (CPython issue 91776).
    assert fork_map(_stream_names, [1, 2], 2) == [(os.devnull, os.devnull)] * 2
    assert _stream_names(0) != (os.devnull, os.devnull)  # the parent keeps its streams


def test_worker_count() -> None:
    assert worker_count(3, 0, 10) == 3
    assert worker_count(None, 5, 10) == 1
    assert worker_count(None, 10, 10) in (1, 2)
    for bad in (0, -1, True, "2"):
        with pytest.raises(ParameterError, match="workers"):
            worker_count(bad, 1, 1)  # type: ignore[arg-type]
