"""ALP side by side with OpenDP's ``make_alp_queryable``: projection, query and memory.

The workload of issue 11: k = 10^4 keys with values in [1, 1000] (l1 norm about
5 * 10^6), eps = 1, alpha = 4.  OpenDP sizes its one bit array as
``total * size_factor * scale / alpha`` (size_factor 50: about 2^26 bits);
finitedp's s x m matrix is ``s = 2^18`` buckets by ``m = psi eps / alpha = 250``
columns (2^26 bits, ``k/s = 0.04``), and ``s = 2^17`` (2^25 bits) for a second point.
Each system is run in its own subprocess, which reports its wall time, its peak
resident memory (``ru_maxrss``) and the time per query; the table puts them side
by side with the time per bit of the representation.  Interleaved, medians of
``--runs`` runs (default 3).  OpenDP is optional: without it only finitedp runs.

    .venv/bin/python benchmarks/bench_alp.py [--runs N]     # about 2 min with OpenDP
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from typing import Any

from _timing import environment, print_table

KEYS = 10_000
TOP = 1000
SEED = 20211115

_FINITEDP = """
import json, random, resource, time, tracemalloc
from finitedp.alp import ALP
from finitedp.oracle import SystemRandomSource
rnd = random.Random({seed})
x = {{rnd.randrange(1, 2**40): rnd.randint(1, {top}) for _ in range({keys})}}
mech = ALP(2**40, 1, k={keys}, psi={top}, alpha=4, s={s})
rng = SystemRandomSource()
t = time.perf_counter(); r = mech.project(x, rng); project = time.perf_counter() - t
tracemalloc.start()  # a second projection, traced (tracemalloc slows allocation down)
mech.project(x, rng)
traced = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
keys = list(x)[:2000]
t = time.perf_counter()
for i in keys[:1000]:
    r.estimate(i)
query = (time.perf_counter() - t) / 1000
t = time.perf_counter(); r.estimates(keys); batch = (time.perf_counter() - t) / len(keys)
err = sum(abs(float(v) - x[i]) for i, v in zip(keys, r.estimates(keys))) / len(keys)
print(json.dumps({{"bits": mech.s * mech.m, "project": project, "query": query, "batch": batch,
    "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    "traced": traced, "packed": len(r.bits.packed), "mean_abs_error": err}}))
"""

_OPENDP = """
import json, random, resource, time
import opendp.prelude as dp
dp.enable_features("contrib")
rnd = random.Random({seed})
x = {{rnd.randrange(1, 2**40): rnd.randint(1, {top}) for _ in range({keys})}}
total = sum(x.values())
domain = dp.map_domain(dp.atom_domain(T=dp.i64), dp.atom_domain(T=dp.i64))
metric = dp.l01inf_distance(dp.absolute_distance(T=dp.i64))
meas = dp.m.make_alp_queryable(domain, metric, scale=1.0,
    total_limit=total, value_limit={top}, size_factor=50, alpha=4)
t = time.perf_counter(); q = meas(x); project = time.perf_counter() - t
keys = list(x)[:2000]
t = time.perf_counter()
for i in keys[:1000]:
    q(i)
query = (time.perf_counter() - t) / 1000
err = sum(abs(q(i) - x[i]) for i in keys) / len(keys)
bits = total * 50 // 4
print(json.dumps({{"bits": bits, "project": project, "query": query,
    "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    "mean_abs_error": err}}))
"""


def _run(code: str) -> dict[str, Any] | None:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=900
    )
    if done.returncode != 0:
        print(done.stderr.strip().splitlines()[-1] if done.stderr else "failed", file=sys.stderr)
        return None
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(environment())
    try:
        import opendp  # noqa: F401

        have_opendp = True
    except ImportError:
        have_opendp = False
        print("OpenDP is not installed: finitedp only (pip install opendp)")
    params = {"seed": SEED, "top": TOP, "keys": KEYS}
    systems = {
        "finitedp s=2^18": _FINITEDP.format(s=1 << 18, **params),
        "finitedp s=2^17": _FINITEDP.format(s=1 << 17, **params),
    }
    if have_opendp:
        systems["OpenDP 50x"] = _OPENDP.format(**params)
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in systems}
    for _ in range(args.runs):  # interleaved
        for name, code in systems.items():
            out = _run(code)
            if out is not None:
                results[name].append(out)
    rows = []
    for name, runs in results.items():
        if not runs:
            continue

        def med(key: str, runs: list[dict[str, Any]] = runs) -> float:
            return statistics.median(r[key] for r in runs if key in r)

        bits = runs[0]["bits"]
        rows.append(
            [
                name,
                f"{bits / 2**26:.2f} x 2^26",
                f"{med('project'):.2f} s",
                f"{med('project') / bits * 1e9:.1f} ns",
                f"{med('query') * 1e6:.0f} us",
                f"{med('peak_rss') / 2**20:.0f} MiB",
                f"{runs[0].get('packed', bits // 8) / 2**20:.1f} MiB",
                f"{med('mean_abs_error'):.2f}",
            ]
        )
    print_table(
        [
            "system",
            "bits",
            "projection",
            "per bit",
            "query",
            "peak RSS",
            "bits stored",
            "mean |err|",
        ],
        rows,
    )
    if have_opendp and results["OpenDP 50x"] and results["finitedp s=2^18"]:
        ours, theirs = results["finitedp s=2^18"], results["OpenDP 50x"]
        per_bit = statistics.median(r["project"] / r["bits"] for r in theirs) / statistics.median(
            r["project"] / r["bits"] for r in ours
        )
        print(f"\nper bit of the representation, finitedp is {per_bit:.1f}x faster than OpenDP")
        traced = statistics.median(r["traced"] for r in ours) / ours[0]["packed"]
        print(f"finitedp's projection allocates at most {traced:.2f}x the packed bit array")


if __name__ == "__main__":
    main()
