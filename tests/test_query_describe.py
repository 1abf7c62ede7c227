"""``finitedp query RELEASE`` with no values: every release kind in words (issue 42 item 3).

Each user-level mechanism of the registry is released once on a small file; the
description must name the neighbour relation, state the guarantee in decimals
(no exact fraction, no figure of more than 30 digits), and, for column releases,
the estimates; a tampered figure is refused by name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_run import run

from finitedp.registry import COLUMNS, MECHANISMS

EXTRA = {
    "stability": ["--delta", "1/1000000"],
    "pmg": ["--k", "2", "--delta", "1/1000"],
    "pmg-pure": ["--k", "2", "--max-length", "30"],
    "blanket": ["--epsilon", "4", "--beta", "1/2"],
    "vector-laplace": ["--epsilon", "1"],
    "vector-gaussian": ["--rho", "1/2"],
    "quantile-exponential": ["--epsilon", "1", "--quantile", "1/2"],
    "quantile-binary": ["--epsilon", "1", "--quantile", "1/2"],
    "plan-mean": ["--rho", "1"],
}
NAMES = [*MECHANISMS, *COLUMNS]
SCHEMA = json.loads(
    (
        Path(__file__).resolve().parent.parent / "finitedp" / "schemas" / "release.schema.json"
    ).read_text(encoding="utf-8")
)
FRACTION = re.compile(r"-?[0-9]+/[0-9]+")


def _check_displays(document: dict[str, object], name: str) -> None:
    """The schema, and its rule: a display beside every exact fraction (issue 42 item 1)."""
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(SCHEMA).validate(document)
    missing: list[str] = []

    def walk(node: object, where: str) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{where}[{i}]")
        elif isinstance(node, dict):
            for key, value in node.items():
                if key in ("release", "bins") or key.endswith("_display"):
                    continue
                shown = f"{key}_display" in node
                fractions = value if isinstance(value, list) else [value]
                exact = any(isinstance(v, str) and FRACTION.fullmatch(v) for v in fractions)
                if exact and not shown:
                    missing.append(f"{where}.{key}")
                walk(value, f"{where}.{key}")

    walk(document, name)
    assert not missing, missing


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("describe")
    rows = [f"{1 + i % 3},{i % 11},{(7 * i) % 13}" for i in range(24)]
    (path / "d.csv").write_text("k,a,b\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", NAMES)
def test_every_release_kind_is_described_in_words(
    name: str, data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    if name in COLUMNS:
        argv = ["release", str(data / "d.csv"), "--columns", "a,b", "--bounds", "0:20"]
    else:
        argv = ["release", str(data / "d.csv"), "--column", "k", "--universe", "int:64"]
        argv += [] if "--epsilon" in EXTRA.get(name, []) else ["--epsilon", "1"]
    argv += ["--mechanism", name, *EXTRA.get(name, []), "--quiet", "--out", str(out)]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    document = json.loads(out.read_text(encoding="utf-8"))
    _check_displays(document, name)
    code, text, err = run(["query", str(out)], capsys)
    assert code == 0 and err == "", err
    lines = text.splitlines()
    assert lines[0].startswith(f"release: {name}")
    assert any(line.startswith("neighbours (what it protects): ") for line in lines)
    guarantee = next(line for line in lines if line.startswith("guarantee: "))
    assert "/" not in guarantee and re.search(r"epsilon <=|rho <=|\)-DP", guarantee), guarantee
    assert not re.search(r"\d{31}", text), text  # no figure a person cannot read
    if name in COLUMNS:
        at = lines.index("estimates (in the data's units):")
        assert lines[at + 1].startswith("  a ≈ "), text
        # sums and means say their noise in the data's units, quantiles their rank error
        assert "(noise sd " in lines[at + 1] or "(rank error at most " in lines[at + 1], text


def test_a_tampered_figure_is_refused_by_name(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    argv = ["release", str(data / "d.csv"), "--columns", "a", "--bounds", "0:20"]
    assert (
        run([*argv, "--mechanism", "vector-laplace", "--epsilon", "1", "--out", str(out)], capsys)[
            0
        ]
        == 0
    )
    doc = json.loads(out.read_text(encoding="utf-8"))
    doc["privacy"]["epsilon"] = "1.5"
    out.write_text(json.dumps(doc), encoding="utf-8")
    code, text, err = run(["query", str(out)], capsys)
    assert code == 2 and text == "" and "privacy.epsilon" in err


def test_a_sketch_states_what_its_accuracy_is_relative_to_and_labels_its_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 42 item 2: PMG's bound is against the sketch; the bias n/(k+1) to the true
    counts is stated beside it (as a formula: n is not public), and keys carry labels."""
    data = tmp_path / "c.csv"
    data.write_text("k\n" + "Paris\n" * 300 + "Rome\n" * 100, encoding="utf-8")
    out = tmp_path / "r.json"
    argv = ["release", str(data), "--column", "k", "--universe", "utf8:8", "--epsilon", "4"]
    argv += ["--mechanism", "pmg", "--k", "2", "--delta", "1/10", "--seed", "01", "--quiet"]
    assert run([*argv, "--out", str(out)], capsys)[0] == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert "n/(k + 1) = n/3" in doc["accuracy"]["relative_to"]
    assert "400" not in doc["accuracy"]["relative_to"]  # n itself is never published
    labels = {b["value"]: b["count"] for b in doc["bins"]}
    assert set(labels) <= {"Paris", "Rome"} and "Paris" in labels
    assert sorted(labels.values()) == sorted(v for _, v in doc["release"]["heavy"])
    code, text, _ = run(["query", str(out)], capsys)
    assert code == 0 and "relative to the sketch's counters" in text
