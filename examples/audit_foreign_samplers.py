"""Audit other libraries' clamped geometric samplers against finitedp's exact PMF.

BV Alg 4.5 / Thm 4.6: the clamped geometric mechanism ``c + Geo`` clamped to
``[0, n]``, with ``Pr[noise = j]`` proportional to ``ratio^-|j|``, has the exact
distribution ``GeometricMechanism(n, ratio).pmf(c)``.  Two widely used
implementations claim to sample it:

* IBM diffprivlib's ``GeometricTruncated`` (noise ratio ``e^epsilon``; it samples
  with floating-point logarithms), and
* OpenDP's discrete Laplace (``make_laplace`` on integers, ratio ``e^(1/scale)``),
  clamped to ``[0, n]`` afterwards (post-processing).

``finitedp.audit.compare`` draws from each and reports the estimated total
variation distance with a confidence interval and a chi-square test.  With
``ratio = 2`` the libraries are given ``epsilon = ln 2`` (resp. ``scale = 1/ln 2``)
as a double, so their ratio is 2 up to about 1e-16: far below what any number
of draws here can see.

Neither library is a dependency of finitedp: install them to run this
(``pip install diffprivlib opendp``); without them the script says so and exits.
The same audit from the shell, for any ``module:function`` returning an int:

    finitedp audit compare mymodule:draw --reference geometric --n 6 --ratio 2 --count 2

Run: python examples/audit_foreign_samplers.py
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from finitedp import GeometricMechanism
from finitedp.audit import compare

N, COUNT, RATIO = 6, 2, Fraction(2)
SAMPLES = 20_000


def diffprivlib_sampler() -> Callable[[], int] | str:
    """diffprivlib's GeometricTruncated on [0, N], or why it cannot be loaded."""
    try:
        from diffprivlib.mechanisms import GeometricTruncated  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError as error:  # not installed, or installed against an incompatible sklearn
        return f"diffprivlib is not available ({error}); install diffprivlib to run this part"
    mechanism = GeometricTruncated(epsilon=math.log(RATIO), sensitivity=1, lower=0, upper=N)
    return lambda: int(mechanism.randomise(COUNT))


def opendp_sampler() -> Callable[[], int] | str:
    """OpenDP's discrete Laplace on integers, clamped to [0, N], or why it cannot be loaded."""
    try:
        import opendp.prelude as dp  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError as error:
        return f"opendp is not available ({error}); install opendp to run this part"
    dp.enable_features("contrib")
    try:
        measurement = dp.m.make_laplace(
            dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1 / math.log(RATIO)
        )
    except (AttributeError, TypeError) as error:
        return f"this opendp has no make_laplace on integers ({error}); use opendp >= 0.10"
    return lambda: min(max(int(measurement(COUNT)), 0), N)


def main() -> None:
    reference = GeometricMechanism(N, RATIO).pmf(COUNT)
    print(f"reference: GeometricMechanism(n={N}, ratio={RATIO}).pmf({COUNT}) = {reference}")
    audited = 0
    for name, sampler in (
        ("diffprivlib GeometricTruncated", diffprivlib_sampler()),
        ("OpenDP discrete Laplace, clamped", opendp_sampler()),
    ):
        print()
        if isinstance(sampler, str):
            print(f"{name}: skipped: {sampler}")
            continue
        report = compare(sampler, reference, SAMPLES, description=name)
        print(report.render())
        audited += 1
    if not audited:
        print()
        print("Nothing audited: install diffprivlib and/or opendp to run this example.")


if __name__ == "__main__":
    main()
