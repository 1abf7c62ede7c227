"""``finitedp plot shapes``: thesis Figure 4.1 from a two-column sum release."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from finitedp.cli import main
from finitedp.errors import ParameterError
from finitedp.plot.shapes import shape_series


def release(tmp_path: Path, capsys: pytest.CaptureFixture[str], *budget: str) -> Path:
    data = tmp_path / "v.csv"
    data.write_text("a,b\n1,0.25\n-2,1\n2,0.75\n", encoding="utf-8")
    out = tmp_path / "r.json"
    mechanism = "vector-gaussian" if budget[0] == "--rho" else "vector-laplace"
    argv = [
        "release",
        str(data),
        "--mechanism",
        mechanism,
        "--columns",
        "a,b",
        "--bounds=-2:2,0:1",
        "--grid",
        "1,1/4",
        *budget,
        "--quiet",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    capsys.readouterr()
    return out


@pytest.mark.parametrize(
    ("budget", "kind", "standard"),
    [
        (("--rho", "1/2"), "gaussian", Fraction(34, 25)),  # Fig 4.1a: 17/rho against 12.5/rho
        (("--epsilon", "1"), "laplace", Fraction(10, 9)),  # Fig 4.1b: 10/eps against 9/eps
    ],
)
def test_figure_4_1_data_from_a_release(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    budget: tuple[str, str],
    kind: str,
    standard: Fraction,
) -> None:
    path = release(tmp_path, capsys, *budget)
    series = shape_series(json.loads(path.read_text()), str(path))
    assert series.kind == kind and series.deltas == (4, 1) and series.names == ("a", "b")
    axes = series.axes()
    first = next(iter(axes.values()))
    ratio = (first[0] ** series.p + first[1] ** series.p) / float(series.objective)
    assert abs(ratio - float(standard)) < 1e-9  # display figures only: floats allowed here
    # every shape passes through the corner (Delta_1, Delta_2) of the box
    for a1, a2 in axes.values():
        if kind == "gaussian":
            assert abs((4 / a1) ** 2 + (1 / a2) ** 2 - 1) < 1e-9
        else:
            assert abs(4 / a1 + 1 / a2 - 1) < 1e-9


def test_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ParameterError, match="not a sum"):
        shape_series({"release": {"type": "partial_histogram"}}, "x")
    doc = json.loads(release(tmp_path, capsys, "--epsilon", "1").read_text())
    doc["parameters"]["columns"] = doc["parameters"]["columns"][:1]
    with pytest.raises(ParameterError, match="exactly two columns"):
        shape_series(doc, "x")


def test_draws_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    path = release(tmp_path, capsys, "--rho", "1/2")
    picture = tmp_path / "fig.png"
    assert main(["plot", "shapes", str(path), "--out", str(picture)]) == 0
    assert picture.read_bytes().startswith(b"\x89PNG")
