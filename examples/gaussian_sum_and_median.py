"""A noisy sum with the strict-work discrete Gaussian, a private median, one accountant.

The discrete Gaussian samples with one oracle call whatever it draws, and states
the privacy of the law it samples (an exact hockey-stick delta, approximate zCDP
at integer orders).  The median uses the exponential mechanism with a rational
base.  The accountant composes both and converts to (epsilon, delta).
Run: python examples/gaussian_sum_and_median.py
"""

from __future__ import annotations

from fractions import Fraction

from finitedp.accounting import Accountant
from finitedp.counting.gaussian import DiscreteGaussian
from finitedp.selection import ExponentialQuantile


def main() -> None:
    # Ages on the grid 0, 1, ..., 120; one person's row replaced changes the sum by <= 120.
    ages = [23, 35, 35, 41, 52, 58, 61, 67, 70, 88] * 10
    noise = DiscreteGaussian(600)  # sigma = 600 in years: rho = 120^2/(2 * 600^2) = 1/50
    noisy_sum = noise.add([sum(ages)])[0]
    print(
        f"sum of ages {sum(ages)}, released {noisy_sum}  (one draw in [1, W], W of "
        f"{noise.d.bit_length()} bits, {noise.max_comparisons} comparisons)"
    )
    claim = noise.zcdp(sensitivity=120, label="noisy sum")
    print(
        f"  zCDP of the sampled law: rho' = {float(claim.rho):.6f}, "
        f"delta0 = {float(claim.rho_delta):.1e} (integer orders)"
    )
    print(f"  exact hockey-stick delta at eps = 1: {float(noise.delta(1, 120)):.3e}")

    median = ExponentialQuantile(0, 120, quantile="1/2", n=len(ages), base="3/2")
    print(
        f"median {sorted(ages)[len(ages) // 2]}, released {median.release(ages)}  "
        f"(ratio (3/2)^2 = {median.privacy_ratio}, rank error <= "
        f"{median.rank_error('1/20')} with probability 19/20)"
    )

    accountant = Accountant("one person's row replaced (n public)")
    accountant.add(claim)
    accountant.add(median.guarantee("private median"))
    total = accountant.total()
    epsilon = accountant.epsilon_for(Fraction(1, 10**6))
    print(
        f"composed: rho = {float(total.rho or 0):.6f}; (epsilon, 10^-6)-DP with "
        f"epsilon = {float(epsilon):.4f} (exact: {epsilon})"
    )


if __name__ == "__main__":
    main()
