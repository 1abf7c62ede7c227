"""``finitedp release`` and ``finitedp query``: successes, input errors, atomic output."""

from __future__ import annotations

import importlib
import io
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cli_run import run

from finitedp import __version__
from finitedp.cli import release as release_command
from finitedp.histograms.release import PartialHistogram
from finitedp.io.universe import Utf8Universe
from finitedp.registry import default_mechanism

ROOT = Path(__file__).resolve().parent.parent
VISITS = ROOT / "examples" / "data" / "visits.csv"
CITIES = ROOT / "examples" / "data" / "cities.txt"

#: Rows of the small CSV used by most tests: a city and a weekday (1 = Monday).
ROWS = [("Zürich", 5)] * 9 + [("東京", 2)] * 6 + [("São Paulo, SP", 7)] * 4 + [("Oslo", 1)]


def require(module: str, cls: str) -> None:
    """Skip unless ``finitedp.<module>.<cls>`` exists (mechanisms written in parallel)."""
    found = pytest.importorskip(f"finitedp.{module}")
    if not hasattr(found, cls):
        pytest.skip(f"finitedp.{module}.{cls} does not exist yet")


def write_csv(path: Path, rows: list[tuple[str, int]] = ROWS) -> Path:
    lines = ["city,weekday"]
    for city, day in rows:
        quoted = f'"{city}"' if "," in city else city
        lines.append(f"{quoted},{day}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def visits(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "visits.csv")


def released(out: str) -> dict[str, Any]:
    document = json.loads(out)
    assert isinstance(document, dict)
    return document


# -- successes ---------------------------------------------------------------------------


def test_csv_int_column_releases_every_bin_with_labels(
    visits: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(visits), "--column", "weekday", "--universe", "int:7", "--epsilon", "1/2"]
    code, out, err = run(["release", *argv, "--seed", "0a0b"], capsys)
    assert code == 0, err
    doc = released(out)
    assert doc["finitedp"] == __version__ and doc["mechanism"] == "bounded-geometric"
    assert doc["parameters"] == {
        "n": 20,
        "epsilon": "1/2",
        "epsilon_display": "0.5",  # issue 42: a decimal beside every exact fraction
        "noise": "tight",  # the command line's default (issue 25 item 5)
        "beta": "1/10",
        "beta_display": "0.1",
        "counter": "fast",
    }
    assert doc["universe"] == "int:7" and doc["universe_size"] == 7
    assert doc["privacy"] == {"epsilon": "1/2", "epsilon_display": "0.5", "delta": "0"}
    assert doc["accuracy"]["beta"] == "1/10" and doc["accuracy"]["beta_display"] == "0.1"
    assert doc["accuracy"]["source"].startswith("BV Thm 5.2")
    assert isinstance(doc["accuracy"]["per_query"], int) and doc["accuracy"]["threshold"] is None
    release = PartialHistogram.from_json(doc["release"])
    assert doc["bins"] == [{"value": str(x), "count": c} for x, c in release.bins]
    assert doc["seeded"] is True
    assert "NOT private against anyone who knows" in err
    assert "n = 20 rows" in err and "|X| = 7 values" in err


def test_text_file_and_crlf_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "days.txt"
    source.write_bytes(b"1\r\n2\r\n2\r\n7\r\n")
    code, out, err = run(
        ["release", str(source), "--universe", "int:7", "--epsilon", "1", "--seed", "01"], capsys
    )
    assert code == 0, err
    assert released(out)["parameters"]["n"] == 4


def test_stdin_dash(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    data = b"city\nOslo\nOslo\nLima\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    argv = ["release", "-", "--column", "city", "--epsilon", "1", "--seed", "00"]
    paper = ["--mechanism", "stability", "--delta", "1/4", "--noise", "paper"]  # BV's threshold
    code, _, err = run([*argv, "--universe", "utf8:4", *paper], capsys)
    assert code == 2 and "n: got 3, below the threshold" in err  # read all three rows
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code, _, err = run([*argv, "--universe", "int:5"], capsys)
    assert code == 2 and "<stdin>, line 2: value 'Oslo' is not in the universe int:5" in err


def test_stdin_text(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"3\n3\n1\n"), encoding="utf-8"))
    code, out, err = run(["release", "-", "--universe", "int:3", "--epsilon", "1"], capsys)
    assert code == 0, err
    assert released(out)["parameters"]["n"] == 3


def test_stability_with_delta(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "many.txt"
    source.write_text("3\n" * 50 + "1\n" * 10, encoding="utf-8")
    argv = ["release", str(source), "--universe", "int:5", "--epsilon", "1", "--seed", "02"]
    code, out, err = run([*argv, "--mechanism", "stability", "--delta", "1/100"], capsys)
    assert code == 0, err
    doc = released(out)
    assert doc["mechanism"] == "stability" and doc["parameters"]["delta"] == "1/100"
    assert doc["privacy"] == {"epsilon": "1", "delta": "1/100", "delta_display": "0.01"}
    assert doc["accuracy"]["threshold"] is not None  # Def 2.7: accuracy above a threshold
    assert all(b["value"] in {"1", "3"} for b in doc["bins"])


def test_out_is_written_atomically(visits: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = visits.parent / "release.json"
    argv = ["release", str(visits), "--column", "weekday", "--universe", "int:7"]
    code, out, err = run([*argv, "--epsilon", "1/2", "--out", str(target)], capsys)
    assert code == 0, err
    assert out == "" and "written to" in err
    assert released(target.read_text(encoding="utf-8"))["mechanism"] == "bounded-geometric"
    assert sorted(p.name for p in visits.parent.iterdir()) == ["release.json", "visits.csv"]


def test_nothing_is_written_on_error(visits: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = visits.parent / "release.json"
    argv = ["release", str(visits), "--column", "weekday", "--universe", "int:4"]
    code, out, err = run([*argv, "--epsilon", "1/2", "--out", str(target)], capsys)
    assert code == 2 and out == ""
    assert f"{visits}, line 2: value '5' is not in the universe int:4" in err
    assert sorted(p.name for p in visits.parent.iterdir()) == ["visits.csv"]
    target.write_text("old", encoding="utf-8")
    assert run([*argv, "--epsilon", "1/2", "--out", str(target)], capsys)[0] == 2
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in visits.parent.iterdir()) == ["release.json", "visits.csv"]


def test_out_refuses_to_replace_the_input(visits: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["release", str(visits), "--column", "weekday", "--universe", "int:7", "--epsilon", "1"]
    code, _, err = run([*argv, "--out", str(visits)], capsys)
    assert code == 2 and "is the input file" in err
    code, _, err = run([*argv, "--out", str(visits.parent)], capsys)
    assert code == 2 and "is a directory" in err
    code, _, err = run([*argv, "--out", str(visits.parent / "no" / "r.json")], capsys)
    assert code == 2 and "does not exist" in err


def test_seed_is_deterministic(visits: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["release", str(visits), "--column", "weekday", "--universe", "int:7"]
    argv += ["--epsilon", "1/2", "--quiet"]
    first = run([*argv, "--seed", "c0ffee"], capsys)
    second = run([*argv, "--seed", "c0ffee"], capsys)
    assert first == second and first[0] == 0
    # --quiet drops the summary, never the warning.
    assert first[2].startswith("finitedp release: WARNING") and "n = 20" not in first[2]


def test_system_source_by_default(visits: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["release", str(visits), "--column", "weekday", "--universe", "int:7", "--epsilon", "1"]
    code, out, err = run([*argv, "--quiet"], capsys)
    assert code == 0 and err == ""
    assert released(out)["seeded"] is False


def test_csv_details_quoted_fields_blank_lines_bom(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "t.csv"
    source.write_bytes(b'\xef\xbb\xbfid,city\n1,"a,b"\n\n2,c\n')
    argv = ["release", str(source), "--column", "city", "--universe", "utf8:3", "--epsilon", "1"]
    argv += ["--mechanism", "stability", "--delta", "1/2", "--noise", "paper"]
    code, _, err = run(argv, capsys)
    assert code == 2 and "n: got 2" in err  # two rows: the blank line is skipped


def test_pure_sparse_lists_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    require("sparse", "PureSparseHistogram")
    source = tmp_path / "cities.txt"
    source.write_text("Oslo\n" * 30 + "Lima\n" * 3, encoding="utf-8")
    argv = ["release", str(source), "--universe", "utf8:8", "--epsilon", "1", "--beta", "1/8"]
    code, out, err = run([*argv, "--mechanism", "pure-sparse", "--seed", "05"], capsys)
    assert code == 0, err
    doc = released(out)
    assert doc["mechanism"] == "pure-sparse" and doc["universe_size"] == "18519084246547628289"
    universe = Utf8Universe(8)
    release = PartialHistogram.from_json(doc["release"])
    assert len(doc["bins"]) == len(release) <= 33
    for entry, (x, count) in zip(doc["bins"], release.bins, strict=True):
        assert entry["count"] == count
        if entry["value"] is None:  # a random empty bin whose bytes are not UTF-8
            assert bytes.fromhex(entry["bytes"]) == universe.decode_bytes(x)
        else:
            assert universe.encode(entry["value"]) == x


def test_compact_release_and_query(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    require("compact", "CompactHistogram")
    source = write_csv(tmp_path / "visits.csv")
    target = tmp_path / "r.json"
    argv = ["release", str(source), "--column", "city", "--universe", "utf8:16"]
    code, _, err = run([*argv, "--epsilon", "1/2", "--out", str(target), "--seed", "07"], capsys)
    assert code == 0, err
    assert "|X| ≈ 3.42e+38 (a 129-bit number) values" in err  # 39 digits: not in a message
    doc = released(target.read_text(encoding="utf-8"))
    assert doc["mechanism"] == "compact" and doc["release"]["type"] == "compact_histogram"
    assert doc["universe_size"] == "341616807575530379006368233343265341697"
    assert doc["accuracy"]["threshold"] is None and "bins" not in doc
    compact = importlib.import_module("finitedp.compact").CompactRelease.from_json(doc["release"])
    names = ["Zürich", "São Paulo, SP", "Atlantis", ""]
    code, out, err = run(["query", str(target), *names], capsys)
    assert code == 0, err
    universe = Utf8Universe(16)
    expected = [f"{v}\t{compact.count(universe.encode(v))}" for v in names]
    assert out.splitlines() == expected


def test_query_partial_release(visits: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = visits.parent / "r.json"
    argv = ["release", str(visits), "--column", "weekday", "--universe", "int:7"]
    assert run([*argv, "--epsilon", "1", "--out", str(target), "--seed", "01"], capsys)[0] == 0
    doc = released(target.read_text(encoding="utf-8"))
    counts = Counter({b["value"]: b["count"] for b in doc["bins"]})
    code, out, err = run(["query", str(target), "1", "3", "7"], capsys)
    assert code == 0, err
    assert out.splitlines() == [f"{v}\t{counts[v]}" for v in ("1", "3", "7")]
    code, out, err = run(["query", str(target), "1", "8"], capsys)
    assert code == 2 and out == "" and "value '8' is not in the universe int:7" in err


def test_query_bare_release_and_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = PartialHistogram.from_counts(10, {2: 5, 9: 1}).to_json()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(bare.encode())))
    code, out, err = run(["query", "-", "2", "3", "9"], capsys)
    assert code == 0, err
    assert out == "2\t5\n3\t0\n9\t1\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"type": "sketch"}', "release type 'sketch' is not one finitedp can read"),
        ("[1, 2]", "not a finitedp release"),
        ("{", "line 1: not JSON"),
        (
            '{"universe": "int:5", "release": {"type": "partial_histogram", "version": 1, '
            '"universe_size": 7, "bins": []}}',
            "the universe int:5 has 5 values but the release has 7 bins",
        ),
    ],
)
def test_query_errors(
    tmp_path: Path, content: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "r.json"
    target.write_text(content, encoding="utf-8")
    code, out, err = run(["query", str(target), "1"], capsys)
    assert code == 2 and out == "" and message in err


def test_default_mechanism_rule() -> None:
    assert default_mechanism(200, 7) == "bounded-geometric"
    assert default_mechanism(200, 10_000) == "bounded-geometric"
    assert default_mechanism(20_000, 39_999) == "bounded-geometric"  # |X| <= 2n: not sparse
    assert default_mechanism(200, 10_001) == "compact"


def test_progress_display_keeps_stdout_clean(
    visits: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(release_command, "DELAY_SECONDS", 0.0)
    argv = ["release", str(visits), "--column", "weekday", "--universe", "int:7", "--epsilon", "1"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert released(out)["parameters"]["n"] == 20


# -- input errors --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"--universe": "int:07"}, "universe: got 'int:07'; write int:M"),
        ({"--universe": "utf8:6"}, "{f}, line 2: value 'Zürich' has 7 bytes in UTF-8"),
        ({"--epsilon": "65"}, "epsilon: got 65; tight noise takes epsilon up to 64"),
        ({"--epsilon": "64.5"}, "epsilon: got 129/2; tight noise takes epsilon up to 64"),
        ({"--epsilon": "half"}, "epsilon: got 'half', which is not an exact number"),
        ({"--epsilon": "1/3.0"}, "epsilon: got '1/3.0', which is not an exact number"),
        ({"--epsilon": "nan"}, "epsilon: got 'nan', which is not an exact number"),
        ({"--epsilon": "1/0"}, "epsilon: got '1/0', which is not an exact number"),
        (
            {"--mechanism": "stability", "--delta": "1e-6.5"},
            "delta: got '1e-6.5', which is not an exact number",
        ),
        ({"--universe": "bytes:4"}, "universe: got 'bytes:4'; write int:M"),
        ({"--universe": "int:0"}, "universe: got 'int:0'; write int:M"),
        ({"--universe": "utf8:x"}, "universe: got 'utf8:x'; write int:M"),
        ({"--epsilon": "1/2", "--beta": "2/5"}, "--beta: got 2/5; it must be 1/m"),
        ({"--beta": "0"}, "--beta: got 0; it must be 1/m"),
        ({"--mechanism": "laplace"}, "--mechanism: got 'laplace'; choose one of"),
        ({"--mechanism": "stability"}, "--delta: stability needs it"),
        ({"--delta": "1/100"}, "--delta: got 1/100; only stability, alp, pmg take it"),
        ({"--seed": "xyz"}, "seed: got 'xyz'; a string seed must be hexadecimal"),
        ({"--column": "town"}, "--column: {f} has no column 'town' (its header has 'city'"),
        ({"--format": "text"}, "--column: applies to CSV and Parquet input"),
    ],
)
def test_input_errors_exit_2_and_name_the_parameter(
    visits: Path, options: dict[str, str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    chosen = {"--column": "weekday", "--universe": "int:10", "--epsilon": "1"}
    if "--universe" in options:
        chosen["--column"] = "city"
    chosen.update(options)
    argv = ["release", str(visits), *[token for pair in chosen.items() for token in pair]]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert message.format(f=visits) in err, err
    assert sorted(p.name for p in visits.parent.iterdir()) == ["visits.csv"]


@pytest.mark.parametrize(
    ("content", "argv", "message"),
    [
        (b"city\n", ["--column", "city"], "no rows; a release needs at least one"),
        (b"", [], "no rows"),
        (b"", ["--format", "csv", "--column", "a"], "empty file; a CSV file needs a header"),
        (b"a,b\n1,2\n", ["--format", "csv"], "--column: {f} is read as CSV; name the column"),
        (b"a,b\n1,2\n3\n", ["--column", "b"], "{f}, line 3: the record has 1 fields"),
        (b"a,a\n1,2\n", ["--column", "a"], "has 2 columns named 'a'"),
        (b'a\n"1\n', ["--column", "a"], "malformed CSV"),
        (b"1\n2\n\xff\n", [], "{f}, line 3: not valid UTF-8"),
        (b"1\n 2\n", [], "{f}, line 2: value ' 2' is not in the universe int:9"),
        (b"1\n\n2\n", [], "{f}, line 2: value '' is not in the universe int:9"),
        (b"1\n007\n", [], "{f}, line 2: value '007'"),
    ],
)
def test_file_errors_name_the_line(
    tmp_path: Path,
    content: bytes,
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = tmp_path / "f.txt"
    source.write_bytes(content)
    code, out, err = run(
        ["release", str(source), "--universe", "int:9", "--epsilon", "1", *argv], capsys
    )
    assert code == 2 and out == ""
    assert message.format(f=source) in err, err


def test_missing_file_and_missing_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    absent = tmp_path / "absent.csv"
    code, _, err = run(["release", str(absent), "--universe", "int:3", "--epsilon", "1"], capsys)
    assert code == 2 and f"{absent}: cannot read it: No such file or directory" in err
    present = write_csv(tmp_path / "v.csv")
    code, _, err = run(["release", str(present), "--universe", "int:3", "--epsilon", "1"], capsys)
    assert code == 2 and "name the column to release with --column NAME" in err
    assert "'city', 'weekday'" in err


def test_unreadable_input_and_release_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        ["release", str(tmp_path), "--universe", "int:3", "--epsilon", "1"], capsys
    )
    assert code == 2 and out == "" and f"{tmp_path}: cannot read it: Is a directory" in err
    absent = tmp_path / "absent.json"
    code, out, err = run(["query", str(absent), "1"], capsys)
    assert code == 2 and out == ""
    assert f"{absent}: cannot read it: No such file or directory" in err
    code, out, err = run(["query", str(tmp_path), "1"], capsys)
    assert code == 2 and out == "" and "cannot read it: Is a directory" in err
    garbled = tmp_path / "garbled.json"
    garbled.write_bytes(b'{"release": "\xff"}\n')
    code, out, err = run(["query", str(garbled), "1"], capsys)
    assert code == 2 and out == "" and f"{garbled}, line 1: not valid UTF-8" in err


def test_decimal_text_is_read_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    # On the command line numbers are text: "0.5" is exactly 1/2, "1e-6" exactly 1/1000000.
    argv = ["release", str(VISITS), "--column", "weekday", "--universe", "int:7"]
    opts = ["--epsilon", "0.5", "--mechanism", "stability", "--delta", "1e-6", "--beta", "0.1"]
    code, out, err = run([*argv, *opts, "--seed", "01", "--quiet"], capsys)
    assert code == 0, err
    doc = released(out)
    assert doc["parameters"]["epsilon"] == "1/2" and doc["parameters"]["beta"] == "1/10"
    assert doc["privacy"] == {
        "epsilon": "1/2",
        "epsilon_display": "0.5",
        "delta": "1/1000000",
        "delta_display": "1e-06",
    }


def test_universe_too_small_for_pure_sparse(
    visits: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require("sparse", "PureSparseHistogram")
    argv = ["release", str(visits), "--column", "weekday", "--universe", "int:7", "--epsilon", "1"]
    code, _, err = run([*argv, "--mechanism", "pure-sparse"], capsys)
    assert code == 2 and "--universe: universe_size: got 7; PureSparseHistogram needs" in err


# -- the shipped example and the entry point ----------------------------------------------


def test_readme_example_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "release.json"
    argv = ["release", str(VISITS), "--column", "city", "--universe", "utf8:16"]
    code, _, err = run([*argv, "--epsilon", "1/2", "--out", str(target)], capsys)
    assert code == 0, err
    doc = released(target.read_text(encoding="utf-8"))
    assert doc["parameters"]["n"] == 200
    code, out, err = run(["query", str(target), "Zürich", "東京"], capsys)
    assert code == 0 and [line.split("\t")[0] for line in out.splitlines()] == ["Zürich", "東京"]


OPTS = ["--epsilon", "1/2", "--mechanism", "stability", "--delta", "1/1000", "--seed", "aa"]


def test_example_text_file_and_entry_point(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "finitedp", "release", str(CITIES), "--universe", "utf8:16", *OPTS],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    doc = json.loads(done.stdout.decode("utf-8"))
    assert doc["parameters"]["n"] == 120 and doc["seeded"] is True
    assert all(b["value"] is not None for b in doc["bins"])  # stability lists occupied bins only
