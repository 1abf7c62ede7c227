"""Declared key lists: a public list of keys as a universe (Tumult's KeySet, OpenDP's
categories), with an optional catch-all bin ``(other)``.

Paper: BV Section 2.4 (the universe is ``X = [m]_+``): key ``i`` of the list is
numbered ``i``; ``(other)``, when asked, is ``K + 1`` and holds every value outside
the list.  That map is row-wise (each row's key is a function of the row alone), so
two neighbouring datasets stay neighbours after it and a mechanism's guarantee holds
for the original rows as it is stated (replace one row).  The list is public: it is
declared, never read from the data, and travels in the release document (``"keys"``).
"""

from __future__ import annotations

from ..errors import ParameterError
from .universebase import Universe, _preview

__all__ = ["MAX_KEYS", "OTHER", "KeyUniverse", "key_list"]


#: The label of the catch-all bin of a key list declared with ``other``.
OTHER = "(other)"
#: The most keys a declared list may hold (a dense histogram's bins: see ``MAX_DENSE_UNIVERSE``).
MAX_KEYS = 10**7


class KeyUniverse(Universe):
    """A public list of keys, numbered ``1..K`` in order, and optionally ``(other)``.

    Args:
        keys: the keys, distinct strings, at least one.
        other: one more bin, numbered ``K + 1``, for every value not in the list.
        source: where the list came from, for messages.

    Raises:
        ParameterError: no key, a duplicate (named), more than ``MAX_KEYS``, or
            ``(other)`` itself a key when ``other`` is asked.
    """

    __slots__ = ("_index", "_keys", "_other", "_source")

    def __init__(self, keys: list[str], other: bool = False, source: str = "the list") -> None:
        if not keys:
            raise ParameterError(f"universe: {source} declares no key; a universe needs one")
        if len(keys) > MAX_KEYS:
            raise ParameterError(
                f"universe: {source} declares {len(keys):,} keys; at most {MAX_KEYS:,} (a "
                "histogram lists every key)"
            )
        index: dict[str, int] = {}
        for i, key in enumerate(keys, 1):
            if not isinstance(key, str):
                raise ParameterError(f"universe: key {i} of {source} is not text: {key!r}")
            if key in index:
                raise ParameterError(
                    f"universe: key {_preview(key)} is declared twice in {source} (keys "
                    f"{index[key]} and {i}); each key is one bin"
                )
            index[key] = i
        if other and OTHER in index:
            raise ParameterError(
                f"universe: {source} declares the key {OTHER!r}, the label of the catch-all "
                "bin (--other); rename it"
            )
        self._keys, self._index, self._other, self._source = list(keys), index, other, source

    @property
    def spec(self) -> str:
        """``"keys"`` or ``"keys+other"``: the keys themselves are in :attr:`keys`."""
        return "keys+other" if self._other else "keys"

    @property
    def keys(self) -> list[str]:
        """The declared keys, in order (a copy)."""
        return list(self._keys)

    def with_key(self, key: str) -> KeyUniverse:
        """This list with ``key`` added last, unless it is a key already."""
        if key in self._index:
            return self
        return KeyUniverse([*self._keys, key], self._other, self._source)

    @property
    def other(self) -> bool:
        """Whether the catch-all bin ``(other)`` is there."""
        return self._other

    @property
    def size(self) -> int:
        """``K``, or ``K + 1`` with ``(other)``."""
        return len(self._keys) + self._other

    def encode(self, label: str) -> int:
        """The key's place in the list (from 1); ``K + 1`` for any other value with ``other``.

        Raises:
            ParameterError: a value not in the list, without ``other``.
        """
        found = self._index.get(label)
        if found is not None:
            return found
        if self._other:
            return len(self._keys) + 1
        raise ParameterError(
            f"value {_preview(label)} is not among the {len(self._keys):,} keys of "
            f"{self._source}; add it to the list, or give --other to count every value "
            "outside the list in one bin, (other)"
        )

    def decode(self, x: int) -> str:
        """The key numbered ``x``, or ``(other)``."""
        x = self._check_number(x)
        return self._keys[x - 1] if x <= len(self._keys) else OTHER

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KeyUniverse):
            return NotImplemented if not isinstance(other, Universe) else False
        return self._keys == other._keys and self._other == other._other

    def __hash__(self) -> int:
        return hash((self.spec, len(self._keys)))

    def __repr__(self) -> str:
        return f"KeyUniverse(<{len(self._keys)} keys>, other={self._other})"


def key_list(path: str) -> list[str]:
    """The keys of a key file: UTF-8 text, one key per line (a final newline ends the last).

    Raises:
        ParameterError: an unreadable file, bytes that are not UTF-8, or a blank line
            (named: an empty key is ambiguous in a list; write it inline as ``keys=,a``).
    """
    from .files import decode_utf8, read_bytes  # the strict readers, with their messages

    text = decode_utf8(read_bytes(path), path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    keys = [line[:-1] if line.endswith("\r") else line for line in lines]
    for number, key in enumerate(keys, 1):
        if key == "":
            raise ParameterError(
                f"{path}, line {number}: a blank line; a key file holds one key per line"
            )
    return keys
