"""Every shell command of README.md runs as written (issue 42 item 4).

The README's Python blocks are doctests (``--doctest-glob=README.md``); this file does
the same for its shell blocks.  In a copy of ``examples/`` (so the commands read the
shipped data by the paths the README gives, and write nothing into the repository):

- a ``console`` block is a list of ``$ command`` lines (a trailing ``\\`` continues a
  command), each followed by the output it prints on stdout, compared as doctest
  compares (``...`` matches anything, whitespace normalised); a command whose line
  says ``# exit status N`` must exit with ``N``, every other with 0;
- an ``sh`` block runs whole under ``bash -e``, except the set-up commands (``pip
  install``, checked by ``.ci/run`` itself), of which the main job after the
  install is run with the ``finitedp`` of this environment;
- a ``python`` block that the text before it asks to "Save this as `NAME`" is saved.

``finitedp plot`` commands need the plot extra, and are skipped without it.
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def _blocks() -> list[tuple[str, str, str]]:
    """``(language, body, the text just before)`` of every fenced block, in order."""
    out, last = [], 0
    for match in FENCE.finditer(README):
        out.append((match.group(1), match.group(2), README[last : match.start()][-300:]))
        last = match.end()
    return out


def _console(body: str) -> list[tuple[str, str]]:
    """``(command, expected stdout)`` pairs of a console block."""
    pairs: list[tuple[str, str]] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            raise AssertionError(f"README console block: output with no command: {lines[i]!r}")
        command = lines[i][2:]
        while command.endswith("\\"):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        pairs.append((command, "\n".join(expected)))
    return pairs


def _steps() -> list[tuple[str, str, str, int | None]]:
    """``(kind, text, expected, exit status)``: ``save`` a file, ``run`` a command."""
    steps: list[tuple[str, str, str, int | None]] = []
    for language, body, before in _blocks():
        if language == "python":
            saved = re.search(r"Save this as `([\w.]+)`", before)
            if saved:
                steps.append(("save", saved.group(1), body, None))
        elif language == "console":
            for command, expected in _console(body):
                status = re.search(r"# exit status (\d+)", command)
                steps.append(("run", command, expected, int(status.group(1)) if status else 0))
        elif language == "sh":
            if "pip install -e" in body:
                continue  # the test command: this very run
            if "pip install ." in body:  # the main job, after the install
                body = body.split("pip install . && ", 1)[1].replace(
                    ".venv/bin/finitedp", "finitedp"
                )
            steps.append(("run", body.strip(), "", 0))
    return steps


STEPS = _steps()


def test_the_readme_has_its_commands() -> None:
    commands = [text for kind, text, _, _ in STEPS if kind == "run"]
    assert len(commands) >= 14 and any("examples/data/visits.csv" in c for c in commands)
    assert not any(
        re.search(r"(?<![\w/])(ages|data|visits)\.csv|kosarak\.dat", c) for c in commands
    )


def test_every_readme_command_runs_as_written(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for kind, text, expected, status in STEPS:
        if kind == "save":
            (tmp_path / text).write_text(expected, encoding="utf-8")
            continue
        if "finitedp plot" in text and not HAS_MATPLOTLIB:
            continue
        result = subprocess.run(
            ["bash", "-e", "-c", text],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert result.returncode == status, (text, result.stderr[-2000:])
        if expected:
            got = result.stdout
            assert checker.check_output(expected + "\n", got, flags), (text, expected, got)
