"""Histograms and sketches at file speed and in bounded memory, seeded and not (issue 53).

Run: ``python benchmarks/bench_seeded.py [--rows 10000000] [--big] [--dir DIR]
[--distributions zipf,uniform,steep] [--skip NAME,...]``; ``--big`` is 10^8 rows.

For each key distribution a Parquet file of ``--rows`` rows of one string key column
over 10^4 keys is generated once with DuckDB and kept in ``--dir``: ``zipf``
(``k`` || floor(10^4 u^3), Zipf-like), ``uniform`` (every key alike) and ``steep``
(floor(10^4 u^8): a few keys hold most rows).  Then DuckDB's own
``GROUP BY key count(*)`` of it, and every histogram and sketch mechanism of
``finitedp release`` over ``--universe utf8:8``, without and with ``--seed``, each in
its own process (wall time and peak resident memory, ``ru_maxrss``).  It prints each
pair, the seeded/unseeded ratios of time and memory (target: both within 1.2), and
each release's time against DuckDB's count (target for the default, blanket: 20x at
10^7); it asserts nothing (the machines are noisy).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import duckdb
from _timing import RELEASE_SCRIPT, run_json

_DUCK = r"""
import json, resource, sys, time
import duckdb
con = duckdb.connect(config={"threads": 2})
con.execute("SET enable_progress_bar = false")
start = time.perf_counter()
con.execute(f"SELECT key, count(*) FROM read_parquet('{sys.argv[1]}') GROUP BY key").fetchall()
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "peak": peak}))
"""


#: Each mechanism's own flags.
MECHANISMS = {
    "stability": ["--delta", "1/1000000"],
    "blanket": [],
    "pmg": ["--k", "100", "--delta", "1/1000000"],
    "alp": ["--delta", "1/1000000"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--big", action="store_true", help="--rows 100000000")
    parser.add_argument("--distributions", default="zipf,uniform,steep")
    parser.add_argument("--dir", default=tempfile.gettempdir())
    parser.add_argument("--skip", default="")
    args = parser.parse_args()
    if args.big:
        args.rows = 10**8
    for distribution in args.distributions.split(","):
        _measure(args, distribution)


#: Each distribution's key (SQL over random()).
KEYS = {
    "zipf": "floor(10000 * pow(random(), 3))",
    "uniform": "floor(10000 * random())",
    "steep": "floor(10000 * pow(random(), 8))",
}


def _measure(args: argparse.Namespace, distribution: str) -> None:
    name = "finitedp-keys" if distribution == "zipf" else f"finitedp-keys-{distribution}"
    path = Path(args.dir) / f"{name}-{args.rows}.parquet"
    if not path.exists():
        duckdb.sql(
            f"COPY (SELECT 'k' || CAST({KEYS[distribution]} AS INTEGER) AS key "
            f"FROM range({args.rows})) TO '{path}' (FORMAT parquet)"
        )
    duck = run_json(_DUCK, str(path))
    print(
        f"{args.rows:,} rows, 10^4 keys, {distribution}; DuckDB GROUP BY count: "
        f"{duck['seconds']:.2f} s, {duck['peak'] / 2**20:.0f} MiB"
    )
    skip = set(filter(None, args.skip.split(",")))
    out = Path(tempfile.mkdtemp(prefix="finitedp-bench-")) / "r.json"
    for name, flags in MECHANISMS.items():
        if name in skip:
            continue
        argv = ["release", str(path), "--column", "key", "--universe", "utf8:8", "--epsilon"]
        argv += ["1", "--mechanism", name, *flags, "--quiet", "--out", str(out)]
        plain = run_json(RELEASE_SCRIPT, *argv)
        seeded = run_json(RELEASE_SCRIPT, *argv, "--seed", "5eed")
        print(
            f"  {name:<10} unseeded {plain['seconds']:7.2f} s {plain['peak'] / 2**20:6.0f} MiB"
            f" | seeded {seeded['seconds']:7.2f} s {seeded['peak'] / 2**20:6.0f} MiB"
            f" | seeded/unseeded time {seeded['seconds'] / plain['seconds']:.2f}"
            f" memory {seeded['peak'] / plain['peak']:.2f}"
            f" | unseeded / DuckDB {plain['seconds'] / duck['seconds']:.1f}x"
        )


if __name__ == "__main__":
    main()
