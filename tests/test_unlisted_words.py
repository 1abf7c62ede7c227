"""Issue 51 item 5: a release says what it does not list, in words, never as a bare 0.

Laws: ``query`` of a key a sketch or a thresholded histogram does not list prints
"not listed" and the bound on its count (a sketch's with its undercount ``n/(k + 1)``);
a dense release (every key has a noisy count) prints the count, 0 included; a sketch
that lists fewer keys than its ``k`` counters says so on stderr, with why.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from cli_run import run

from finitedp.params import decimal_nearest

DATA = Path(__file__).resolve().parent.parent / "examples" / "data" / "visits.csv"
KEYS = ["--column", "city", "--universe", "utf8:16", "--seed", "01"]


def _release(tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[Path, str]:
    out = tmp_path / "r.json"
    code, _, err = run(["release", str(DATA), *KEYS, *flags, "--out", str(out)], capsys)
    assert code == 0, err
    return out, err


def test_a_sketch_says_what_it_misses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flags = ("--mechanism", "pmg", "--k", "4", "--epsilon", "2", "--delta", "1/100")
    out, err = _release(tmp_path, capsys, *flags)
    assert "1 of k = 4 keys listed" in err and "threshold tau = 9" in err
    code, said, _ = run(["query", str(out), "Zürich", "東京"], capsys)
    listed, unlisted = said.splitlines()
    assert code == 0 and listed == "Zürich\t20"
    assert unlisted.startswith("東京\tnot listed: below the sketch's threshold; its count is")
    assert "at most 12 + n/5 with probability >= 0.9" in unlisted


def test_a_thresholded_histogram_bounds_what_it_leaves_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = _release(tmp_path, capsys, "--mechanism", "blanket", "--epsilon", "2", "--quiet")
    code, said, _ = run(["query", str(out), "Atlantis"], capsys)
    assert code == 0 and said.startswith("Atlantis\tnot listed: a count above ")


def test_a_dense_release_prints_every_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "d.json"
    argv = ["release", str(DATA), "--column", "weekday", "--universe", "int:9", "--epsilon", "1"]
    code, _, err = run([*argv, "--seed", "01", "--out", str(out), "--quiet"], capsys)
    assert code == 0, err
    code, said, _ = run(["query", str(out), "9"], capsys)
    value = said.split("\t")[1].strip()
    assert code == 0 and value.lstrip("-").isdigit()  # a noisy count, 0 or not


def test_query_top_and_all_print_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d.json"
    flights, carriers = DATA.parent / "flights.csv", DATA.parent / "carriers.txt"
    argv = ["release", str(flights), "--column", "carrier", "--universe", f"keys:{carriers}"]
    argv += ["--epsilon", "2"]
    code, _, err = run([*argv, "--seed", "01", "--out", str(out), "--quiet"], capsys)
    assert code == 0, err
    code, said, _ = run(["query", str(out), "--top", "3"], capsys)
    rows = [line.split("\t") for line in said.splitlines()]
    assert code == 0 and len(rows) == 3 and all(len(r) == 3 for r in rows)
    counts = [int(r[1]) for r in rows]
    assert counts == sorted(counts, reverse=True)  # largest first, the ± beside each
    code, said, _ = run(["query", str(out), "--all", "--format", "csv"], capsys)
    assert code == 0 and said.splitlines()[0] == "value,count,±"
    code, said, _ = run(["query", str(out), "--top", "2", "--format", "json"], capsys)
    assert code == 0 and '"plus_minus"' in said
    code, _, err = run(["query", str(out), "UA", "--top", "2"], capsys)
    assert code == 2 and "not both" in err
    code, _, err = run(["query", str(out), "UA", "--format", "csv"], capsys)
    assert code == 2 and "--format" in err


def test_a_pure_sketch_says_which_keys_may_be_noise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # pmg-pure's top k over every key of utf8:16 fills up with the largest noise of keys
    # absent from the data: the words count the listed keys within that noise's bound,
    # and every key above the bound is one of the data's.
    flags = ("--mechanism", "pmg-pure", "--k", "6", "--epsilon", "2", "--max-length", "200")
    out, err = _release(tmp_path, capsys, *flags)
    document = json.loads(out.read_text(encoding="utf-8"))
    floor = int(document["accuracy"]["noise_floor"])
    assert 0 < floor <= int(document["accuracy"]["simultaneous"])
    counts = [(b["value"], Fraction(b["count"])) for b in document["bins"]]
    faint = [key for key, count in counts if count <= floor]
    assert f"{len(faint)} of the {len(counts)} keys listed have estimates at most {floor}" in err
    cities = {line.split(",")[0] for line in DATA.read_text(encoding="utf-8").splitlines()}
    assert all(key in cities for key, count in counts if count > floor)
    code, said, _ = run(["query", str(out)], capsys)
    assert code == 0 and f"a listed key with an estimate at most {floor} may be absent" in said


def test_a_debiased_sketch_prints_the_corrected_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --debias spends 1/10 of the budget on the noisy number of decrements; query adds
    # half of it to each listed count, labelled; the stated (eps, delta) stays the asked.
    flights = DATA.parent / "flights.csv"
    out = tmp_path / "d.json"
    argv = ["release", str(flights), "--column", "dest", "--universe", "utf8:3"]
    argv += ["--mechanism", "pmg", "--k", "20", "--epsilon", "2", "--delta", "1/1000000"]
    code, _, err = run([*argv, "--debias", "--seed", "01", "--quiet", "--out", str(out)], capsys)
    assert code == 0, err
    document = json.loads(out.read_text(encoding="utf-8"))
    decrements = int(document["release"]["decrements"])
    assert Fraction(document["privacy"]["delta"]) <= Fraction(1, 10**6)
    assert document["privacy"]["epsilon"] == "2" and document["parameters"]["debias"] is True
    key, count = document["bins"][0]["value"], Fraction(document["bins"][0]["count"])
    code, said, _ = run(["query", str(out), key], capsys)
    corrected = count + Fraction(max(0, decrements), 2)
    shown = decimal_nearest(corrected)
    assert code == 0 and f"\tbias-corrected {shown} (" in said, said
    assert "post-processing" in said


def test_a_long_build_says_its_estimate_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every estimate require_time accepted while the mechanism was built, summed, is said
    # on stderr before the noise is drawn, once it passes ANNOUNCE_SECONDS (here 0).
    from finitedp.cli import building

    monkeypatch.setattr(building, "ANNOUNCE_SECONDS", 0)
    flags = ("--mechanism", "pmg-pure", "--k", "6", "--epsilon", "2", "--max-length", "200")
    _, err = _release(tmp_path, capsys, *flags)
    assert "finitedp release: pmg-pure's noise takes about " in err
    assert "(estimated from public parameters; a guess, not a promise)" in err
    monkeypatch.setattr(building, "ANNOUNCE_SECONDS", 10**9)
    _, quiet = _release(tmp_path, capsys, *flags)
    assert "noise takes about" not in quiet
