"""Threshold ALP: large entries by Threshold2, small ones by ALP (Algs 7 and 8 with Alg 9).

Paper: Lebeda thesis Alg 7 (Threshold ALP-Projection) with Alg 9 in step 2
(Lemma 2.26, Thm 2.4: ``(eps, delta)``-DP, access time ``O(log(1/delta))``),
Alg 8 (Threshold ALP-Estimator).

Neighbours: integer vectors at l1 distance at most 1 (one entry moves by one;
for a histogram, one row added or removed).

The budget is split: Threshold2 at ``eps_1`` (exact geometric noise and
threshold ``t``, :mod:`.threshold`) and ALP at ``eps_2 = eps - eps_1`` with
``psi = t``: an entry Threshold2 does not release is below ``t`` (up to its
noise), and that is the range ALP encodes.  The two parts use independent
draws (Threshold2's first), so the release is ``(eps_1 + eps_2, delta)``-DP by
composition (Lemma 2.21's argument, Lemma 2.26).

>>> from finitedp.oracle import SeededSource
>>> mech = ThresholdALP(universe_size=2**64, epsilon=1, delta="1/1000000", k=4)
>>> mech.t, mech.alp.m, mech.privacy.delta <= Fraction(1, 10**6)
(28, 5, True)
>>> r = mech.project({7: 5000, 9: 3}, rng=SeededSource(b"tALP"))
>>> 7 in r.heavy_keys and r.estimate(7) > 4900, 0 <= r.estimate(9) <= r.alp.m * r.alp.scale
(True, True)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from ..errors import ParameterError
from ..guarantees import Accuracy, Privacy
from ..jsonvalues import json_int, load_json, parse_count, rational
from ..oracle import RandomSource, default_source
from ..params import check_positive_int, positive_fraction, probability
from .embedding import histogram_of
from .mechanism import ALP, DEFAULT_ALPHA, l1_neighbours
from .projection import check_sparse
from .release import ALPRelease
from .threshold import (
    ClampedGeometric,
    grid_delta,
    group_delta,
    least_grid_threshold,
    least_threshold,
    one_plus_epsilon,
    threshold2,
    threshold2_on_grid,
)

__all__ = ["ThresholdALP", "ThresholdALPRelease"]

#: A stated delta with a longer denominator is rounded up to a multiple of 2^-128.
_DELTA_BITS = 128


@dataclass(frozen=True)
class ThresholdALPRelease:
    """Threshold2's released entries and an ALP embedding for the rest (Alg 8 reads it).

    Attributes:
        heavy: ``((key, noisy value), ...)`` increasing in key: the entries that reached ``t``.
        alp: the ALP release of the whole vector at ``eps_2`` with ``psi = t``.
        t: the threshold.
        privacy: the exact guarantee of the whole release.
    """

    heavy: tuple[tuple[int, int], ...]
    alp: ALPRelease
    t: int
    privacy: Privacy

    @property
    def heavy_keys(self) -> frozenset[int]:
        """The keys Threshold2 released."""
        return frozenset(key for key, _ in self.heavy)

    @property
    def universe_size(self) -> int:
        """``d``."""
        return self.alp.universe_size

    @cached_property
    def _heavy_values(self) -> dict[int, int]:
        """``heavy`` as a dictionary, made once (a release reads a key at a time)."""
        return dict(self.heavy)

    def estimate(self, i: int) -> Fraction:
        """Alg 8: the released noisy value if ``i`` reached ``t``, else ALP's estimate."""
        found = self._heavy_values.get(i)
        return Fraction(found) if found is not None else self.alp.estimate(i)

    def estimates(self, keys: Sequence[int]) -> list[Fraction]:
        """:meth:`estimate` for many keys."""
        heavy = self._heavy_values
        light = [x for x in keys if x not in heavy]
        found = dict(zip(light, self.alp.estimates(light), strict=True))
        return [Fraction(heavy[x]) if x in heavy else found[x] for x in keys]

    def __getitem__(self, i: int) -> Fraction:
        return self.estimate(i)

    def to_json_dict(self) -> dict[str, Any]:
        """The release as JSON-ready values."""
        return {
            "type": "threshold_alp",
            "version": 1,
            "t": json_int(self.t),
            "heavy": [[json_int(k), json_int(v)] for k, v in self.heavy],
            "privacy": self.privacy.to_json_dict(),
            "alp": self.alp.to_json_dict(),
        }

    def to_json(self) -> str:
        """:meth:`to_json_dict` as text."""
        return json.dumps(self.to_json_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> ThresholdALPRelease:
        """Read :meth:`to_json`'s form back.

        Raises:
            ParameterError: not such a release, or a bad field.
        """
        obj = load_json(data, "release") if isinstance(data, str) else data
        if not isinstance(obj, dict) or obj.get("type") != "threshold_alp":
            raise ParameterError("release: not a Threshold ALP release (type 'threshold_alp')")
        if obj.get("version") != 1:
            raise ParameterError(f"release.version: got {obj.get('version')!r}; expected 1")
        try:
            privacy = obj["privacy"]
            heavy = tuple(
                (parse_count(k, "heavy key"), parse_count(v, "heavy value"))
                for k, v in obj["heavy"]
            )
            release = cls(
                heavy=heavy,
                alp=ALPRelease.from_json(obj["alp"]),
                t=parse_count(obj["t"], "t"),
                privacy=Privacy.from_json_dict(privacy),
            )
        except (KeyError, TypeError) as error:
            raise ParameterError(f"release: missing or malformed field ({error})") from None
        except ParameterError:
            raise
        except ValueError as error:
            raise ParameterError(f"release: {error}") from None
        if [k for k, _ in heavy] != sorted({k for k, _ in heavy}):
            raise ParameterError("release: heavy keys must be distinct and increasing")
        return release


class ThresholdALP:
    """Threshold ALP on integer vectors: ``(eps, delta)``-DP, exact.

    Paper: Lebeda thesis Alg 7 with Alg 9 (Lemma 2.26, Thm 2.4), Alg 8.

    Neighbours: integer vectors at l1 distance at most 1.

    Args:
        universe_size: ``d``.
        epsilon: the total budget.
        delta: the total ``delta`` (all of it goes to Threshold2).
        k: the public bound on the number of non-zero entries.
        alpha: ALP's scale (default 3).
        s: ALP's buckets (default: the least power of two ``>= 10k``).
        split: the share of ``epsilon`` Threshold2 gets (default 1/2).
        variant: ALP's projection, ``"alp"`` (Alg 4) or ``"histogram"`` (Alg 10).
        contribution: one person's l1 contribution (default 1); each part spends
            its budget divided by it per unit.
        rows: when given, :meth:`release` takes datasets of exactly this many rows.
        step: the public grid ``1/q`` of the values (default 1: integers).  On a
            finer grid Threshold2 rounds every entry at random and adds noise of
            ratio exactly ``1/(1 + eps_1/c)``; its ``delta`` is
            :func:`~finitedp.alp.threshold.grid_delta` (``proofs_notes/alp_threshold.md``).
    """

    def __init__(
        self,
        universe_size: int,
        epsilon: object,
        delta: object,
        k: int,
        alpha: object = DEFAULT_ALPHA,
        s: int | None = None,
        split: object = Fraction(1, 2),
        variant: str = "alp",
        contribution: int = 1,
        rows: int | None = None,
        step: object = 1,
    ) -> None:
        self.epsilon = positive_fraction(epsilon, "epsilon")
        self.delta = probability(delta, "delta")
        share = probability(split, "split")
        self.k = check_positive_int(k, "k")
        self.contribution = check_positive_int(contribution, "contribution")
        self.rows = None if rows is None else check_positive_int(rows, "rows")
        self.step = positive_fraction(step, "step")
        if self.step.numerator != 1:
            raise ParameterError(f"step: got {self.step}; use a grid 1/q (e.g. 1/4)")
        self.q = self.step.denominator
        self.epsilon1 = self.epsilon * share
        self.epsilon2 = self.epsilon - self.epsilon1
        unit = self.epsilon1 / self.contribution
        if self.q == 1:
            ratio = ClampedGeometric(unit, 1).ratio  # the ratio does not depend on R
            self.t = least_threshold(ratio, self.delta, self.contribution)
            self.noise = ClampedGeometric(unit, self.t - 1)
        else:
            self.t = least_grid_threshold(unit, self.delta, self.contribution, self.q)
            self.noise = ClampedGeometric(unit, self.t - 1, ratio=one_plus_epsilon(unit))
        self.alp = ALP(
            universe_size,
            self.epsilon2,
            self.k,
            self.t,
            alpha=alpha,
            s=s,
            variant=variant,
            contribution=self.contribution,
            step=self.step,
        )

    @property
    def privacy(self) -> Privacy:
        """``(eps, delta_c(t))``, ``delta_c(t) = delta(t) sum_{j < c} (b/a)^j <= delta``.

        On a grid ``1/q``: ``delta(t) ((1 + e/q)^(q c) - 1)/e`` with ``e = eps_1/c``.
        When that fraction's denominator passes ``2^128`` (large ``c`` or ``q``), the
        statement is the least multiple of ``2^-128`` above it: a true, shorter bound.
        """
        unit = self.epsilon1 / self.contribution
        if self.q == 1:
            spent = group_delta(self.noise.ratio, self.t, self.contribution)
        else:
            spent = grid_delta(unit, self.t, self.contribution, self.q)
        if spent.denominator.bit_length() > _DELTA_BITS:
            spent = Fraction(-(-(spent.numerator << _DELTA_BITS) // spent.denominator)) / (
                1 << _DELTA_BITS
            )
        return Privacy(self.epsilon, spent)

    @property
    def neighbours(self) -> str:
        """The neighbour relation of :attr:`privacy`."""
        return l1_neighbours(self.contribution)

    def accuracy(self, beta: object) -> Accuracy:
        """Per-query: at most ``R + a_ALP`` with probability ``1 - beta`` (``a_ALP``: ``psi = t``).

        A released entry is off by its noise ``|Z| <= R``.  An entry that is not
        released has ``x + Z < t``, so ``x < t + R``: ALP (``psi = t``) estimates it
        within its own bound plus the ``x - t < R`` it cannot encode.  On a grid,
        random rounding adds less than 1 to both.
        """
        inner = self.alp.accuracy(beta)
        if inner.per_query is None:  # pragma: no cover - ALP always states one (capped)
            raise AssertionError("ALP stated no per-query accuracy")
        return Accuracy(
            beta=inner.beta,
            per_query=self.noise.r + inner.per_query + (0 if self.q == 1 else 1),
            threshold=None,
            simultaneous=None,
            source=f"Lebeda thesis Lemma 2.26 with {inner.source}",
        )

    def project(
        self, x: Mapping[int, object], rng: RandomSource | None = None
    ) -> ThresholdALPRelease:
        """Threshold2 on ``x`` (``k`` noise draws; on a grid ``k`` rounding-noise pairs),
        then ALP (hashes, rounding, flips).

        Raises:
            ParameterError: a key outside ``[1, d]``, a negative value or one off the
                ``step`` grid, or more than ``k`` non-zero entries.
        """
        rng = default_source() if rng is None else rng
        entries = check_sparse(x, self.alp.universe_size, self.k, self.step)
        if self.q == 1:
            counts = {i: int(v) for i, v in entries.items()}
            heavy = threshold2(counts, self.noise, self.t, self.k, rng)
            alp = self.alp.project(counts, rng)
        else:
            heavy = threshold2_on_grid(entries, self.noise, self.t, self.k, self.q, rng)
            alp = self.alp.project(entries, rng)
        return ThresholdALPRelease(tuple(sorted(heavy.items())), alp, self.t, self.privacy)

    def release(
        self, data: Iterable[object] | Mapping[Any, Any], rng: RandomSource | None = None
    ) -> ThresholdALPRelease:
        """Release the histogram of ``data`` (each row adds 1 to one key; or ``{key: count}``).

        Raises:
            ParameterError: a row that is not a key in ``[1, d]``, or (with ``rows``) a
                dataset of another size.
        """
        return self.project(histogram_of(data, self.alp.universe_size, self.rows), rng)

    def __repr__(self) -> str:
        return (
            f"ThresholdALP(d = {self.alp.universe_size}, eps = {self.epsilon} "
            f"({self.epsilon1} + {self.epsilon2}), delta = {rational(self.privacy.delta)}, "
            f"k = {self.k}, t = {self.t})"
        )
