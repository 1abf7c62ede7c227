"""ALP releases: the noisy embedding and its hash functions, immutable, with exact estimates.

Paper: Lebeda thesis Alg 3 (ALP1-Estimator), Alg 5 (ALP-Estimator: Alg 3 divided
by ``eps``), Section 2.7 (Alg 3 on Alg 10's output, without scaling).

A release answers ``estimate(i) = scale * average(argmax f)`` where ``f`` is the
prefix sum of ``2 z~ - 1`` along key ``i``'s path; ``scale`` is ``alpha/eps``
for ALP-Projection and 1 for Histogram-Projection.  Estimates are exact
``Fraction`` values in ``[0, m * scale]``.

>>> from finitedp.oracle import SeededSource
>>> from finitedp.alp.mechanism import ALP
>>> mech = ALP(universe_size=1000, epsilon=1, k=2, psi=40, alpha=4)
>>> r = mech.project({10: 25, 500: 3}, rng=SeededSource(b"release"))
>>> r.m, r.s, r.scale
(10, 32, Fraction(4, 1))
>>> type(r.estimate(10)).__name__, r == ALPRelease.from_json(r.to_json())
('Fraction', True)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import ParameterError
from ..guarantees import Privacy
from ..jsonvalues import json_int, load_json, parse_count, parse_rational, rational
from .embedding import BitMatrix, check_keys, peak_averages
from .hashing import HashSequence

__all__ = ["ALP_RELEASE_VERSION", "ALPRelease"]

#: Version of the JSON layout written by :meth:`ALPRelease.to_json_dict`.
ALP_RELEASE_VERSION = 1

_ALGORITHMS = {
    "alp": "Lebeda thesis Alg 4 (ALP-Projection) / Alg 5 (ALP-Estimator)",
    "histogram": "Lebeda thesis Alg 10 (Histogram-Projection) / Alg 3 (ALP1-Estimator)",
}


@dataclass(frozen=True)
class ALPRelease:
    """An ALP embedding with everything needed to estimate any entry.

    Paper: Lebeda thesis Algs 3, 5 (estimation), Algs 4, 10 (what was released).

    Attributes:
        variant: ``"alp"`` (Alg 4) or ``"histogram"`` (Alg 10).
        universe_size: ``d``.
        k: the declared sparsity.
        scale: the estimate's factor (``alpha/eps`` or 1).
        hashes: the ``m`` hash functions.
        bits: the noisy ``s x m`` embedding.
        privacy: the exact guarantee.
        neighbours: the neighbour relation the guarantee is for.
        parameters: the public parameters (exact fractions as text).
    """

    variant: str
    universe_size: int
    k: int
    scale: Fraction
    hashes: HashSequence
    bits: BitMatrix
    privacy: Privacy
    neighbours: str
    parameters: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        # Sorted, so that a release read back from JSON (keys sorted) compares equal.
        object.__setattr__(self, "parameters", tuple(sorted(self.parameters)))
        if self.variant not in _ALGORITHMS:
            raise ParameterError(f"variant: got {self.variant!r}; one of {', '.join(_ALGORITHMS)}")
        if (self.hashes.s, self.hashes.m) != (self.bits.s, self.bits.m):
            raise ParameterError(
                f"bits: an {self.bits.s} x {self.bits.m} matrix for {self.hashes.m} hash "
                f"functions into {self.hashes.s} buckets"
            )
        if self.hashes.universe_size != self.universe_size:
            raise ParameterError("hashes: their universe differs from the release's")

    @property
    def s(self) -> int:
        """Buckets per column."""
        return self.bits.s

    @property
    def m(self) -> int:
        """Columns: the longest value the embedding encodes is ``m * scale``."""
        return self.bits.m

    def estimate(self, i: int) -> Fraction:
        """The estimate of ``x_i`` (Alg 5 / Alg 3); O(m) time.

        Raises:
            ParameterError: ``i`` is not an int in ``[1, d]``.
        """
        check_keys([i], self.universe_size)
        return self.scale * peak_averages(self.bits, self.hashes.rows_of([i]))[0]

    def estimates(self, keys: Sequence[int]) -> list[Fraction]:
        """:meth:`estimate` for many keys (vectorised over keys)."""
        check_keys(keys, self.universe_size)
        return [self.scale * v for v in peak_averages(self.bits, self.hashes.rows_of(keys))]

    def __getitem__(self, i: int) -> Fraction:
        return self.estimate(i)

    def to_json_dict(self) -> dict[str, Any]:
        """The release as JSON-ready values (version, type, parameters, hashes, base64 bits)."""
        return {
            "type": "alp",
            "version": ALP_RELEASE_VERSION,
            "variant": self.variant,
            "algorithm": _ALGORITHMS[self.variant],
            "universe_size": json_int(self.universe_size),
            "k": json_int(self.k),
            "s": json_int(self.s),
            "m": json_int(self.m),
            "scale": rational(self.scale),
            "privacy": self.privacy.to_json_dict(),
            "neighbours": self.neighbours,
            "parameters": dict(self.parameters),
            "hashes": self.hashes.to_json_dict(),
            "bits": self.bits.to_text(),
        }

    def to_json(self) -> str:
        """:meth:`to_json_dict` as text."""
        return json.dumps(self.to_json_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> ALPRelease:
        """Read a release written by :meth:`to_json` / :meth:`to_json_dict`.

        Raises:
            ParameterError: not an ALP release, another version, or a bad field.
        """
        obj = load_json(data, "release") if isinstance(data, str) else data
        if not isinstance(obj, dict) or obj.get("type") != "alp":
            raise ParameterError("release: not an ALP release (type must be 'alp')")
        if obj.get("version") != ALP_RELEASE_VERSION:
            raise ParameterError(
                f"release.version: got {obj.get('version')!r}; this finitedp reads "
                f"{ALP_RELEASE_VERSION}"
            )
        try:
            d = parse_count(obj["universe_size"], "universe_size")
            s, m = parse_count(obj["s"], "s"), parse_count(obj["m"], "m")
            privacy = obj["privacy"]
            parameters = obj.get("parameters", {})
            if not isinstance(privacy, dict) or not isinstance(parameters, dict):
                raise ParameterError("release: privacy and parameters must be objects")
            return cls(
                variant=str(obj["variant"]),
                universe_size=d,
                k=parse_count(obj["k"], "k"),
                scale=parse_rational(obj["scale"], "scale"),
                hashes=HashSequence.from_json_dict(obj["hashes"], d, s),
                bits=BitMatrix.from_text(obj["bits"], s, m),
                privacy=Privacy.from_json_dict(privacy),
                neighbours=str(obj["neighbours"]),
                parameters=tuple((str(a), str(b)) for a, b in parameters.items()),
            )
        except KeyError as missing:
            raise ParameterError(f"release: missing field {missing}") from None
        except ParameterError:
            raise
        except ValueError as error:
            raise ParameterError(f"release: {error}") from None
