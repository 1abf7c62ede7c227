"""Answers in a blink (issue 52 item 4): the CPU time of the small questions.

Run: ``python benchmarks/bench_latency.py [--repeats 5]``.

Each command runs in its own process, ``--repeats`` times after one warm-up run (which
writes the bytecode a user's machine keeps: ``PYTHONDONTWRITEBYTECODE`` is unset for
these runs), and the median CPU time (user + system, of the child) is printed beside
the target: ``import finitedp``, ``finitedp --version``, ``finitedp query`` of a column
release and of a sketch's release (at most 0.3 s each), and ``plan-mean`` on a
336,776-row CSV through the command line against the API on the same data (the API's
time includes reading the CSV with numpy; target: the CLI within 1.5x).  It asserts
nothing (noisy machines).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

_API = r"""
import sys
import numpy as np
from finitedp.mean import PLAN
rows = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1, dtype=np.int64)
plan = PLAN(-60, 300, d=2, n=len(rows), rho="1/2")
plan.release_indices(rows + 60)
"""


def _cpu(argv: list[str], repeats: int) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = []
    for i in range(repeats + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, env=env, capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if i:  # the first run writes the bytecode
            times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="finitedp-latency-"))
    finitedp = [sys.executable, "-m", "finitedp"]
    data = Path(__file__).resolve().parent.parent / "examples" / "data" / "flights.csv"
    column, sketch = folder / "sums.json", folder / "sketch.json"
    sums = ["--mechanism", "vector-laplace", "--columns", "dep_delay", "--bounds=-60:300"]
    sums += ["--clamp", "--nulls", "drop", "--epsilon", "1", "--quiet", "--out", str(column)]
    subprocess.run([*finitedp, "release", str(data), *sums], check=True)
    heavy = ["--column", "dest", "--universe", "utf8:3", "--mechanism", "pmg", "--k", "20"]
    heavy += ["--epsilon", "1", "--delta", "1/1000000", "--quiet", "--out", str(sketch)]
    subprocess.run([*finitedp, "release", str(data), *heavy], check=True)
    delays = folder / "delays.csv"
    rng = np.random.default_rng(1)
    a, b = rng.integers(-20, 200, 336_776), rng.integers(-30, 300, 336_776)
    delays.write_text(
        "dep_delay,arr_delay\n"
        + "".join(f"{x},{y}\n" for x, y in zip(a.tolist(), b.tolist(), strict=True)),
        encoding="utf-8",
    )
    cases = [
        ("import finitedp", [sys.executable, "-c", "import finitedp"], "0.3"),
        ("finitedp --version", [*finitedp, "--version"], "0.3"),
        ("query (column release)", [*finitedp, "query", str(column), "dep_delay"], "0.3"),
        ("query (sketch)", [*finitedp, "query", str(sketch), "ORD"], "0.3"),
        ("query RELEASE (words)", [*finitedp, "query", str(sketch)], "0.3"),
    ]
    for name, argv, target in cases:
        print(f"  {name:<24} {_cpu(argv, args.repeats):6.3f} s CPU (target {target} s)")
    plan = ["--mechanism", "plan-mean", "--columns", "dep_delay,arr_delay", "--bounds=-60:300"]
    plan += ["--rho", "1/2", "--quiet", "--out", str(folder / "plan.json")]
    cli = _cpu([*finitedp, "release", str(delays), *plan], args.repeats)
    api = _cpu([sys.executable, "-c", _API, str(delays)], args.repeats)
    print(
        f"  plan-mean, 336,776 x 2 CSV: CLI {cli:.2f} s CPU, API {api:.2f} s "
        f"(numpy reads the CSV), CLI/API {cli / api:.2f} (target 1.5)"
    )


if __name__ == "__main__":
    main()
