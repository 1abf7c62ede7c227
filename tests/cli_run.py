"""Running the command line inside a test: the exit status and what it printed."""

from __future__ import annotations

import pytest

from finitedp.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``finitedp ARGV``: its exit status, standard output and standard error."""
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err
