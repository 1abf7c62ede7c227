"""The CLI reads exactly the file it is given (issue 27 item 1): pipes once, names literally."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from finitedp.cli import main

ARGS = ["--column", "city", "--universe", "utf8:1", "--epsilon", "1", "--seed", "00", "--quiet"]


def _n(argv: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    assert main(["release", *argv, *ARGS]) == 0
    return int(json.loads(capsys.readouterr().out)["parameters"]["n"])


def _csv(rows: int, half: str = "A", other: str = "B") -> bytes:
    return (
        b"city\n"
        + (half + "\n").encode() * (rows // 2)
        + (other + "\n").encode() * (rows - rows // 2)
    )


def test_a_pipe_is_read_whole_once() -> None:
    """800,000 rows through /dev/stdin: the header's read used to swallow the first MiB."""
    data = _csv(800_000)
    done = subprocess.run(
        [sys.executable, "-m", "finitedp", "release", "/dev/stdin", *ARGS],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["parameters"]["n"] == 800_000


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_named_fifo_is_read_whole_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "rows.csv"
    os.mkfifo(fifo)
    data = _csv(300_000)

    def write() -> None:
        with open(fifo, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert _n([str(fifo)], capsys) == 300_000
    finally:
        writer.join(timeout=30)


@pytest.mark.parametrize("name", ["*.csv", "?.csv", "[ab].csv", "{a,b}.csv"])
def test_glob_characters_are_read_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    (tmp_path / "a.csv").write_bytes(_csv(3))
    (tmp_path / "b.csv").write_bytes(_csv(5))
    (tmp_path / name).write_bytes(_csv(1))
    monkeypatch.chdir(tmp_path)
    assert _n([name], capsys) == 1
    assert _n([str(tmp_path / name)], capsys) == 1


def test_a_folder_named_tilde_is_not_home(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "~").mkdir()
    (tmp_path / "~" / "y.csv").write_bytes(_csv(7))
    home = tmp_path / "home"
    home.mkdir()
    (home / "y.csv").write_bytes(_csv(2))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    assert _n(["~/y.csv"], capsys) == 7


def test_a_url_like_name_is_a_local_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["release", "http://example.com/x.csv", *ARGS]) == 2
    assert "cannot read it" in capsys.readouterr().err
    local = tmp_path / "s3:" / "" / "bucket"
    local.mkdir(parents=True)
    (local / "k.csv").write_bytes(_csv(4))
    assert _n(["s3://bucket/k.csv"], capsys) == 4


def test_an_endless_device_is_refused_at_the_limit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "4M")
    assert main(["release", "/dev/zero", *ARGS]) == 2
    err = capsys.readouterr().err
    assert "/dev/zero: a stream (not a regular file) longer than 4.0 MiB" in err
