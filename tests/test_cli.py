"""The ``finitedp audit`` command: successes, failures and input errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
        (["audit", "geo", "--n", "3", "--epsilon", "1/3.0"], "epsilon: got '1/3.0', which is not"),
        (["audit", "geo", "--n", "3", "--epsilon", "1", "--beta", "nan"], "beta: got 'nan'"),
        (
            ["audit", "fast", "--n", "3", "--epsilon", "1", "--gamma", "0.1.2"],
            "gamma: got '0.1.2', which is not an exact number",
        ),
    ],
)
def test_audit_input_errors_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["audit", "fast", "--n", "3", "--epsilon", "1"], "--gamma: the fast sampler needs it"),
        (
            ["audit", "geo", "--n", "3", "--epsilon", "1", "--gamma", "1/8"],
            "--gamma: does not apply to the geo sampler",
        ),
    ],
)
def test_audit_gamma_misuse_is_an_input_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Exit status 1 means "a claim failed": a missing or inapplicable --gamma is exit 2.
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("finitedp audit: ") and message in lines[0]


def test_audit_gamma_misuse_exits_2_from_the_console(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "finitedp", "audit", "fast", "--n", "3", "--epsilon", "1"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "finitedp audit: --gamma: the fast sampler needs it, e.g. --gamma 1/8"
    ]


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


def test_audit_reads_decimal_text_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    # A command-line number is text, and "0.5" is exactly 1/2 (no float is involved).
    assert main(["audit", "geo", "--n", "2", "--epsilon", "0.5", "--no-distributions"]) == 0
    assert "GeoSample(n=2, epsilon=1/2)" in capsys.readouterr().out


def test_vectors_verify_an_unreadable_file_fails_and_names_it(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    absent = Path(str(tmp_path)) / "absent.jsonl"
    # A file that cannot be read is an input error (2), not a failed verification (1).
    assert main(["vectors", "verify", str(absent)]) == 2
    err = capsys.readouterr().err
    assert err == f"finitedp vectors: {absent}: cannot read it: No such file or directory\n"
    assert main(["vectors", "verify", str(tmp_path)]) == 2
    assert f"{tmp_path}: cannot read it: Is a directory" in capsys.readouterr().err


def test_vectors_verify_of_a_readable_non_vector_file_still_fails_with_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n", encoding="utf-8")
    assert main(["vectors", "verify", str(garbage)]) == 1
    assert "line 1" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert main(["vectors", "verify", str(empty)]) == 1


def test_vectors_generate_into_a_missing_directory_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "missing" / "x.jsonl"
    assert main(["vectors", "generate", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and str(out) in lines[0] and "Traceback" not in captured.err
    assert lines[0].startswith("finitedp vectors: --out: ")
    assert not out.parent.exists()
    assert main(["vectors", "generate", "--out", str(tmp_path)]) == 2  # a directory
    assert f"{tmp_path} is a directory" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_vectors_generate_writes_atomically_and_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "v.jsonl"
    out.write_text("old\n", encoding="utf-8")
    assert main(["vectors", "generate", "--out", str(out)]) == 0
    assert f"vectors to {out}" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["v.jsonl"]  # no temporary file left
    assert main(["vectors", "verify", str(out)]) == 0


def test_vectors_generate_a_write_failure_exits_2_and_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from finitedp import vectors

    out = tmp_path / "v.jsonl"
    out.write_text("old\n", encoding="utf-8")

    def full_disk(path: str | Path) -> int:
        Path(path).write_text("partial", encoding="utf-8")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(vectors, "generate_to", full_disk)
    assert main(["vectors", "generate", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"finitedp vectors: --out: cannot write {out}: No space left on device\n"
    assert out.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["v.jsonl"]


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "--help"],
        ["audit", "geo", "--help"],
        ["audit", "fast", "--help"],
        ["audit", "stability", "--help"],
        ["plot", "pmf", "--help"],
        ["release", "--help"],
    ],
)
def test_help_says_decimal_text_is_read_exactly(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # "0.5" on the command line is read as exactly 1/2: the help must not forbid it.
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "not 0.5" not in text
    assert "0.5, read as exactly 1/2" in text


def test_plot_release_of_an_unreadable_file_exits_2(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    pytest.importorskip("matplotlib")
    absent = Path(str(tmp_path)) / "absent.json"
    picture = Path(str(tmp_path)) / "x.png"
    assert main(["plot", "release", str(absent), "--out", str(picture)]) == 2
    assert f"{absent}: cannot read it: No such file or directory" in capsys.readouterr().err
    assert not picture.exists()
