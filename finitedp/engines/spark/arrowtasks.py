"""The functions Spark's executors run over Arrow batches of a partition (``mapInArrow``).

Paper: Lebeda thesis Alg 17 (PLAN's row statistics: ``proofs_notes/plan.md``).

Each is a closure over public values (grids, the centre, the scales, the radii) that
:class:`~finitedp.engines.spark.rows.SparkRows` hands to ``mapInArrow``: the
partition's rows are read as ``int64`` grid indices and answered in numpy, exactly
(every product and sum is bounded first), so one Spark job replaces a pass of Spark SQL
over ``decimal(38, 0)`` values.  Nothing here touches the driver's state.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

__all__ = [
    "DENSE_POINTS",
    "level_histograms",
    "norm_levels",
    "norm_words",
    "rows_beyond",
    "summaries",
    "within_sums",
]


#: Grids of at most this many points take the one-pass summary (dense counts per partition).
DENSE_POINTS = 1 << 16


def summaries(units: Sequence[int]) -> Any:
    """The function ``mapInArrow`` runs on each partition of the indices ``k0, ...``: its
    size, first and last rows, each column's counts, and each column's raw gap counts for
    the pairs starting at even and at odd positions within it (which are the file's pairs
    depends on the partition's offset, known on the driver), pickled in one record."""

    def summarise(batches: Iterator[Any]) -> Iterator[Any]:
        import pickle

        import pyarrow as pa
        from pyspark import TaskContext

        d = len(units)
        counts = [np.zeros(u + 1, np.int64) for u in units]
        gaps = [[np.zeros(u + 1, np.int64) for u in units] for _ in (0, 1)]
        size, bad = 0, False
        first: list[int] | None = None
        last: list[int] | None = None
        for batch in batches:
            if batch.num_rows == 0:
                continue
            if any(batch.column(i).null_count for i in range(d)):
                bad = True  # the driver asks again the way that names the value
                break
            columns = [np.asarray(batch.column(i).to_numpy(), dtype=np.int64) for i in range(d)]
            within = zip(columns, units, strict=True)
            if any(int(c.min()) < 0 or int(c.max()) > u for c, u in within):
                bad = True
                break
            first = first or [int(c[0]) for c in columns]
            start = size if last is None else size - 1  # the position of joined[0]
            for i, c in enumerate(columns):
                counts[i] += np.bincount(c, minlength=units[i] + 1)
                joined = c if last is None else np.concatenate(([last[i]], c))
                g = np.abs(np.diff(joined))  # g[t]: the rows start + t and start + t + 1
                for a in (0, 1):
                    gaps[a][i] += np.bincount(g[(a - start) % 2 :: 2], minlength=units[i] + 1)
            last = [int(c[-1]) for c in columns]
            size += batch.num_rows

        def sparse(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            at = np.flatnonzero(a)
            return at, a[at]

        found = (
            size,
            bad,
            first,
            last,
            [sparse(c) for c in counts],
            [[sparse(g) for g in side] for side in gaps],
        )
        blob = pickle.dumps(found)
        context = TaskContext.get()
        assert context is not None  # mapInArrow runs it in a task
        part = context.partitionId()
        yield pa.RecordBatch.from_arrays(
            [pa.array([part], pa.int32()), pa.array([blob], pa.binary())], ["p", "blob"]
        )

    return summarise


def norm_words(
    columns: Sequence[np.ndarray], centre: Sequence[int], scales: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """``(hi, lo)`` with ``||w||^2 = hi 2^40 + lo`` and ``0 <= lo < 2^40``, exactly, in
    ``int64`` arrays (``w = (k - m) P`` with ``|w| < 2^40``, ``d < 2^20``).

    Each ``|w|`` is split as ``h 2^20 + l``, so ``s = A 2^40 + B 2^21 + C`` with each of
    ``A = sum h^2``, ``B = sum h l``, ``C = sum l^2`` below ``2^60``, then carried.
    """
    a = np.zeros(len(columns[0]), np.int64)
    b, c = a.copy(), a.copy()
    for column, m, p in zip(columns, centre, scales, strict=True):
        w = np.abs((column - m) * p)
        upper, lower = w >> 20, w & ((1 << 20) - 1)
        a += upper * upper
        b += upper * lower
        c += lower * lower
    carry = ((b & ((1 << 19) - 1)) << 21) + c  # B = Bh 2^19 + Bl: B 2^21 = Bh 2^40 + Bl 2^21
    return a + (b >> 19) + (carry >> 40), carry & ((1 << 40) - 1)


def norm_levels(
    columns: Sequence[np.ndarray],
    centre: Sequence[int],
    scales: Sequence[int],
    high: np.ndarray,
    low: np.ndarray,
) -> np.ndarray:
    """Each row's level, exactly, in ``int64`` arrays: the least ``k`` with
    ``C_k^2 = high[k] 2^40 + low[k] >= s`` (the top level if none), ``s = ||w||^2``.

    ``|w| < 2^40`` is split as ``h 2^20 + l``, so ``s = A 2^40 + B 2^21 + C`` with each of
    ``A = sum h^2``, ``B = sum h l``, ``C = sum l^2`` below ``2^60`` (``d < 2^20``), then
    carried into two 40-bit words ``(hi, lo)``; the levels are searched on ``hi`` and, where
    ``hi`` ties with a radius' word, on ``lo`` within the radii sharing it.
    """
    hi, lo = norm_words(columns, centre, scales)
    top = len(high)
    at = np.searchsorted(high, hi, side="left")
    ties = (at < top) & (high[np.minimum(at, top - 1)] == hi)
    for word in np.unique(hi[ties]):
        first, last = np.searchsorted(high, word, "left"), np.searchsorted(high, word, "right")
        rows = ties & (hi == word)
        at[rows] = first + np.searchsorted(low[first:last], lo[rows], "left")
    return np.asarray(np.minimum(at, top - 1), dtype=np.int64)


def level_histograms(
    centre: Sequence[int], scales: Sequence[int], high: np.ndarray, low: np.ndarray
) -> Any:
    """The function ``mapInArrow`` runs on each partition of the indices: its count of
    each level (:func:`norm_levels`), pickled in one record."""

    def count(batches: Iterator[Any]) -> Iterator[Any]:
        import pickle

        import pyarrow as pa

        found = np.zeros(len(high), np.int64)
        for batch in batches:
            if batch.num_rows:
                columns = [
                    np.asarray(batch.column(i).to_numpy(), dtype=np.int64)
                    for i in range(batch.num_columns)
                ]
                levels = norm_levels(columns, centre, scales, high, low)
                found += np.bincount(levels, minlength=len(high))
        yield pa.RecordBatch.from_arrays([pa.array([pickle.dumps(found)], pa.binary())], ["b"])

    return count


def _indices(batch: Any) -> list[np.ndarray]:
    return [
        np.asarray(batch.column(i).to_numpy(), dtype=np.int64) for i in range(batch.num_columns)
    ]


def within_sums(
    centre: Sequence[int],
    scales: Sequence[int],
    num: int,
    den: int,
    edge: int,
    chunk: int,
    cap: int,
) -> Any:
    """The function ``mapInArrow`` runs on each partition of the indices for PLAN's
    clipped sums: the rows with ``||w||^2 <= edge`` (:func:`norm_words`), their count and
    each column's ``sum floor((2 w num + den)/(2 den))``, and the rows beyond, at most
    ``cap`` of them kept, pickled in one record.

    The caller has bounded every term by ``2^62 / chunk``: the sums are taken ``chunk``
    rows at a time in ``int64`` and added as Python integers.
    """
    edge_hi, edge_lo = edge >> 40, edge & ((1 << 40) - 1)

    def summarise(batches: Iterator[Any]) -> Iterator[Any]:
        import pickle

        import pyarrow as pa

        kept, beyond = 0, 0
        sums = [0] * len(centre)
        rows: list[np.ndarray] = []
        for batch in batches:
            if not batch.num_rows:
                continue
            columns = _indices(batch)
            hi, lo = norm_words(columns, centre, scales)
            inside = (hi < edge_hi) | ((hi == edge_hi) & (lo <= edge_lo))
            kept += int(inside.sum())
            for i, (column, m, p) in enumerate(zip(columns, centre, scales, strict=True)):
                w = (column[inside] - m) * p
                terms = (2 * num * w + den) // (2 * den)
                sums[i] += sum(int(terms[at : at + chunk].sum()) for at in range(0, len(w), chunk))
            out = ~inside
            count = int(out.sum())
            if count and beyond < cap:
                take = np.flatnonzero(out)[: cap - beyond]
                rows.append(np.stack([c[take] for c in columns], axis=1))
            beyond += count
        blob = pickle.dumps((kept, sums, beyond, rows))
        yield pa.RecordBatch.from_arrays([pa.array([blob], pa.binary())], ["b"])

    return summarise


def rows_beyond(centre: Sequence[int], scales: Sequence[int], edge: int) -> Any:
    """The function ``mapInArrow`` runs on each partition of the indices for the rows
    with ``||w||^2 > edge``: each batch's such rows, pickled, one record per batch that
    has any."""
    edge_hi, edge_lo = edge >> 40, edge & ((1 << 40) - 1)

    def select(batches: Iterator[Any]) -> Iterator[Any]:
        import pickle

        import pyarrow as pa

        for batch in batches:
            if not batch.num_rows:
                continue
            columns = _indices(batch)
            hi, lo = norm_words(columns, centre, scales)
            out = np.flatnonzero((hi > edge_hi) | ((hi == edge_hi) & (lo > edge_lo)))
            if len(out):
                blob = pickle.dumps(np.stack([c[out] for c in columns], axis=1))
                yield pa.RecordBatch.from_arrays([pa.array([blob], pa.binary())], ["b"])

    return select
