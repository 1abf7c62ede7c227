"""Write the example files the README's commands read (run from the repository root).

    python examples/data/make_data.py

Every value comes from finitedp's ``SeededSource`` (integers only), so the files are
the same on every machine; they are committed, and this script says how they were
made.  ``kosarak-400.dat`` is not made here: it is the first 400 lines of
``kosarak-head.dat`` (the FIMI Kosarak click-stream; see ``README.md`` beside this
script).
"""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

from finitedp import SeededSource

HERE = Path(__file__).resolve().parent


def _bell(rng: SeededSource, centre: int, spread: int) -> int:
    """A sum of four uniform integers in ``[-spread, spread]`` around ``centre``."""
    return centre + sum(rng.uniform(2 * spread + 1) - 1 - spread for _ in range(4))


def visits() -> None:
    """``visits.csv``: the city and weekday columns kept, minutes (halves) and pages added."""
    path = HERE / "visits.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = [(r["city"], r["weekday"]) for r in csv.DictReader(handle)]
    rng = SeededSource(b"finitedp/examples/visits")
    with path.open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(["city", "weekday", "minutes", "pages"])
        for city, weekday in rows:
            halves = min(240, max(0, _bell(rng, 50, 20)))  # minutes on the grid of 1/2
            minutes = Fraction(halves, 2)
            pages = min(50, max(1, _bell(rng, 8, 3)))
            out.writerow([city, weekday, str(minutes) if minutes.denominator == 1
                          else f"{minutes.numerator // 2}.5", pages])  # fmt: skip


def ages() -> None:
    """``ages.csv``: 300 adults' ages (18 to 95) and yearly incomes (multiples of 100)."""
    rng = SeededSource(b"finitedp/examples/ages")
    with (HERE / "ages.csv").open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(["age", "income"])
        for _ in range(300):
            age = min(95, max(18, _bell(rng, 44, 9)))
            income = min(10_000, max(0, _bell(rng, 420, 160) + (age - 18) * 3)) * 100
            out.writerow([age, income])


def measurements() -> None:
    """``measurements.csv``: 400 rows of three columns on the grid of 1/16 in [-20, 20]."""
    rng = SeededSource(b"finitedp/examples/measurements")
    with (HERE / "measurements.csv").open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(["a", "b", "c"])
        for _ in range(400):
            row = []
            for centre, spread in ((16 * 3, 40), (-16 * 5, 24), (16 * 11, 64)):
                sixteenths = min(320, max(-320, _bell(rng, centre, spread)))
                row.append(str(Fraction(sixteenths, 16)))
            out.writerow(row)


if __name__ == "__main__":
    visits()
    ages()
    measurements()
