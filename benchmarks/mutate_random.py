"""Random mutation testing: mutate random sites of a module, run its tests, list the survivors.

Run (from the repository root)::

    .venv/bin/python benchmarks/mutate_random.py finitedp/counting/gaussian.py \
        --tests tests/test_gaussian.py --count 30 [--seed N]

A *site* is one token of the module's code (never a docstring), found with
``ast``: a comparison operator (``<`` and ``<=``, ``>`` and ``>=``, ``==`` and
``!=`` swapped), an integer constant (``k`` to ``k + 1`` and ``k - 1``), an
arithmetic operator (``+`` and ``-``, ``*`` and ``//``), ``and`` and ``or``, or
``True`` and ``False``.  ``--count`` sites are drawn at random (the seed is
printed; by default it changes every run), each mutant is written over the
module, the tests (the named files plus the module's doctests) run under a
timeout, and the file is restored.  A mutant *survives* when every test passes.

The output is a table of survivors (line, the original and the mutated text)
and the score.  A survivor is a missing test or an equivalent mutant; the
closing note of the session that ran it says which.  Not run by CI: one
module takes minutes.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_COMPARE = {
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
}
_BINARY = {
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "//"),
    ast.FloorDiv: ("//", "*"),
}


@dataclass(frozen=True)
class Site:
    line: int  # 1-based
    start: int  # column of the token in that line
    old: str
    new: str


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                first = body[0]
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def _between(
    source: list[str], left: ast.AST, right: ast.AST, token: str
) -> tuple[int, int] | None:
    """The position of ``token`` between two nodes on one line, or ``None``."""
    line = getattr(left, "end_lineno", None)
    if line is None or line != getattr(right, "lineno", None):
        return None
    text = source[line - 1]
    start, end = left.end_col_offset or 0, right.col_offset
    found = text.find(token, start, end)
    if found < 0:
        return None
    if token in ("<", ">") and text[found : found + 2] in ("<=", ">=", "<<", ">>"):
        return None
    if token in ("*", "/") and text[found : found + 2] in ("**", "//") and token != "//":
        return None
    return line, found


def sites(path: Path) -> list[Site]:
    text = path.read_text(encoding="utf-8")
    source = text.splitlines()
    tree = ast.parse(text)
    skip = _docstring_lines(tree)
    # Nothing inside an f-string (messages) or a docstring is a site.
    in_messages = {
        id(n) for s in ast.walk(tree) if isinstance(s, ast.JoinedStr) for n in ast.walk(s)
    }
    out: list[Site] = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip or id(node) in in_messages:
            continue
        if isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                pair = _COMPARE.get(type(op))
                if pair:
                    at = _between(source, left, right, pair[0])
                    if at:
                        out.append(Site(at[0], at[1], pair[0], pair[1]))
                left = right
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            old, new = _BINARY[type(node.op)]
            at = _between(source, node.left, node.right, old)
            if at:
                out.append(Site(at[0], at[1], old, new))
        elif isinstance(node, ast.BoolOp) and len(node.values) == 2:
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            at = _between(source, node.values[0], node.values[1], f" {old} ")
            if at:
                out.append(Site(at[0], at[1] + 1, old, new))
        elif isinstance(node, ast.Constant) and node.end_lineno == node.lineno:
            value = node.value
            line = source[node.lineno - 1]
            token = line[node.col_offset : node.end_col_offset]
            if isinstance(value, bool):
                out.append(Site(node.lineno, node.col_offset, token, str(not value)))
            elif isinstance(value, int) and token.isdigit():
                for new in (value + 1, value - 1):
                    if new >= 0:
                        out.append(Site(node.lineno, node.col_offset, token, str(new)))
    return [s for s in out if source[s.line - 1][s.start : s.start + len(s.old)] == s.old]


def apply(text: str, site: Site) -> str:
    lines = text.splitlines(keepends=True)
    line = lines[site.line - 1]
    assert line[site.start : site.start + len(site.old)] == site.old, site
    lines[site.line - 1] = line[: site.start] + site.new + line[site.start + len(site.old) :]
    return "".join(lines)


def run_tests(module: str, tests: list[str], timeout: int) -> str:
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", module, *tests]
    # Tests that run ``python -m finitedp`` in a subprocess (the CLI suites) must import
    # this tree, the mutant, and not the installed package: in a clone of the
    # repository they would otherwise test the checkout the venv points at.
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    try:
        result = subprocess.run(
            command, cwd=ROOT, capture_output=True, timeout=timeout, check=False, env=env
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    return "survived" if result.returncode == 0 else "killed"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("module", help="the file to mutate, e.g. finitedp/counting/gaussian.py")
    parser.add_argument("--tests", nargs="+", required=True, help="the test files to run")
    parser.add_argument("--count", type=int, default=30, help="mutants to try (default 30)")
    parser.add_argument("--seed", type=int, default=None, help="default: from the clock")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per mutant")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else time.time_ns() % 10**9
    path = ROOT / args.module
    original = path.read_text(encoding="utf-8")
    found = sites(path)
    chosen = random.Random(seed).sample(found, min(args.count, len(found)))
    chosen.sort(key=lambda s: (s.line, s.start))
    print(f"{args.module}: {len(found)} sites, {len(chosen)} mutants, seed {seed}")
    if run_tests(args.module, args.tests, args.timeout) != "survived":
        print("the tests fail before any mutation: fix them first")
        return 2
    survivors = []
    try:
        for i, site in enumerate(chosen, 1):
            path.write_text(apply(original, site), encoding="utf-8")
            verdict = run_tests(args.module, args.tests, args.timeout)
            source_line = original.splitlines()[site.line - 1].strip()
            change = f"{site.old!r:>6} -> {site.new!r:<6}"
            print(f"  {i:3}/{len(chosen)} line {site.line:4} {change} {verdict}")
            if verdict == "survived":
                survivors.append((site, source_line))
    finally:
        path.write_text(original, encoding="utf-8")
    killed = len(chosen) - len(survivors)
    print(f"\nkilled {killed} of {len(chosen)}")
    if survivors:
        print("survivors (a missing test, or an equivalent mutant: say which):")
        for site, line in survivors:
            print(f"  line {site.line}: {site.old} -> {site.new}   in   {line}")
    return 0 if not survivors else 1


if __name__ == "__main__":
    sys.exit(main())
