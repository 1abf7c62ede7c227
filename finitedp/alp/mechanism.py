"""The user-level ALP mechanism: parameters checked once, the hash functions drawn, one release.

Paper: Lebeda thesis Alg 4/5 (``variant="alp"``, Lemma 2.15, Lemma 2.18) and
Alg 10 + Alg 3 (``variant="histogram"``, Lemma 2.30, Lemmas 2.13/2.32).

Neighbours: one person changes the vector by at most ``contribution`` in l1
distance (thesis Def 2.1 is ``contribution = 1``: for a histogram, one row
added or removed).  The mechanism spends ``eps / contribution`` per unit of l1
change, so the release is ``(eps, 0)``-DP for that relation; with
``contribution = 2`` it is ``eps``-DP when one row of a histogram is *replaced*
(two counts move by one: BV's relation, with ``n`` public).

>>> from finitedp.oracle import SeededSource
>>> mech = ALP(universe_size=2**64, epsilon="1/2", k=3, psi=60)
>>> mech.m, mech.s, mech.privacy
(10, 32, Privacy(epsilon=Fraction(1, 2), delta=Fraction(0, 1)))
>>> r = mech.release([5, 5, 9, 2**64], rng=SeededSource(b"alp"))
>>> all(0 <= v <= r.m * r.scale for v in r.estimates([5, 9, 2**64, 77]))   # exact Fractions
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from ..errors import ParameterError, ParameterTypeError
from ..guarantees import Accuracy, Privacy
from ..oracle import RandomSource, default_source
from ..params import (
    check_positive_int,
    exact_fraction,
    positive_fraction,
    probability,
    short_fraction,
    short_int,
)
from ..ratio import MAX_TIGHT_EPSILON, GeometricRatio
from ..resources import require_memory
from .bounds import ceil_fraction, collision_flip, tail_radius
from .embedding import BitMatrix, histogram_of
from .hashing import Hashes, HashSequence, check_buckets
from .projection import (
    alp_columns,
    alp_projection,
    check_sparse,
    flip_probability,
    histogram_projection,
)
from .release import ALPRelease

__all__ = ["ALP", "DEFAULT_ALPHA", "DEFAULT_COLLISION", "l1_neighbours"]

#: The thesis' choice in Section 2.9 (Figs 2.4-2.5).
DEFAULT_ALPHA = Fraction(3)
#: The collision bound ``k/s`` of the thesis' experiments (Fig 2.4: 0.1).
DEFAULT_COLLISION = Fraction(1, 10)
#: A projection holds the packed matrix (the release keeps it without a copy) and
#: one block of flip draws (``randomized._BLOCK_DRAWS``): about 1.9 packed arrays
#: measured at 2^26 bits (``benchmarks/bench_alp.py``); the estimate takes 2 plus
#: 16 MiB for the block.
_PACKED_COPIES, _BLOCK_BYTES = 2, 16 << 20


def l1_neighbours(contribution: Fraction | int) -> str:
    """The neighbour relation text for a given per-person l1 contribution."""
    if contribution == 1:
        return (
            "vectors at l1 distance at most 1 (Lebeda thesis Def 2.1; for a histogram: "
            "one row added or removed)"
        )
    if contribution == 2:
        return (
            "vectors at l1 distance at most 2 (for a histogram: one row replaced, "
            "two counts move by one; n public)"
        )
    return f"vectors at l1 distance at most {contribution} (one person's declared contribution)"


class ALP:
    """Approximate Laplace Projection of a k-sparse non-negative vector, exact.

    Paper: Lebeda thesis Alg 4 (projection) and Alg 5 (estimation), Lemma 2.15
    (privacy), Lemmas 2.17-2.18 (error) for ``variant="alp"``; Alg 10 with Alg
    3, Lemma 2.30, Lemmas 2.31-2.32 for ``variant="histogram"`` (integer
    vectors; its flip ratio ``b/a`` is the simplest rational with
    ``b/a <= e^(eps/contribution)`` near the bound, decided exactly).

    Neighbours: vectors at l1 distance at most ``contribution`` (see the module notes).

    Args:
        universe_size: ``d``; keys are ``1..d`` (any size: ``2^64`` and beyond).
        epsilon: the budget, a positive rational.
        k: the public bound on the number of non-zero entries.
        psi: the value bound; larger entries are encoded as ``psi`` (error ``x - psi``).
            For ``variant="histogram"`` a positive int (``m = psi`` columns).
        alpha: the scale of Alg 2 (default 3, the thesis' choice); ``variant="alp"`` only.
        s: buckets, a power of two ``> 2k``; default the least one with ``k/s <= 1/10``.
        step: the public grid of the values (default 1: integer vectors).
        contribution: one person's l1 contribution (default 1).
        variant: ``"alp"`` (Alg 4) or ``"histogram"`` (Alg 10).
        rows: when given, :meth:`release` takes datasets of exactly this many
            rows (``n`` public, as in BV's model).

    Raises:
        ParameterError: a value out of range (the message names it), or an
            embedding above the memory limit.
        ParameterTypeError: a float.
    """

    def __init__(
        self,
        universe_size: int,
        epsilon: object,
        k: int,
        psi: object,
        alpha: object = DEFAULT_ALPHA,
        s: int | None = None,
        step: object = 1,
        contribution: object = 1,
        variant: str = "alp",
        rows: int | None = None,
    ) -> None:
        self.universe_size = check_positive_int(universe_size, "universe_size")
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.k = check_positive_int(k, "k")
        self.psi = positive_fraction(psi, "psi")
        self.alpha = positive_fraction(alpha, "alpha")
        self.step = positive_fraction(step, "step")
        self.contribution = positive_fraction(contribution, "contribution")
        if variant not in ("alp", "histogram"):
            raise ParameterError(f'variant: got {variant!r}; use "alp" or "histogram"')
        self.variant = variant
        self.rows = None if rows is None else check_positive_int(rows, "rows")
        self.unit_epsilon = self.epsilon / self.contribution
        if s is None:
            need = max(2 * self.k + 1, ceil_fraction(self.k / DEFAULT_COLLISION))
            s = 1 << (need - 1).bit_length()  # the least power of two >= need
        self.s = check_buckets(s)
        if not self.s > 2 * self.k:
            raise ParameterError(f"s: got {self.s}; it must exceed 2k = {2 * self.k}")
        if variant == "histogram":
            if self.psi.denominator != 1 or self.step != 1 or self.contribution.denominator != 1:
                raise ParameterError(
                    "variant 'histogram' (Alg 10) takes integer vectors: psi, contribution "
                    "ints and step = 1"
                )
            self.m = int(self.psi)
            if 2 * self.unit_epsilon > MAX_TIGHT_EPSILON:
                raise ParameterError(
                    f"epsilon: got {self.epsilon}; Alg 10 takes eps/contribution up to "
                    f"{MAX_TIGHT_EPSILON // 2} (its exact ratio brackets e^eps; a flip "
                    f"probability below e^-32 protects nothing anyway)"
                )
            ratio = GeometricRatio.tight(2 * self.unit_epsilon)  # a/b >= e^(-eps/contribution)
            self.flip = (ratio.a, ratio.a + ratio.b)
            self.scale = Fraction(1)
        else:
            self.m = alp_columns(self.psi, self.unit_epsilon, self.alpha)
            self.flip = flip_probability(self.alpha)
            self.scale = self.alpha / self.unit_epsilon
        require_memory(
            _PACKED_COPIES * -(-self.s * self.m // 8) + _BLOCK_BYTES,
            f"the {self.s} x {self.m} ALP embedding",
            f"k = {short_int(self.k)}, psi = {short_fraction(Fraction(self.psi))}, "
            f"epsilon = {short_fraction(Fraction(self.epsilon))}",
        )

    @property
    def privacy(self) -> Privacy:
        """``(eps, 0)``-DP at l1 distance at most ``contribution`` (Lemma 2.15 / 2.30)."""
        return Privacy(self.epsilon)

    @property
    def neighbours(self) -> str:
        """The neighbour relation of :attr:`privacy`."""
        return l1_neighbours(self.contribution)

    @property
    def flip_ratio(self) -> Fraction:
        """``(1 - p)/p``: the privacy ratio of one changed bit (``alpha + 1`` or ``b/a``)."""
        f, base = self.flip
        return Fraction(base - f, f)

    def accuracy(self, beta: object) -> Accuracy:
        """Per-query accuracy for entries at most ``psi``, from Lemma 2.13 with collisions ``k/s``.

        Paper: Lebeda thesis Lemma 2.18 (``variant="alp"``: ``(1 + tau) alpha/eps``)
        and Lemma 2.13 (``variant="histogram"``: ``tau``), with the walk parameter
        raised by hash collisions as in Lemma 2.10.  An upper bound, rounded up.
        """
        b = probability(beta, "beta")
        f, base = self.flip
        up = collision_flip(Fraction(f, base), Fraction(self.k, self.s))
        tau = tail_radius(up, b)
        bound = tau if self.variant == "histogram" else (1 + tau) * self.scale
        # Estimates lie in [0, m scale] and entries (at most psi) in [0, psi]: never worse.
        bound = min(bound, max(self.m * self.scale, self.psi))
        return Accuracy(
            beta=b,
            per_query=ceil_fraction(bound),
            threshold=None,
            simultaneous=None,
            source=f"Lebeda thesis Lemma {'2.13' if self.variant == 'histogram' else '2.18'} "
            f"(entries at most psi = {self.psi})",
        )

    def draw_hashes(self, rng: RandomSource) -> HashSequence:
        """The ``m`` hash functions: ``2m`` calls ``uniform(2^W)``."""
        return HashSequence.draw(self.universe_size, self.s, self.m, rng)

    def project(self, x: Mapping[int, object], rng: RandomSource | None = None) -> ALPRelease:
        """Release a k-sparse vector ``{key: value}`` (hashes first, then Alg 4 or Alg 10).

        Raises:
            ParameterError: a key outside ``[1, d]``, a negative value, a value off
                the ``step`` grid, or more than ``k`` non-zero entries.
            ParameterTypeError: ``x`` is not a mapping.
        """
        if not isinstance(x, Mapping):
            raise ParameterTypeError(
                f"x: got a {type(x).__name__}; ALP projects a sparse vector given as a "
                "mapping {key: value}, e.g. {3: 1, 7: 2}"
            )
        check_sparse(x, self.universe_size, self.k, self.step)  # refused before any draw
        rng = default_source() if rng is None else rng
        hashes = self.draw_hashes(rng)
        return self.wrap(hashes, self.embed(x, hashes, rng))

    def embed(
        self, x: Mapping[int, object], hashes: Hashes, rng: RandomSource, k: int | None = None
    ) -> BitMatrix:
        """The noisy embedding for given hash functions: Alg 4, or Alg 10 for ``"histogram"``.

        ``k`` (default :attr:`k`) bounds the non-zero entries and is the number of
        rounding calls of Alg 4 (its padding target); ``hashes`` may be any table.
        """
        k = self.k if k is None else k
        if self.variant == "alp":
            return alp_projection(
                x,
                hashes,
                alpha=self.alpha,
                psi=self.psi,
                epsilon=self.unit_epsilon,
                k=k,
                step=self.step,
                rng=rng,
            )
        counts = {i: exact_fraction(v, f"x[{i}]") for i, v in x.items()}
        for i, v in counts.items():
            if v.denominator != 1:
                raise ParameterError(f"x[{i}]: got {v}; Alg 10 takes integer entries")
        a, base = self.flip
        integers = {i: int(v) for i, v in counts.items()}
        return histogram_projection(integers, hashes, a=a, b=base - a, k=k, rng=rng)

    def wrap(
        self,
        hashes: HashSequence,
        bits: BitMatrix,
        extra: tuple[tuple[str, str], ...] = (),
        privacy: Privacy | None = None,
    ) -> ALPRelease:
        """The :class:`ALPRelease` of ``bits`` under ``hashes``, with this mechanism's statement."""
        return ALPRelease(
            variant=self.variant,
            universe_size=self.universe_size,
            k=self.k,
            scale=self.scale,
            hashes=hashes,
            bits=bits,
            privacy=self.privacy if privacy is None else privacy,
            neighbours=self.neighbours,
            parameters=self._parameters() + extra,
        )

    def release(
        self, data: Iterable[object] | Mapping[Any, Any], rng: RandomSource | None = None
    ) -> ALPRelease:
        """Release the histogram of ``data`` (each row adds 1 to one key; or ``{key: count}``).

        Raises:
            ParameterError: a row that is not a key in ``[1, d]``, or more than ``k`` distinct keys.
        """
        return self.project(histogram_of(data, self.universe_size, self.rows), rng)

    def _parameters(self) -> tuple[tuple[str, str], ...]:
        out = [("epsilon", str(self.epsilon)), ("psi", str(self.psi))]
        if self.variant == "alp":
            out += [("alpha", str(self.alpha)), ("step", str(self.step))]
        else:
            out += [("a", str(self.flip[0])), ("b", str(self.flip[1] - self.flip[0]))]
        out.append(("contribution", str(self.contribution)))
        return tuple(out)
