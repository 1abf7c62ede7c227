"""``finitedp plot means``: a PLAN release's estimates with their noise's error bars."""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction
from pathlib import Path

import pytest

from finitedp.cli import main
from finitedp.errors import ParameterError
from finitedp.plot.means import mean_series

HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


@pytest.fixture
def release(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    data = tmp_path / "m.csv"
    data.write_text("a,b\n" + "".join(f"{i % 5},{(3 * i) % 7 - 3}\n" for i in range(40)))
    out = tmp_path / "r.json"
    argv = ["release", str(data), "--mechanism", "plan-mean", "--columns", "a,b"]
    argv += ["--bounds=-8:8", "--grid", "1/4", "--rho", "2", "--seed", "01", "--quiet"]
    assert main([*argv, "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def test_series_is_read_exactly_from_the_document(release: Path) -> None:
    doc = json.loads(release.read_text(encoding="utf-8"))
    series = mean_series(doc, "r.json")
    rel = doc["release"]
    assert series.names == ("a", "b")
    assert series.estimates == tuple(Fraction(e) for e in rel["estimates"])
    assert series.sigma2 == Fraction(doc["accuracy"]["noise_sigma2_units"])
    assert series.deviations == tuple(
        Fraction(rel["clip_radius"], rel["units"] * rel["n"] * s) * Fraction(1, 4)
        for s in rel["scales"]
    )


def test_other_releases_are_refused() -> None:
    with pytest.raises(ParameterError, match="not a PLAN release"):
        mean_series({"release": {"type": "vector-sum"}}, "x.json")
    with pytest.raises(ParameterError, match="release: missing"):
        mean_series({}, "x.json")


def test_malformed_documents_are_refused_and_the_bars_are_two_deviations(release: Path) -> None:
    """Edges of the document checks (columns not a list, a round's radius 0 refused and 1
    accepted, a share 0 refused) and the drawn bars: exactly ``2 sigma`` deviations."""
    good = json.loads(release.read_text(encoding="utf-8"))
    series = mean_series(good, "r.json")
    sigma = float(Fraction(good["accuracy"]["noise_sigma2_units"])) ** 0.5
    assert series.bars() == [2 * sigma * float(d) for d in series.deviations]
    bad = json.loads(release.read_text(encoding="utf-8"))
    bad["parameters"]["columns"] = {"name": "a"}
    with pytest.raises(ParameterError, match="columns: expected a non-empty list"):
        mean_series(bad, "r.json")
    scales = json.loads(release.read_text(encoding="utf-8"))
    scales["release"]["scales"].append(1)  # columns and estimates agree, scales do not
    with pytest.raises(ParameterError, match="one of each per coordinate"):
        mean_series(scales, "r.json")
    rounds = json.loads(release.read_text(encoding="utf-8"))
    rounds["release"]["rounds"] = [{"clip_radius": 1}, {"clip_radius": 2}]
    mean_series(rounds, "r.json")  # a radius of 1 is a radius
    rounds["release"]["rounds"][0]["clip_radius"] = 0
    with pytest.raises(ParameterError, match="clip_radius: got 0; it must be at least 1"):
        mean_series(rounds, "r.json")
    rounds["release"]["rounds"][0] = {"clip_radius": 1, "noise_share": "0"}
    with pytest.raises(ParameterError, match="noise_share: got '0'; it must be positive"):
        mean_series(rounds, "r.json")


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason="needs the plot extra (matplotlib)")
def test_the_picture_is_written(
    release: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "means.png"
    assert main(["plot", "means", str(release), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "wrote" in capsys.readouterr().err


def test_rounds_bars_are_the_combined_noise_with_each_rounds_share() -> None:
    """With an uneven split the bars' ``sigma2`` is the combination's variance: the
    weighted mean of the rounds' noises (weights ``s_t/C_t^2``), each round's sigma^2
    its own table's, over the last radius squared."""
    import numpy as np

    from finitedp.mean import PLAN
    from finitedp.oracle import SeededSource

    plan = PLAN(-20, 20, d=3, n=400, rho="1/2", step="1/16", rounds=3,
                noise_split=["1/8", "1/8", "3/4"], selection="exponential")  # fmt: skip
    rows = np.random.default_rng(5).integers(300, 340, size=(400, 3))
    rel = plan.release_indices(rows, SeededSource(b"bars"))
    doc = {
        "release": rel.to_json_dict(),
        "parameters": {"columns": [{"name": c, "step": "1/16"} for c in "abc"]},
        "accuracy": {"noise_sigma2_units": str(plan.noise.sigma2)},
    }
    weights = [r.share / r.radius**2 for r in rel.rounds]
    total = sum(weights, Fraction(0))
    variance = sum(
        (w / total) ** 2 * t.sigma2 * r.radius**2  # type: ignore[operator]
        for w, t, r in zip(weights, plan.noises, rel.rounds, strict=True)
    )
    assert mean_series(doc, "doc").sigma2 == variance / rel.radius**2
