"""The ``finitedp audit`` command: successes, failures and input errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from finitedp.cli import main


def test_audit_geo_prints_exact_tables_and_claims(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "geo", "--n", "3", "--epsilon", "1/2"]) == 0
    out = capsys.readouterr().out
    assert "c = 0: {0: " in out
    assert "max ratio over neighbouring counts = 5/4" in out  # k = 2: 1 + 2^-2
    assert "FAILS" not in out and out.count("[holds]") == 5
    assert "Readable (decimal, display only)" in out


def test_audit_fast_tight(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "audit",
            "fast",
            "--n",
            "4",
            "--epsilon",
            "1/3",
            "--gamma",
            "1/8",
            "--beta",
            "1/4",
            "--noise",
            "tight",
            "--no-distributions",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "mode = tight" in out and "c = 0:" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["audit", "geo", "--n", "3", "--epsilon", "2/3"], "epsilon: got 2/3"),
        (["audit", "geo", "--n", "0", "--epsilon", "1"], "n: got 0"),
        (
            ["audit", "fast", "--n", "3", "--epsilon", "1", "--gamma", "1/4", "--beta", "1/8"],
            "beta: got 1/8",
        ),
        (["audit", "geo", "--n", "3", "--epsilon", "one"], "not an exact number"),
    ],
)
def test_audit_input_errors_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_audit_fast_requires_gamma() -> None:
    with pytest.raises(SystemExit, match="needs --gamma"):
        main(["audit", "fast", "--n", "3", "--epsilon", "1"])


def test_console_entry_point_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "finitedp", "audit", "geo", "--n", "2", "--epsilon", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "GeoSample(n=2, epsilon=1)" in done.stdout


def test_vectors_verify_and_its_failure(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    reference = Path(__file__).resolve().parent.parent / "vectors" / "reference.jsonl"
    lines = reference.read_text(encoding="utf-8").splitlines(keepends=True)[:20]
    good = Path(str(tmp_path)) / "good.jsonl"
    good.write_text("".join(lines), encoding="utf-8")
    assert main(["vectors", "verify", str(good)]) == 0
    bad = Path(str(tmp_path)) / "bad.jsonl"
    broken = lines[5].replace('"output":"', '"output":"9', 1)
    assert broken != lines[5]
    bad.write_text("".join([*lines[:5], broken, *lines[6:]]), encoding="utf-8")
    assert main(["vectors", "verify", str(bad)]) == 1
    assert "line 6" in capsys.readouterr().err
