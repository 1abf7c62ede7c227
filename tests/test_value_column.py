"""``finitedp release --value-column``: each row adds a bounded exact amount to its key (ALP)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from finitedp.alp.mechanism import ALP
from finitedp.alp.rows import WeightedRows, for_rows
from finitedp.entries import WeightedSums
from finitedp.errors import ParameterError
from finitedp.io.values import ValueColumn
from finitedp.oracle import RecordingSource, SeededSource

F = Fraction
CSV = "city,amount\nParis,12.5\nOslo,3\nParis,40\nRome,0.5\nParis,7.25\n"
_ALP_VALUES = ["--mechanism", "alp", "--value-column", "amount", "--value-bound"]


def _run(tmp_path: Path, *flags: str, text: str = CSV) -> subprocess.CompletedProcess[str]:
    data = tmp_path / "a.csv"
    data.write_text(text, encoding="utf-8")
    base = [sys.executable, "-m", "finitedp", "release", str(data), "--column", "city"]
    base += ["--universe", "utf8:8", "--epsilon", "1", "--quiet"]
    return subprocess.run([*base, *flags], capture_output=True, text=True, check=False)


def test_value_column_release_states_its_relation_and_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    flags = ["--mechanism", "alp", "--value-column", "amount", "--value-bound", "50"]
    done = _run(tmp_path, *flags, "--value-step", "1/4", "--k", "3", "--out", str(out))
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    parameters = document["parameters"]
    assert (parameters["value_column"], parameters["value_bound"]) == ("amount", "50")
    assert parameters["value_step"] == "1/4" and parameters["n"] == 5
    assert "l1 distance at most 100" in document["neighbours"]
    assert document["release"]["parameters"]["contribution"] == "100"
    query = subprocess.run(
        [sys.executable, "-m", "finitedp", "query", str(out), "Paris", "Berlin"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert query.returncode == 0, query.stderr


@pytest.mark.parametrize(
    ("flags", "text", "message"),
    [
        (["--value-bound", "10"], CSV, "--value-bound: got 10; it goes with --value-column"),
        (["--value-column", "amount", "--value-bound", "50"], CSV, "only alp takes values"),
        (["--mechanism", "alp", "--value-column", "amount"], CSV, "--value-bound: --value-column"),
        (
            ["--mechanism", "alp", "--value-column", "amount", "--value-bound", "50"],
            CSV,
            "line 2: value 12.5 is not a multiple of the step 1",
        ),
        (
            ["--mechanism", "alp", "--value-column", "amount", "--value-bound", "20"],
            "city,amount\nParis,3\nOslo,40\n",
            "line 3: value 40 is outside [0, 20]",
        ),
        (
            ["--mechanism", "alp", "--value-column", "amount", "--value-bound", "20"],
            "city,amount\nParis,3\nOslo,lots\n",
            "line 3: value 'lots' is not an exact number",
        ),
        (
            ["--mechanism", "alp", "--value-column", "total", "--value-bound", "20"],
            CSV,
            "--value-column: ",
        ),
        (
            [*_ALP_VALUES, "1/4", "--value-step", "1/4", "--delta", "1/100"],
            "city,amount\nParis,1/4\n",
            "--value-bound: got 1/4; with --delta, 2 B must be an integer",
        ),
        (
            [*_ALP_VALUES, "3/4", "--value-step", "1/2"],
            CSV,
            "--value-bound: got 3/4; it must be a multiple of the step 1/2",
        ),
    ],
)
def test_value_column_refusals_exit_2_and_name_the_flag_or_line(
    tmp_path: Path, flags: list[str], text: str, message: str
) -> None:
    done = _run(tmp_path, *flags, text=text)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert done.stdout == ""


def test_weighted_rows_release_the_summed_vector() -> None:
    values = (F(10), F(1, 2))
    mech = for_rows(4, 100, 1, lambda name: None, None, values)
    assert isinstance(mech, WeightedRows) and isinstance(mech.mechanism, ALP)
    assert mech.mechanism.contribution == 20 and mech.mechanism.step == F(1, 2)
    rows = [(3, F(5, 2)), (9, F(10)), (3, F(1, 2)), (50, F(0))]
    summed = mech.release(rows, SeededSource(b"w"))
    direct = mech.mechanism.project({3: F(3), 9: F(10)}, SeededSource(b"w"))
    assert summed == direct
    with pytest.raises(ParameterError, match="n = 4"):
        mech.release(rows[:3])
    with pytest.raises(ParameterError, match="pairs"):
        mech.release([3, 9, 3, 50])
    # The reader's summed form (memory per key): the same release, the same tape.
    sums = WeightedSums(4, {3: F(3), 9: F(10), 50: F(0)})
    tapes = []
    for data in (rows, sums):
        recorder = RecordingSource(SeededSource(b"w"))
        assert mech.release(data, recorder) == summed
        tapes.append(recorder.tape)
    assert tapes[0] == tapes[1]
    with pytest.raises(ParameterError, match="3 rows; this release is for n = 4"):
        mech.release(WeightedSums(3, {3: F(3)}))


def test_value_column_parses_exactly() -> None:
    column = ValueColumn.parse("10", "1/4")
    assert column.read(" 2.25 ", "f, line 2") == F(9, 4)
    assert column.read("7/4", "f, line 2") == F(7, 4)
    with pytest.raises(ParameterError, match="too long"):
        column.read("1" * 500, "f, line 9")
    with pytest.raises(ParameterError, match="value_step"):
        ValueColumn.parse("10", "2/3")


def test_value_column_with_threshold_alp(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    flags = [*_ALP_VALUES, "4", "--value-step", "1/2", "--delta", "1/1000", "--k", "3"]
    text = "city,amount\n" + "Paris,4\n" * 40 + "Oslo,1/2\n"
    done = _run(tmp_path, *flags, "--epsilon", "4", "--out", str(out), text=text)
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    release = document["release"]
    assert release["type"] == "threshold_alp" and F(document["privacy"]["delta"]) <= F(1, 1000)
    assert release["alp"]["parameters"]["contribution"] == "8"
    assert "l1 distance at most 8" in document["neighbours"]
