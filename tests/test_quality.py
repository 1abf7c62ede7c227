"""The codebase stays `mypy --strict` and `ruff` clean (both are in the test extra)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_is_clean() -> None:
    done = _run("ruff", "check", "finitedp", "tests", "benchmarks", "examples")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_is_clean() -> None:
    done = _run("mypy", "--strict", "finitedp")
    assert done.returncode == 0, done.stdout + done.stderr
