"""How each histogram mechanism's work grows with n when it is given counts, not rows.

Run: ``python benchmarks/bench_counts_scale.py [--universe 100000] [--distinct 1000]
[--stop 20] [--only NAME]``.

Every registry entry whose ``n`` is public is released from a histogram
``{value: count}`` (``--distinct`` values over ``int:--universe``, or ``2^40`` for the
mechanisms that need ``|X| >= 2n + 1``) at ``n = 10^3,
2*10^3, 4*10^3, ...`` until one release takes more than ``--stop`` seconds.  From
the last two points the growth exponent is fitted and the largest ``n`` released
within a minute is estimated (printed as an estimate); the measured points are
printed beside it.  Given counts, no mechanism's work depends on how the rows were
stored: the table says whether it grows with ``n``, the distinct values or ``|X|``.
"""

from __future__ import annotations

import argparse
import math
import time

from finitedp.entries import MechanismEntry, ReleaseParameters
from finitedp.errors import ParameterError
from finitedp.oracle import ChaChaSource
from finitedp.registry import MECHANISMS

GROWS_WITH = {
    "bounded-geometric": "|X| (one draw per bin), and the draw's bits with n",
    "stability": "n (padded to n draws; the distinct values set the work below it)",
    "pure-sparse": "n (padded to 5n + 2 calls) times n log|X| bits of keystream per draw",
    "compact": "n (one evaluation point per row, padded) times polylog(|X|, 1/beta)",
    "alp": "n: each count v is encoded in about v/alpha hashed bits, and the bit array "
    "grows with n (rows mode)",
}


def _build(entry: MechanismEntry, n: int, m: int) -> object:
    options = {o.name: (o.example if o.required else None) for o in entry.release_options}
    return entry.build(n, m, ReleaseParameters("1", "1/10", "fast", options))


def _histogram(n: int, distinct: int, universe: int) -> dict[int, int]:
    base, extra = divmod(n, distinct)
    step = max(1, universe // distinct)
    return {
        1 + i * step: base + (1 if i < extra else 0) for i in range(distinct) if base or i < extra
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--universe", type=int, default=10**5)
    parser.add_argument("--distinct", type=int, default=1000)
    parser.add_argument("--stop", type=float, default=20.0)
    parser.add_argument("--only", metavar="NAME", help="one mechanism, e.g. pure-sparse")
    args = parser.parse_args()
    rng = ChaChaSource()
    print(f"|X| = {args.universe}, {args.distinct} distinct values, eps = 1, beta = 1/10")
    for entry in MECHANISMS.values():
        if not entry.public_n or args.only not in (None, entry.name):
            continue
        points: list[tuple[int, float]] = []
        n = 1000
        while True:
            try:
                mech, universe = _build(entry, n, args.universe), args.universe
            except ParameterError:  # the sparse mechanisms need |X| >= 2n + 1
                mech, universe = _build(entry, n, 2**40), 2**40
            data = _histogram(n, args.distinct, universe)
            start = time.perf_counter()
            mech.release(data, rng=rng)  # type: ignore[attr-defined]
            points.append((n, time.perf_counter() - start))
            if points[-1][1] > args.stop or n >= 10**9:
                break
            n *= 2
        shown = ", ".join(f"n={p}: {t:.2f} s" for p, t in points[-3:])
        if len(points) >= 2 and points[-1][1] > 0.05 and points[-2][1] > 0:
            (n1, t1), (n2, t2) = points[-2], points[-1]
            exponent = math.log(t2 / t1) / math.log(n2 / n1)
            if exponent > 0.05:
                estimate = n2 * (60 / t2) ** (1 / exponent)
                fit = f"~n^{exponent:.2f}; about {estimate:.2g} rows in a minute (estimate)"
            else:
                fit = f"flat in n up to {n2:.2g} rows (n does not set its work)"
        else:
            fit = "too fast to fit"
        print(
            f"{entry.name:<18} {shown}\n{'':<18} {fit}; "
            f"grows with {GROWS_WITH.get(entry.name, '?')}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
