"""Release one counting query with FastSample, and look at its exact distribution.

BV Alg 4.11: the count of rows matching a predicate, with eps/2-DP noise made
of integers only.  Run: python examples/counting_query.py
"""

from __future__ import annotations

from finitedp import FastSample, GeoSample
from finitedp.checker import exact_distribution


def main() -> None:
    rows = [17, 42, 42, 3, 42, 8, 42, 19, 42, 42]
    true_count = sum(1 for row in rows if row == 42)

    sampler = FastSample(n=len(rows), epsilon="1/2", gamma="1/1000")
    noisy = sampler.sample(true_count)  # the OS CSPRNG by default
    print(f"true count {true_count}, released {noisy}  ({sampler!r})")
    print(f"accuracy: |error| <= {sampler.accuracy('1/10')} with probability >= 9/10")

    # The exact distribution of what was just released, by enumerating the oracle.
    dist = exact_distribution(sampler.sample, true_count)
    for z, p in sorted(dist.items()):
        print(f"  Pr[release = {z:2d}] = {float(p):.4f}")

    # GeoSample's tight mode spends more of the budget on the same epsilon.
    paper, tight = GeoSample(len(rows), "1/2"), GeoSample(len(rows), "1/2", noise="tight")
    print(f"privacy ratio e^(eps~/2): paper {paper.privacy_ratio}, tight {tight.privacy_ratio}")


if __name__ == "__main__":
    main()
