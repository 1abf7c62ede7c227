"""Audit histogram mechanisms exactly on a tiny universe, claim by claim.

BV Thm 5.3 (BoundedGeometricHistogram) and Thm 5.5 (StabilityHistogram's paper
layer): every dataset of n rows over X = [1, M] is run against the checker's
enumerating oracle, so the privacy loss over every neighbouring pair and the
accuracy on every bin are exact.  The same audits from the shell:

    finitedp audit bounded-geometric --n 2 --universe-size 3 --epsilon 1 --counter geo
    finitedp audit stability --n 3 --universe-size 3 --epsilon 1 --threshold 1 --counter geo

Run: python examples/audit_histograms.py
"""

from __future__ import annotations

from finitedp.audit import audit_histogram_mechanism


def main() -> None:
    report = audit_histogram_mechanism(
        "bounded-geometric", n=2, universe_size=3, epsilon=1, beta="1/4", counter="geo"
    )
    print(report.render())
    print()
    print(f"every claim holds: {report.ok}")
    print()

    # StabilityHistogram needs n >= b = 8 at the user level (eps = 1, delta = 1/2), so the
    # paper layer with an explicit threshold b = 1 shows the (eps, delta) trade-off at n = 3.
    paper = audit_histogram_mechanism(
        "stability", n=3, universe_size=3, epsilon=1, threshold=1, counter="geo"
    )
    assert paper.delta_bounds is not None
    low, high = paper.delta_bounds
    print(f"{paper.title}: claimed delta {paper.privacy.delta}, exact delta in [{low}, {high}]")
    print(f"every claim holds: {paper.ok}")


if __name__ == "__main__":
    main()
