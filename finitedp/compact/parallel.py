"""Sharing exact work among forked processes (results never depend on the split).

Large compact releases spend seconds in independent big-integer products; on a
machine with several CPUs they run in forked worker processes.  Forking matters:
the workers inherit the parent's state (subproduct trees, releases) instead of
receiving it pickled, so the state is put in :data:`SHARED` before the pool
starts and read back by the task functions.  Every task is a pure function of
that state and its argument, so the output is the same for any number of
workers (the tests check this).

A forked worker never writes to or flushes the parent's ``stdout``/``stderr``:
another thread (the command line's progress display) may have held their
internal locks at the moment of the fork, and flushing them at the worker's
exit would then wait forever (CPython issue 91776).  Each worker replaces them
with ``os.devnull`` first (:func:`_detach_std_streams`).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from ..errors import ParameterError

__all__ = ["SHARED", "fork_map", "worker_count"]

_T = TypeVar("_T")
_R = TypeVar("_R")

#: State handed to forked workers by inheritance (set just before :func:`fork_map`).
SHARED: dict[str, Any] = {}

# The parent's streams, kept alive in a worker: deallocating them would flush them.
_DETACHED: list[object] = []


def _detach_std_streams() -> None:
    """In a forked worker: put ``os.devnull`` in place of the inherited stdout and stderr."""
    _DETACHED.extend([sys.stdout, sys.stderr])
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the worker
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115


def worker_count(workers: int | None, size: int, threshold: int) -> int:
    """The processes to use: ``workers`` if given, else 2 for ``size >= threshold`` on 2+ CPUs.

    Raises:
        ParameterError: ``workers`` is not a positive int or None.
    """
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ParameterError(f"workers: got {workers!r}; it must be a positive int or None")
        return workers
    forking = "fork" in multiprocessing.get_all_start_methods()
    return 2 if forking and size >= threshold and (os.cpu_count() or 1) >= 2 else 1


def fork_map(fn: Callable[[_T], _R], items: Sequence[_T], workers: int) -> list[_R]:
    """``[fn(item) for item in items]``, in ``workers`` forked processes when ``workers > 1``.

    ``fn`` must be a module-level function; it may read :data:`SHARED`.  Items are
    handed out one at a time, in order, so put the largest first.
    """
    if workers <= 1 or len(items) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [fn(item) for item in items]
    context = multiprocessing.get_context("fork")
    count = min(workers, len(items))
    with ProcessPoolExecutor(count, context, initializer=_detach_std_streams) as pool:
        return list(pool.map(fn, items, chunksize=1))
