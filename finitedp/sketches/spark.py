"""Misra-Gries sketches of a PySpark DataFrame: one per partition, merged on the driver.

Paper: Lebeda thesis Alg 12 (each partition's rows, in order, are one stream)
and Section 3.7 (the [ACH+13] merge; Corollary 3.2: the merged sketches of
neighbouring datasets differ by 1 in at most ``k`` counters).  Needs the
optional extra ``finitedp[spark]``.

The executors only sketch (deterministic: no randomness); the driver merges the
partitions' sketches in partition order (:func:`.merge.merge_all`, a fixed tree)
and releases with :class:`.merge.PrivateMergedMG` or :class:`.pure.PureSparseMergedMG`,
drawing the noise there.  A retried Spark task sketches the same rows again and
returns the same sketch, so retries cannot change a release.

Neighbours (Section 3.7): one row added to or removed from one partition.  That
holds when a row's partition does not depend on the other rows (files read as
they are, or partitioning by a hash of the row itself), not after a range
partitioning or a sort computed from the data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ParameterError
from .merge import merge_all
from .misragries import MGSketch, MisraGries

__all__ = ["spark_sketch"]


def _sketch_partitions(
    k: int, universe_size: int, encode: Callable[[Any], int] | None
) -> Callable[[int, Iterable[Any]], Iterator[tuple[int, MGSketch | None, str]]]:
    def sketch(index: int, rows: Iterable[Any]) -> Iterator[tuple[int, MGSketch | None, str]]:
        stream = MisraGries(k, universe_size)

        def keys() -> Iterator[Any]:
            for row in rows:
                value = row[0]
                if value is None:
                    raise ParameterError("a row has no value (null)")
                yield encode(value) if encode is not None else value

        try:
            stream.extend(keys())
        except ParameterError as error:  # reported by the driver, not as a task failure
            yield index, None, str(error)
            return
        yield index, stream.sketch(), ""

    return sketch


def spark_sketch(
    frame: Any,
    column: str,
    k: int,
    universe_size: int,
    *,
    encode: Callable[[Any], int] | None = None,
) -> MGSketch:
    """The merged Misra-Gries sketch of one column: Alg 12 per partition, merged in a tree.

    Paper: Lebeda thesis Alg 12, Section 3.7 (merge, Corollary 3.2).

    Args:
        frame: a ``pyspark.sql.DataFrame``.
        column: the column whose values are the stream.
        k: the counters of every sketch.
        universe_size: ``d``; keys are ints in ``[1, d]``.
        encode: maps a value to its key (run in the executors; it must be picklable),
            or ``None`` when the values are the keys.

    Returns:
        The merged (standard) sketch; release it with ``PrivateMergedMG`` or
        ``PureSparseMergedMG`` on the driver.

    Raises:
        ParameterError: a missing column, a null value or a value outside the universe.
    """
    if column not in frame.columns:
        raise ParameterError(f"column: the DataFrame has no column {column!r} ({frame.columns})")
    job = frame.select(column).rdd.mapPartitionsWithIndex(
        _sketch_partitions(k, universe_size, encode)
    )
    results = sorted(job.collect(), key=lambda item: item[0])
    for index, _, error in results:
        if error:
            raise ParameterError(f"column {column!r}, partition {index}: {error}")
    sketches = [sketch for _, sketch, _ in results if sketch is not None]
    if not sketches:
        return MisraGries(k, universe_size).sketch().to_standard()
    return merge_all(sketches)
