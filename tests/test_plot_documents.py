"""Tampered documents for ``plot means`` and ``plot shapes`` (issue 40 item 2).

A document read back is input: each edit below breaks one invariant a release
guarantees, and each must end in one line naming the field, exit status 2, and
no picture, however the number is written (zero, negative, huge, a float, text).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from finitedp.cli import main
from finitedp.errors import ParameterError
from finitedp.plot.means import mean_series
from finitedp.plot.shapes import shape_series

Edit = Callable[[dict[str, Any]], object]


def _set(*path: object) -> Callable[[object], Edit]:
    def value(new: object) -> Edit:
        def edit(doc: dict[str, Any]) -> None:
            target: Any = doc
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = new

        return edit

    return value


HUGE = "1" + "0" * 400
MEANS: list[tuple[str, Edit, str]] = [
    ("n zero", _set("release", "n")(0), "n: got 0; it must be at least 1"),
    ("n text", _set("release", "n")("abc"), "n: got 'abc'"),
    ("n float text", _set("release", "n")("1.5"), "n: got '1.5'"),
    ("n negative", _set("release", "n")(-3), "n: got -3"),
    ("n bool", _set("release", "n")(True), "n: got True"),
    ("radius zero", _set("release", "clip_radius")(0), "clip_radius: got 0"),
    ("radius negative", _set("release", "clip_radius")(-1), "clip_radius"),
    ("units zero", _set("release", "units")(0), "units: got 0"),
    ("scale zero", _set("release", "scales", 0)(0), "scales: got 0"),
    ("scale text", _set("release", "scales", 0)("x"), "scales: got 'x'"),
    ("sigma zero", _set("accuracy", "noise_sigma2_units")("0"), "must be positive"),
    ("sigma negative", _set("accuracy", "noise_sigma2_units")("-4"), "must be positive"),
    ("sigma float", _set("accuracy", "noise_sigma2_units")("1.5"), "noise_sigma2_units: got"),
    ("sigma huge", _set("accuracy", "noise_sigma2_units")(HUGE), "too far from 1 to draw"),
    ("estimate huge", _set("release", "estimates", 0)(HUGE), "too far from 1 to draw"),
    ("estimate text", _set("release", "estimates", 0)("abc"), "estimates: got 'abc'"),
    ("estimate unreduced", _set("release", "estimates", 0)("2/4"), "lowest terms"),
    ("step zero", _set("parameters", "columns", 0, "step")("0"), "step: got '0'"),
    ("step negative", _set("parameters", "columns", 0, "step")("-1/4"), "must be positive"),
    ("columns not list", _set("parameters", "columns")({"a": 1}), "non-empty list"),
    ("columns empty", _set("parameters", "columns")([]), "non-empty list"),
    ("estimates short", _set("release", "estimates")(["1"]), "one of each per coordinate"),
    ("rounds not list", _set("release", "rounds")(7), "rounds: expected a non-empty list"),
    ("round not object", _set("release", "rounds")([3]), "clip_radius: missing"),
    (
        "round share zero",
        _set("release", "rounds")([{"clip_radius": 2, "noise_share": "0"}]),
        "positive",
    ),
    (
        "round radius text",
        _set("release", "rounds")([{"clip_radius": "r"}]),
        "clip_radius: got 'r'",
    ),
    ("accuracy missing", lambda d: d.pop("accuracy"), "accuracy: missing"),
    ("tiny scale", _set("release", "clip_radius")(1), ""),  # sane: a radius of 1 draws
]

SHAPES: list[tuple[str, Edit, str]] = [
    ("share zero", _set("parameters", "shares", 0)("0"), "shares: got '0'; it must be positive"),
    ("share negative", _set("parameters", "shares", 0)("-1/2"), "must be positive"),
    ("share huge", _set("parameters", "shares", 0)(HUGE), "too far from 1 to draw"),
    ("shares over budget", _set("parameters", "shares")(["1", "1"]), "at most 1"),
    ("shares three", _set("parameters", "shares")(["1/3", "1/3", "1/3"]), "at most 2"),
    ("rho negative", _set("parameters", "rho")("-1"), "rho: got '-1'; it must be positive"),
    ("rho zero", _set("parameters", "rho")("0"), "must be positive"),
    ("step zero", _set("parameters", "columns", 0, "step")("0"), "step: got '0'"),
    ("bounds reversed", _set("parameters", "columns", 0, "lower")("200"), "is not below upper"),
    ("bounds equal", _set("parameters", "columns", 0, "lower")("100"), "is not below upper"),
    ("bound huge", _set("parameters", "columns", 0, "upper")(HUGE), "too far from 1 to draw"),
    ("bound float", _set("parameters", "columns", 0, "upper")(1.5), "upper: got 1.5"),
    ("p zero", _set("parameters", "p")(0), "p: got 0"),
    ("p huge", _set("parameters", "p")(10**6), "an integer from 1 to 64"),
    ("p text", _set("parameters", "p")("2"), "p: got '2'"),
    ("p large but allowed", _set("parameters", "p")(64), ""),
]


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("docs")
    data = root / "m.csv"
    data.write_text("a,b\n" + "".join(f"{i % 5},{(3 * i) % 7}\n" for i in range(40)))
    common = ["--columns", "a,b", "--seed", "01", "--quiet"]
    runs = {
        "means": ["--mechanism", "plan-mean", "--bounds=-8:8", "--grid", "1/4", "--rho", "2"],
        "gaussian": ["--mechanism", "vector-gaussian", "--bounds", "0:100", "--rho", "1"],
        "laplace": ["--mechanism", "vector-laplace", "--bounds", "0:100", "--epsilon", "1"],
    }
    out = {}
    for name, argv in runs.items():
        path = root / f"{name}.json"
        assert main(["release", str(data), *argv, *common, "--out", str(path)]) == 0
        out[name] = json.loads(path.read_text(encoding="utf-8"))
    return out


def _cli(doc: dict[str, Any], picture: str, tmp_path: Path) -> int:
    path, out = tmp_path / "d.json", tmp_path / "p.png"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code = main(["plot", picture, str(path), "--out", str(out)])
    assert code == 0 or not out.exists()
    return code


@pytest.mark.parametrize(("case", "edit", "match"), MEANS, ids=[c[0] for c in MEANS])
def test_tampered_means_documents_are_refused_by_field(
    documents: dict[str, dict[str, Any]], case: str, edit: Edit, match: str
) -> None:
    doc = copy.deepcopy(documents["means"])
    edit(doc)
    if not match:
        mean_series(doc, "d.json")
        return
    with pytest.raises(ParameterError, match=match):
        mean_series(doc, "d.json")


@pytest.mark.parametrize(("case", "edit", "match"), SHAPES, ids=[c[0] for c in SHAPES])
@pytest.mark.parametrize("kind", ["gaussian", "laplace"])
def test_tampered_shapes_documents_are_refused_by_field(
    documents: dict[str, dict[str, Any]], kind: str, case: str, edit: Edit, match: str
) -> None:
    doc = copy.deepcopy(documents[kind])
    if kind == "laplace" and "rho" in case:
        edit = _set("parameters", "epsilon")(doc["parameters"]["epsilon"])
        match = ""
    edit(doc)
    if kind == "laplace" and case == "shares over budget":
        match = "sum to 2"
    if not match:
        shape_series(doc, "d.json")
        return
    with pytest.raises(ParameterError, match=match):
        shape_series(doc, "d.json")


@pytest.mark.parametrize(
    ("picture", "kind", "edit"),
    [
        ("means", "means", MEANS[0][1]),
        ("means", "means", MEANS[13][1]),
        ("shapes", "gaussian", SHAPES[0][1]),
        ("shapes", "laplace", SHAPES[8][1]),
    ],
)
def test_the_command_exits_2_without_a_picture(
    documents: dict[str, dict[str, Any]],
    picture: str,
    kind: str,
    edit: Edit,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = copy.deepcopy(documents[kind])
    edit(doc)
    assert _cli(doc, picture, tmp_path) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_the_limits_of_a_drawable_figure_are_exact() -> None:
    """Both edges of :mod:`finitedp.plot.fields`' ranges (mutants of the constants and of
    the comparisons survived without this)."""
    from fractions import Fraction

    from finitedp.plot.fields import MAX_MAGNITUDE, count, drawable

    assert MAX_MAGNITUDE == 2**1000
    assert count({"n": 2**1000 - 1}, "n", "d") == 2**1000 - 1
    with pytest.raises(ParameterError, match="n: got"):
        count({"n": 2**1000}, "n", "d")
    assert count({"n": 1}, "n", "d") == 1
    with pytest.raises(ParameterError, match="at least 2"):
        count({"n": 1}, "n", "d", minimum=2)
    for bits in (998, -998):  # bit-length difference 998 (magnitude about 2^998): drawn
        value = Fraction(2**bits) if bits > 0 else Fraction(1, 2**-bits)
        assert drawable(value, "x", "d") == value
        assert drawable(-value, "x", "d") == -value
    for bits in (999, -999):
        value = Fraction(2**bits) if bits > 0 else Fraction(1, 2**-bits)
        with pytest.raises(ParameterError, match="too far from 1"):
            drawable(value, "x", "d")
    assert drawable(Fraction(0), "x", "d") == 0


@pytest.mark.skipif(
    __import__("importlib").util.find_spec("matplotlib") is None,
    reason="needs the plot extra (matplotlib)",
)
@pytest.mark.parametrize("kind", ["means", "gaussian", "laplace"])
def test_plot_release_reads_every_column_release(
    documents: dict[str, dict[str, Any]],
    kind: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 42 item 7: ``plot release`` draws sums, quantiles and means too."""
    path, out = tmp_path / "d.json", tmp_path / "p.png"
    path.write_text(json.dumps(documents[kind]), encoding="utf-8")
    assert main(["plot", "release", str(path), "--out", str(out)]) == 0
    assert out.stat().st_size > 1000
    bad = copy.deepcopy(documents[kind])
    bad["estimates"][0]["value"] = "1" + "0" * 400  # no float holds it
    path.write_text(json.dumps(bad), encoding="utf-8")
    if kind != "means":
        assert main(["plot", "release", str(path), "--out", str(tmp_path / "q.png")]) == 2
        assert "too far from 1" in capsys.readouterr().err
