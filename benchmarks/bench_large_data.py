"""Counting a column of a large file: DuckDB (CSV, Parquet) against the pre-DuckDB reader;
then every mechanism of ``finitedp release`` on a file of string keys.

Run: ``python benchmarks/bench_large_data.py [--rows 100000000] [--distinct 100000]
[--dir DIR] [--reference-rows 1000000] [--release-rows 10000000] [--skip-counting]``.

Issue 25: ``--release-rows`` rows of ``--distinct`` string keys (``utf8:8``,
``eps = 1/2``), as Parquet and as CSV, released by the default and by each
mechanism from the command line, each in its own process: wall time, peak
memory, and the exit status (2 is a refusal, given at once with its estimate).
Targets: stability at most 4 s and pmg at most 10 s at 10^7 rows, including
DuckDB; the default a release or an immediate message.

Targets (issue 13): a 10^8-row CSV of 10^5 distinct values counted in at most 60 s
with at most 1 GiB of memory; the same as Parquet in at most 15 s.  Each
measurement runs in its own process and reports its wall time and peak resident
memory (``ru_maxrss``), so the figures do not leak into each other.  Beside them,
on ``--reference-rows`` rows: the reader finitedp had before DuckDB (the whole file
decoded, :func:`finitedp.io.files.csv_rows`, every row numbered into a list) and the
DuckDB path on the same file.  The files are generated once with DuckDB (uniform
values ``1..distinct``) and kept in ``--dir``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

_CHILD = r"""
import json, resource, sys, time
from collections import Counter
start = time.perf_counter()
kind, path, spec = sys.argv[1], sys.argv[2], sys.argv[3]
from finitedp.io.universe import parse_universe
universe = parse_universe(spec)
if kind == "old":
    from finitedp.io.files import csv_rows, decode_utf8, read_bytes
    text = decode_utf8(read_bytes(path), path)
    data = [universe.encode(label) for _, label in csv_rows(text, "v", path)]
    n, distinct = len(data), len(Counter(data))
else:
    from finitedp.io.columns import read_counts
    from finitedp.io.progress import Progress
    from finitedp.io.tables import InputFile
    with Progress(False, 1.0) as progress:
        n, counts = read_counts(InputFile(path, path, kind), "v", universe, progress)
    distinct = len(counts)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"n": n, "distinct": distinct, "seconds": seconds, "peak": peak}))
"""


_RELEASE = r"""
import json, resource, sys, time
from contextlib import redirect_stderr
import io
start = time.perf_counter()
from finitedp.cli import main
err = io.StringIO()
with redirect_stderr(err):
    code = main(sys.argv[1:])
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
said = ([line for line in err.getvalue().splitlines() if line.strip()] or [""])[-1]
print(json.dumps({"code": code, "seconds": seconds, "peak": peak, "said": said}))
"""

#: (label, flags): the default and every histogram or stream mechanism, as a user runs them.
MECHANISMS = (
    ("default", []),
    ("stability", ["--mechanism", "stability", "--delta", "1/1000000"]),
    ("pmg", ["--mechanism", "pmg", "--delta", "1/1000000", "--k", "1000"]),
    ("pmg-pure", ["--mechanism", "pmg-pure", "--k", "1000", "--max-length", "{rows}"]),
    ("pure-sparse", ["--mechanism", "pure-sparse"]),
    ("blanket", ["--mechanism", "blanket"]),
    ("compact", ["--mechanism", "compact"]),
    ("alp", ["--mechanism", "alp"]),
    ("bounded-geometric", ["--mechanism", "bounded-geometric"]),
)


def _keys_files(directory: Path, rows: int, distinct: int) -> tuple[Path, Path]:
    """String keys ``k1..k<distinct>`` (the issue's file), as Parquet and as CSV."""
    column = f"'k' || ((hash(i) % {distinct}) + 1)::VARCHAR AS key"
    csv_path, parquet = _written(directory / f"keys_{rows}_{distinct}", column, rows)
    return parquet, csv_path


def _release(path: Path, flags: list[str], rows: int, out: Path) -> dict[str, object]:
    argv = ["release", str(path), "--column", "key", "--universe", "utf8:8"]
    argv += ["--epsilon", "1/2", "--out", str(out), *(f.format(rows=rows) for f in flags)]
    done = subprocess.run(
        [sys.executable, "-c", _RELEASE, *argv], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _releases(directory: Path, rows: int, distinct: int) -> None:
    parquet, csv_path = _keys_files(directory, rows, distinct)
    print(f"\nfinitedp release over {rows:,} rows of {distinct:,} string keys (utf8:8, eps = 1/2)")
    print(f"{'mechanism':<20} {'file':<8} {'time':>9} {'peak':>10} status")
    for label, flags in MECHANISMS:
        for kind, path in (("parquet", parquet), ("csv", csv_path)):
            if kind == "csv" and label not in ("stability", "pmg", "default"):
                continue  # the reading is the same; the figures above are the mechanism's
            r = _release(path, flags, rows, directory / "release.json")
            status = "released" if r["code"] == 0 else f"refused: {str(r['said'])[:150]}"
            print(
                f"{label:<20} {kind:<8} {float(r['seconds']):7.2f} s "  # type: ignore[arg-type]
                f"{int(r['peak']) / 2**20:6.0f} MiB {status}"  # type: ignore[call-overload]
            )


def _written(stem: Path, column: str, rows: int) -> tuple[Path, Path]:
    """``SELECT column FROM range(rows)`` as ``stem.csv`` and ``stem.parquet``, made once."""
    query = f"SELECT {column} FROM range({rows}) t(i)"
    csv_path, parquet = stem.with_suffix(".csv"), stem.with_suffix(".parquet")
    if not csv_path.exists():
        duckdb.sql(f"COPY ({query}) TO '{csv_path}' (FORMAT csv, HEADER true)")
    if not parquet.exists():
        duckdb.sql(f"COPY ({query}) TO '{parquet}' (FORMAT parquet)")
    return csv_path, parquet


def _generate(directory: Path, rows: int, distinct: int) -> tuple[Path, Path]:
    return _written(directory / f"v_{rows}_{distinct}", f"(hash(i) % {distinct}) + 1 AS v", rows)


def _measure(kind: str, path: Path, distinct: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, kind, str(path), f"int:{distinct}"],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def _line(label: str, result: dict[str, float], rows: int) -> str:
    mib = result["peak"] / 2**20
    rate = rows / result["seconds"] / 1e6
    return (
        f"{label:<44} {result['seconds']:8.2f} s {mib:9.0f} MiB {rate:8.1f} M rows/s  "
        f"(n = {int(result['n'])}, {int(result['distinct'])} distinct)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**8)
    parser.add_argument("--distinct", type=int, default=10**5)
    parser.add_argument("--reference-rows", type=int, default=10**6)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "finitedp-bench")
    parser.add_argument("--release-rows", type=int, default=10**7)
    parser.add_argument("--skip-counting", action="store_true", help="only the releases")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    if args.skip_counting:
        _releases(args.dir, args.release_rows, args.distinct)
        return 0
    start = time.perf_counter()
    small_csv, small_parquet = _generate(args.dir, args.reference_rows, args.distinct)
    big_csv, big_parquet = _generate(args.dir, args.rows, args.distinct)
    print(
        f"files ready in {time.perf_counter() - start:.1f} s ({args.dir}); "
        f"CSV {big_csv.stat().st_size / 2**20:.0f} MiB, "
        f"Parquet {big_parquet.stat().st_size / 2**20:.0f} MiB"
    )
    print(f"{'':<44} {'time':>10} {'peak RSS':>13} {'rate':>16}")
    r = args.reference_rows
    print(_line(f"before DuckDB, CSV, {r} rows", _measure("old", small_csv, args.distinct), r))
    print(_line(f"DuckDB, CSV, {r} rows", _measure("csv", small_csv, args.distinct), r))
    print(_line(f"DuckDB, Parquet, {r} rows", _measure("parquet", small_parquet, args.distinct), r))
    big_c = _measure("csv", big_csv, args.distinct)
    big_p = _measure("parquet", big_parquet, args.distinct)
    print(_line(f"DuckDB, CSV, {args.rows} rows", big_c, args.rows))
    print(_line(f"DuckDB, Parquet, {args.rows} rows", big_p, args.rows))
    print(
        f"targets: CSV <= 60 s and <= 1024 MiB: {big_c['seconds'] <= 60 and big_c['peak'] <= 2**30}"
        f"; Parquet <= 15 s: {big_p['seconds'] <= 15}"
    )
    _releases(args.dir, args.release_rows, args.distinct)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
