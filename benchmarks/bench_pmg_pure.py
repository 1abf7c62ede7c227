"""pmg-pure against pmg at the flights table's shape (issues 51 item 5, 53 item 4).

Run: ``python benchmarks/bench_pmg_pure.py [--rows 336776] [--keys 105] [--k 20]
[--repeats 3] [--dir DIR]``.

A CSV file of ``--rows`` rows of one string key column over ``--keys`` Zipf-like keys
(``K000`` the most frequent, weights ``1/i^1.1``, a fixed numpy seed) is generated once
in ``--dir``.  Then DuckDB's ``GROUP BY key count(*)`` of it, ``pmg`` (``--delta
1/1000000``) and ``pmg-pure`` (``--max-length`` the next power of ten above the rows),
both at ``--k`` and epsilon 1, unseeded and seeded, each in its own process,
``--repeats`` times: the median time of the release (in the process, after imports),
the peak resident memory, the ratio pmg-pure / pmg (target: within 10), and
how many of pmg-pure's listed keys lie within the noise of an absent key (its
``noise_floor``) against the keys that stand out.  It asserts nothing (noisy machines).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np
from _timing import RELEASE_SCRIPT, run_json

_DUCK = r"""
import json, resource, sys, time
import duckdb
start = time.perf_counter()
duckdb.sql(f"SELECT dest, count(*) FROM read_csv('{sys.argv[1]}') GROUP BY dest").fetchall()
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "peak": peak}))
"""


def _median(script: str, repeats: int, *argv: str) -> tuple[float, float]:
    runs = [run_json(script, *argv) for _ in range(repeats)]
    return statistics.median(r["seconds"] for r in runs), max(r["peak"] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=336_776)
    parser.add_argument("--keys", type=int, default=105)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dir", default=tempfile.gettempdir())
    args = parser.parse_args()
    path = Path(args.dir) / f"finitedp-dest-{args.rows}-{args.keys}.csv"
    if not path.exists():
        weights = 1 / np.arange(1, args.keys + 1) ** 1.1
        drawn = np.random.default_rng(7).choice(args.keys, args.rows, p=weights / weights.sum())
        width = len(str(args.keys - 1))
        path.write_text(
            "dest\n" + "".join(f"K{i:0{width}d}\n" for i in drawn.tolist()), encoding="utf-8"
        )
    duck, duck_peak = _median(_DUCK, args.repeats, str(path))
    print(
        f"{args.rows:,} rows over {args.keys} keys; k = {args.k}; DuckDB GROUP BY count "
        f"{duck:.2f} s, {duck_peak / 2**20:.0f} MiB"
    )
    out = Path(tempfile.mkdtemp(prefix="finitedp-bench-")) / "r.json"
    common = ["release", str(path), "--column", "dest", "--universe", "utf8:4", "--k"]
    common += [str(args.k), "--epsilon", "1", "--quiet", "--out", str(out)]
    length = 10 ** len(str(args.rows))
    pmg_flags = ["--mechanism", "pmg", "--delta", "1/1000000"]
    pure_flags = ["--mechanism", "pmg-pure", "--max-length", str(length)]
    for label, seed in (("unseeded", []), ("seeded", ["--seed", "01"])):
        pmg, pmg_peak = _median(RELEASE_SCRIPT, args.repeats, *common, *pmg_flags, *seed)
        pure, pure_peak = _median(RELEASE_SCRIPT, args.repeats, *common, *pure_flags, *seed)
        print(
            f"  {label:<8} pmg {pmg:5.2f} s {pmg_peak / 2**20:4.0f} MiB | pmg-pure {pure:5.2f} s "
            f"{pure_peak / 2**20:4.0f} MiB (--max-length {length:,}) | pmg-pure / pmg "
            f"{pure / pmg:.1f}x (target 10x) | / DuckDB {pure / duck:.0f}x"
        )
    document = json.loads(out.read_text(encoding="utf-8"))
    floor = int(document["accuracy"]["noise_floor"])
    counts = [Fraction(b["count"]) for b in document["bins"]]
    faint = sum(1 for c in counts if c <= floor)
    print(
        f"  pmg-pure lists {len(counts)} keys: {len(counts) - faint} above the noise floor "
        f"{floor}, {faint} within it (each may be absent from the data)"
    )


if __name__ == "__main__":
    main()
