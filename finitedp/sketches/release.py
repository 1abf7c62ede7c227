"""The release of a private Misra-Gries sketch: noisy counts of the keys that passed the threshold.

Paper: Lebeda thesis Alg 13 (output ``T~, c~``, sorted by key as Section 3.5.2
asks: the order of a hash table would leak), Theorem 3.1 (``f^(x) = 0`` for
every key not released).

>>> r = SketchRelease(heavy=((3, 40), (9, 17)), universe_size=10,
...                   privacy=Privacy(Fraction(1), Fraction(1, 10**6)),
...                   neighbours="streams differing by one element", parameters=())
>>> r[3], r[4], SketchRelease.from_json(r.to_json()) == r
(40, 0, True)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from ..errors import ParameterError
from ..guarantees import Privacy
from ..jsonvalues import json_int, load_json, parse_count, parse_signed_rational

__all__ = ["SKETCH_RELEASE_VERSION", "SketchRelease"]

#: Version of the JSON layout written by :meth:`SketchRelease.to_json_dict`.
SKETCH_RELEASE_VERSION = 1


@dataclass(frozen=True)
class SketchRelease:
    """Released keys and their noisy counts; every other key estimates 0.

    Attributes:
        heavy: ``((key, noisy count), ...)`` increasing in key.
        universe_size: ``d``.
        privacy: the exact guarantee.
        neighbours: the neighbour relation it is for.
        parameters: ``((name, value), ...)`` as text, sorted by name: what produced it.
        denominator: the estimate of a released key is its value divided by this
            (``k + 1`` for Section 3.6's scaled counts; 1 otherwise).
        decrements: with ``debias``, the noisy number of the sketch's decrements
            ``gamma~`` (Alg 12's Branch 2); each true count lies in ``[c_x, c_x + gamma]``
            (Fact 3.1), so :meth:`corrected` adds half of it.  ``None`` otherwise.
    """

    heavy: tuple[tuple[int, int], ...]
    universe_size: int
    privacy: Privacy
    neighbours: str
    parameters: tuple[tuple[str, str], ...]
    denominator: int = 1
    decrements: int | None = None

    def __post_init__(self) -> None:
        # JSON objects have no order: keep the parameters sorted so a round trip is equal.
        object.__setattr__(self, "parameters", tuple(sorted(self.parameters)))
        keys = [x for x, _ in self.heavy]
        if keys != sorted(set(keys)) or any(not 1 <= x <= self.universe_size for x in keys):
            raise ParameterError(
                f"heavy: keys must be distinct, increasing and in [1, {self.universe_size}]"
            )

    @cached_property
    def _heavy_values(self) -> dict[int, int]:
        """``heavy`` as a dictionary, made once (a release reads a key at a time)."""
        return dict(self.heavy)

    def estimate(self, x: int) -> int | Fraction:
        """``f^(x)``: the released noisy count (over :attr:`denominator`), 0 if not released."""
        value = self._heavy_values.get(x, 0)
        return value if self.denominator == 1 else Fraction(value, self.denominator)

    def __getitem__(self, x: int) -> int | Fraction:
        return self.estimate(x)

    def corrected(self, x: int) -> Fraction | None:
        """``f^(x) + max(0, gamma~)/2`` for a released key (post-processing: the middle
        of Fact 3.1's ``[c_x, c_x + gamma]``), ``None`` without decrements or for a key
        not released."""
        if self.decrements is None or x not in self._heavy_values:
            return None
        return Fraction(self.estimate(x)) + Fraction(max(0, self.decrements), 2)

    def keys(self) -> list[int]:
        """The released keys, increasing (every other key estimates 0)."""
        return [x for x, _ in self.heavy]

    def __len__(self) -> int:
        return len(self.heavy)

    def to_json_dict(self) -> dict[str, Any]:
        """The release as JSON-ready values (integers above ``2^53`` as decimal strings)."""
        return {
            "type": "pmg",
            "version": SKETCH_RELEASE_VERSION,
            "universe_size": json_int(self.universe_size),
            "heavy": [[json_int(x), json_int(v)] for x, v in self.heavy],
            "privacy": self.privacy.to_json_dict(),
            "neighbours": self.neighbours,
            "parameters": dict(self.parameters),
            "denominator": json_int(self.denominator),
            **({} if self.decrements is None else {"decrements": json_int(self.decrements)}),
        }

    def to_json(self) -> str:
        """:meth:`to_json_dict` as text."""
        return json.dumps(self.to_json_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> SketchRelease:
        """Read :meth:`to_json`'s form back.

        Raises:
            ParameterError: not such a release, or a bad field.
        """
        obj = load_json(data, "release") if isinstance(data, str) else data
        if not isinstance(obj, dict) or obj.get("type") != "pmg":
            raise ParameterError("release: not a private Misra-Gries release (type 'pmg')")
        if obj.get("version") != SKETCH_RELEASE_VERSION:
            raise ParameterError(
                f"release.version: got {obj.get('version')!r}; expected {SKETCH_RELEASE_VERSION}"
            )
        try:
            privacy = obj["privacy"]
            noisy = tuple(
                (parse_count(x, "heavy key"), parse_count(v, "heavy value"))
                for x, v in obj["heavy"]
            )
            parameters = obj["parameters"]
            if not isinstance(parameters, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in parameters.items()
            ):
                raise ParameterError("release.parameters: an object of strings")
            return cls(
                heavy=noisy,
                universe_size=parse_count(obj["universe_size"], "universe_size"),
                privacy=Privacy.from_json_dict(privacy),
                neighbours=str(obj["neighbours"]),
                parameters=tuple(sorted(parameters.items())),
                denominator=parse_count(obj.get("denominator", 1), "denominator"),
                decrements=_decrements(obj.get("decrements")),
            )
        except (KeyError, TypeError) as error:
            raise ParameterError(f"release: missing or malformed field ({error})") from None


def _decrements(value: object) -> int | None:
    """The optional ``decrements`` field: a signed integer (noise may take it below 0)."""
    if value is None:
        return None
    number = parse_signed_rational(value, "decrements")
    if number.denominator != 1:
        raise ParameterError(f"release.decrements: got {value!r:.30}; an integer")
    return int(number)
