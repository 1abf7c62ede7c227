"""The Spark paths (``finitedp[spark]``), in local mode: counts and merged sketches on the driver.

Laws: Spark's counts are the Python counts, and a release from them equals the
release from the rows (same seed, same tape); the merged sketch is the fixed-tree
merge of the Alg 12 sketches of the partitions Spark actually made; a null or an
out-of-universe value is refused with a ParameterError before any noise.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

pyspark = pytest.importorskip("pyspark")


from finitedp.errors import ParameterError  # noqa: E402
from finitedp.histograms import BoundedGeometricHistogram, PureSparseHistogram  # noqa: E402
from finitedp.histograms.spark import spark_counts  # noqa: E402
from finitedp.io.universe import Utf8Universe  # noqa: E402
from finitedp.oracle import RecordingSource, SeededSource  # noqa: E402
from finitedp.sketches import misra_gries  # noqa: E402
from finitedp.sketches.merge import PrivateMergedMG, merge_all  # noqa: E402
from finitedp.sketches.spark import spark_sketch  # noqa: E402

ROWS = [(i * 7919) % 23 + 1 for i in range(500)] + [5] * 300


def test_counts_equal_python_and_release_equals_the_rows(spark: Any) -> None:
    frame = spark.createDataFrame([(v,) for v in ROWS], ["v"]).repartition(3)
    n, counts = spark_counts(frame, "v", 100)
    assert n == len(ROWS) and counts == dict(sorted(Counter(ROWS).items()))
    for mech in (
        BoundedGeometricHistogram(n, 100, "1/2", "1/10"),
        PureSparseHistogram(n, 2**40, 1, "1/8"),
    ):
        tapes, releases = [], []
        for data in (ROWS, counts):
            recorder = RecordingSource(SeededSource(b"spark"))
            releases.append(mech.release(data, rng=recorder))
            tapes.append(recorder.tape)
        assert releases[0] == releases[1] and tapes[0] == tapes[1]


def test_counts_encode_strings_and_refuse_bad_values(spark: Any) -> None:
    universe = Utf8Universe(4)
    frame = spark.createDataFrame([("Oslo",), ("Lima",), ("Oslo",)], ["city"])
    n, counts = spark_counts(frame, "city", universe.size, encode=universe.encode)
    assert n == 3 and counts == dict(
        sorted({universe.encode("Oslo"): 2, universe.encode("Lima"): 1}.items())
    )
    bad = spark.createDataFrame([("Oslo",), ("Atlantis",)], ["city"])
    with pytest.raises(ParameterError, match="'Atlantis'"):
        spark_counts(bad, "city", universe.size, encode=universe.encode)
    with pytest.raises(ParameterError, match="no column 'town'"):
        spark_counts(frame, "town", universe.size)
    with pytest.raises(ParameterError, match="universe"):
        spark_counts(spark.createDataFrame([(0,), (1,)], ["v"]), "v", 10)


def test_merged_sketch_is_the_tree_merge_of_the_partitions(spark: Any) -> None:
    k, d = 3, 100
    frame = spark.createDataFrame([(v,) for v in ROWS], ["v"]).repartition(4)
    parts = frame.rdd.glom().collect()  # the partitions Spark made, in order
    expected = merge_all([misra_gries(k, d, [row[0] for row in part]) for part in parts])
    merged = spark_sketch(frame, "v", k, d)
    assert merged == expected and merged.n == len(ROWS)
    assert dict(merged.counters).get(5, 0) >= 300 - len(ROWS) // (k + 1)  # Fact 3.1, merged
    mech = PrivateMergedMG(k, d, 1, "1/100")
    first = mech.release_sketch(merged, SeededSource(b"driver"))
    assert first == mech.release_sketch(spark_sketch(frame, "v", k, d), SeededSource(b"driver"))


def test_sketch_refuses_nulls_and_values_outside(spark: Any) -> None:
    frame = spark.createDataFrame([(1,), (None,), (3,)], "v int")
    with pytest.raises(ParameterError, match="no value"):
        spark_sketch(frame, "v", 2, 10)
    with pytest.raises(ParameterError, match="partition"):
        spark_sketch(spark.createDataFrame([(1,), (11,)], ["v"]), "v", 2, 10)
