"""The convolved Gaussian's stated delta0 at sensitivity 1, swept over sigma (issue 54).

Not a proof for every real sigma: a sweep of the certified statement
(``ConvolvedGaussian(sigma).zcdp(1).rho_delta``, an exact rational from the certified
sandwich) over integer sigma from 1 to 2^32, ``--per-octave`` points a factor of two
(log-spaced), plus a dense stretch after every level transition (the least sigma with
``n`` levels, from ``plan_levels``'s rule, and ``--after`` points up to 5 % above it,
where the worst values lie).  It prints the worst ``log2 delta0`` per level and over
all, and the sigma where it is reached.  The claim in ``counting/convolved.py`` and the
proof note is the bound this sweep supports, with the margin said there.

``--table`` prints the proof note's Targets table instead, from the code.

Run: python benchmarks/proof_convolved_delta0.py [--per-octave 48] [--after 400] [--table]
"""

from __future__ import annotations

import argparse
import math
import time
from fractions import Fraction

from finitedp.counting.convolved import ConvolvedGaussian
from finitedp.counting.convolvedtables import DEFAULT_DESIGN


def transitions(top: int) -> list[int]:
    """The least integer sigma with n levels, for each n reached below ``top``."""
    step = DEFAULT_DESIGN.lattice**2
    # n levels from s^2 on: s^2 = base + step (base + step (... (base + step m2))).
    out, needed = [], Fraction(DEFAULT_DESIGN.top_min_sigma2)
    while True:
        needed = DEFAULT_DESIGN.base_sigma2 + step * needed
        sigma = math.isqrt(math.ceil(needed))
        while Fraction(sigma * sigma) < needed:
            sigma += 1
        if sigma > top:
            return out
        out.append(sigma)


def _row(label: str, sigma: int) -> None:
    g = ConvolvedGaussian(sigma)
    claim = g.zcdp(1)
    assert claim.rho is not None
    excess = float(claim.rho / g.ideal_rho(1) - 1)
    print(f"| {label} | {g.levels} | {excess:.1e} | {math.log2(claim.rho_delta):.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-octave", type=int, default=48)
    parser.add_argument("--after", type=int, default=400)
    parser.add_argument("--table", action="store_true")
    args = parser.parse_args()
    if args.table:
        print("| sigma | levels | `rho'/rho - 1` | `log2 delta0` |")
        print("|---|---|---|---|")
        for label, sigma in [("10", 10), ("10^3", 10**3), ("2^14", 2**14), ("10^6", 10**6)]:
            _row(label, sigma)
        for label, sigma in [("2^30", 2**30), ("3,336,242,981", 3336242981), ("2^32", 2**32)]:
            _row(label, sigma)
        return
    top = 2**32
    sigmas = {round(2 ** (k / args.per_octave)) for k in range(32 * args.per_octave + 1)}
    edges = transitions(top)
    for edge in edges:
        sigmas |= {edge + (edge * j) // (20 * args.after) for j in range(args.after + 1)}
        sigmas.add(edge - 1)
    worst: dict[int, tuple[float, int]] = {}
    start = time.perf_counter()
    for sigma in sorted(s for s in sigmas if 1 <= s <= top):
        g = ConvolvedGaussian(sigma)
        bits = math.log2(g.zcdp(1).rho_delta)
        if g.levels not in worst or bits > worst[g.levels][0]:
            worst[g.levels] = (bits, sigma)
    print(f"{len(sigmas)} sigmas in {time.perf_counter() - start:.0f} s; transitions {edges}")
    for levels, (bits, sigma) in sorted(worst.items()):
        print(f"  {levels} levels: worst log2 delta0 = {bits:.2f} at sigma = {sigma}")
    bits, sigma = max(worst.values())
    print(f"overall: log2 delta0 <= {bits:.2f} (sigma = {sigma})")


if __name__ == "__main__":
    main()
