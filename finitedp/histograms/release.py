"""Released histograms: immutable, hashable, ordered values with a JSON form.

Paper: BV Section 2.2.1 (partial vectors), footnote 4 (bins are listed in a
fixed order of X, never in an order that depends on the data).

A :class:`PartialHistogram` lists the bins with a positive noisy count in
increasing order of ``x``; every other bin of ``X = [1, m]`` has count 0.
Two releases are equal exactly when they describe the same histogram, so the
checker can key exact distributions by them.

>>> h = PartialHistogram.from_counts(10, {7: 3, 2: 1, 5: 0})
>>> h
PartialHistogram(universe_size=10, bins=((2, 1), (7, 3)))
>>> h[7], h[5], len(h), list(h)
(3, 0, 2, [2, 7])
>>> PartialHistogram.from_json(h.to_json()) == h
True
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError
from ..jsonvalues import json_int, load_json, parse_count
from ..params import short_int

__all__ = ["RELEASE_SCHEMA_VERSION", "PartialHistogram"]

#: Version of the JSON layout written by :meth:`PartialHistogram.to_json`.
RELEASE_SCHEMA_VERSION = 1


@dataclass(frozen=True, order=True)
class PartialHistogram(Mapping[int, int]):
    """A histogram over ``X = [1, universe_size]`` given by its nonzero bins.

    Paper: BV Section 2.2.1 (partial vectors), footnote 4.

    Attributes:
        universe_size: ``|X| = m``; the bins are the integers ``1..m``.
        bins: ``((x, count), ...)`` with ``count >= 1``, strictly increasing in ``x``.

    Raises:
        ParameterError: bins out of order, repeated, outside ``[1, m]``, or with
            a count below 1.
    """

    universe_size: int
    bins: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        m = self.universe_size
        if not isinstance(m, int) or isinstance(m, bool) or m < 1:
            raise ParameterError(f"universe_size: got {m!r}; it must be a positive int")
        previous = 0
        for x, count in self.bins:
            if not (type(x) is int and type(count) is int):
                raise ParameterError(f"bin {x!r}: bins and counts must be ints")
            if not previous < x <= m:
                raise ParameterError(
                    f"bin {short_int(x)}: bins must be distinct, increasing and in "
                    f"[1, {short_int(m)}]"
                )
            if count < 1:
                raise ParameterError(f"bin {short_int(x)}: count {count} must be positive")
            previous = x

    @classmethod
    def from_counts(cls, universe_size: int, counts: Mapping[int, int]) -> PartialHistogram:
        """Build from any ``{x: count}``; zero counts are dropped, bins sorted by ``x``."""
        return cls(universe_size, tuple(sorted((x, c) for x, c in counts.items() if c != 0)))

    @classmethod
    def from_pairs(cls, universe_size: int, pairs: Iterable[tuple[int, int]]) -> PartialHistogram:
        """Build from ``(x, count)`` pairs in any order; zero counts are dropped."""
        return cls(universe_size, tuple(sorted((x, c) for x, c in pairs if c != 0)))

    def __getitem__(self, x: int) -> int:
        """The noisy count of bin ``x`` (0 for a bin not listed).

        Raises:
            KeyError: ``x`` is not in ``[1, universe_size]``.
        """
        if not (isinstance(x, int) and 1 <= x <= self.universe_size):
            raise KeyError(x)
        i = bisect_left(self.bins, (x, 0))
        return self.bins[i][1] if i < len(self.bins) and self.bins[i][0] == x else 0

    def __iter__(self) -> Iterator[int]:
        """The listed bins (those with a positive count), in increasing order."""
        return (x for x, _ in self.bins)

    def __len__(self) -> int:
        return len(self.bins)

    def __contains__(self, x: object) -> bool:
        """Whether ``x`` is listed, that is, released with a positive count."""
        return isinstance(x, int) and 1 <= x <= self.universe_size and self[x] > 0

    def __hash__(self) -> int:
        return hash((self.universe_size, self.bins))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PartialHistogram):
            return NotImplemented
        return (self.universe_size, self.bins) == (other.universe_size, other.bins)

    def json_bins(self) -> Iterator[list[int | str]]:
        """The ``bins`` of :meth:`to_json_dict`, one ``[x, count]`` at a time (a writer
        of long releases streams them instead of building the list)."""
        return ([json_int(x), json_int(c)] for x, c in self.bins)

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object: a type tag, the schema version, ``universe_size`` and ``bins``."""
        return {
            "type": "partial_histogram",
            "version": RELEASE_SCHEMA_VERSION,
            "universe_size": json_int(self.universe_size),
            "bins": list(self.json_bins()),
        }

    def to_json(self) -> str:
        """Serialise to a JSON string; integers above ``2^53`` are decimal strings."""
        return json.dumps(self.to_json_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> PartialHistogram:
        """Parse what :meth:`to_json` wrote.

        Integers are read as JSON numbers or decimal strings (files written before
        big integers became strings hold numbers); floats and bools are refused.

        Raises:
            ParameterError: wrong type tag or version, or malformed bins.
        """
        data = load_json(text, "release") if isinstance(text, str) else text
        if not isinstance(data, Mapping):
            raise ParameterError("release: expected a JSON object")
        if data.get("type") != "partial_histogram":
            raise ParameterError(f"type: got {data.get('type')!r}; expected 'partial_histogram'")
        if data.get("version") != RELEASE_SCHEMA_VERSION:
            raise ParameterError(
                f"version: got {data.get('version')!r}; this finitedp reads version "
                f"{RELEASE_SCHEMA_VERSION}"
            )
        if "universe_size" not in data or "bins" not in data:
            missing = "universe_size" if "universe_size" not in data else "bins"
            raise ParameterError(f"{missing}: missing from the release")
        try:
            size = parse_count(data["universe_size"], "universe_size")
            pairs = data["bins"]
            if not isinstance(pairs, list) or not all(
                isinstance(pair, list) and len(pair) == 2 for pair in pairs
            ):
                raise ValueError("bins: expected a list of [x, count] pairs")
            bins = tuple(
                (parse_count(x, f"bins[{i}] x"), parse_count(c, f"bins[{i}] count"))
                for i, (x, c) in enumerate(pairs)
            )
        except ValueError as error:
            raise ParameterError(str(error)) from None
        return cls(size, bins)
