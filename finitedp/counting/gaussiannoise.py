"""The discrete Gaussian a mechanism adds, by law: one interface over the two samplers.

Paper: CKS20 Def 1, Thm 14; Lebeda thesis Algs 15 and 17 and Lemma 5.4 add it to
sums, means and quantile counts.  Two laws, both with strict work and an exact
or certified statement for what is sampled:

* ``"convolved"`` (the default): :class:`~.convolved.ConvolvedGaussian`, any
  ``sigma`` up to ``2^64`` from tables of a few thousand columns, built in
  milliseconds, and a value-independent draw (issue 41);
* ``"table"``: :class:`~.gaussian.DiscreteGaussian`, one fixed-precision table
  over ``[-R, R]`` (its set-up grows with ``sigma``); the reference vectors made
  before issue 41 use it, and its ``radius``/``precision`` can be chosen.

>>> gaussian_noise(100).sigma2, type(gaussian_noise(100, "table")).__name__
(Fraction(100, 1), 'DiscreteGaussian')
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from fractions import Fraction
from typing import Protocol

from ..accounting import Guarantee
from ..errors import ParameterError
from ..oracle import RandomSource
from ..params import positive_fraction
from .convolved import ConvolvedGaussian
from .gaussian import DiscreteGaussian

__all__ = ["DEFAULT_LAW", "NOISE_LAWS", "GaussianNoise", "check_law", "gaussian_noise"]

#: The laws by name, the default first.
NOISE_LAWS = ("convolved", "table")
DEFAULT_LAW = NOISE_LAWS[0]


class GaussianNoise(Protocol):
    """What the mechanisms use of a discrete Gaussian sampler."""

    @property
    def sigma2(self) -> Fraction | None: ...

    @property
    def radius(self) -> int: ...

    @property
    def max_oracle_calls(self) -> int: ...

    @property
    def d(self) -> int: ...

    def sample_many(self, count: int, rng: RandomSource | None = None) -> list[int]: ...

    def add(self, values: Sequence[int], rng: RandomSource | None = None) -> list[int]: ...

    def zcdp(self, sensitivity: object = 1, label: str = ...) -> Guarantee: ...

    def zcdp_vector(
        self, sensitivity: object, dimension: object, label: str = ...
    ) -> Guarantee: ...

    def accuracy(self, beta: object) -> int: ...

    def tail_within(self, a: int, beta: Fraction) -> bool: ...

    def moment(self, p: object) -> Fraction: ...


def check_law(law: object) -> str:
    """``law`` if it names one of :data:`NOISE_LAWS`, else a ParameterError naming them."""
    if not isinstance(law, str) or law not in NOISE_LAWS:
        raise ParameterError(f"noise: got {law!r}; use one of {', '.join(NOISE_LAWS)}")
    return law


def gaussian_noise(
    sigma2: object, law: object = DEFAULT_LAW, *, radius: object = None, precision: object = None
) -> GaussianNoise:
    """The discrete Gaussian of variance ``sigma2`` under ``law``.

    ``radius`` and ``precision`` choose the ``"table"`` law's table; the
    ``"convolved"`` law has no such knobs and refuses them.

    Raises:
        ParameterError: an unknown law, or a table option for the convolved law.
    """
    if check_law(law) == "table":
        return DiscreteGaussian.from_variance(sigma2, radius=radius, precision=precision)
    if radius is not None or precision is not None:
        raise ParameterError(
            "noise: radius and precision choose the 'table' law's table; the 'convolved' "
            "law has none (give noise='table' with them)"
        )
    return _convolved(positive_fraction(sigma2, "sigma2"))


@functools.lru_cache(maxsize=64)
def _convolved(sigma2: Fraction) -> ConvolvedGaussian:
    """One law per variance: its statements are certified once (0.1 s or so each) and its
    tables built once, however many mechanisms use it (the law holds no randomness)."""
    return ConvolvedGaussian.from_variance(sigma2)
