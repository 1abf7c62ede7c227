"""Declared universes: how categorical labels are numbered into ``X = [1, |X|]``.

Paper: BV Section 2.4 (the universe is ``X = [m]_+``, indexed by ``1..m``).
The mechanisms work on integers; a universe says which strings are values and
numbers them injectively.  A universe is always *declared*, never inferred
from the data: inferring it would make ``|X|``, and so the output's domain,
depend on the rows, which differential privacy does not allow.

Two universes, written as a spec string (see ``SPEC.md``, "Universe encodings"):

``int:M``
    The values are the integers ``1..M``, labelled by their canonical decimal
    spelling: ASCII digits, no sign, no spaces, no leading zero.  ``encode("7")``
    is ``7``; ``"007"``, ``" 7"``, ``"+7"``, ``"7.0"`` and ``"0"`` are not labels
    (a lenient parser would map several strings to one value, and an error
    naming the line is better than a silent guess).  ``|X| = M``.

``utf8:L``
    The values are all UTF-8 strings of at most ``L`` bytes (the empty string
    included).  A string ``s`` whose UTF-8 encoding ``b`` has ``k`` bytes is
    numbered ``x = 1 + (256^k - 1)/255 + int_be(b)``, where ``(256^k - 1)/255 =
    sum_{j<k} 256^j`` counts the byte strings shorter than ``k`` and ``int_be``
    reads ``b`` as an unsigned big-endian integer.  So ``""`` is 1, the one-byte
    strings are 2..257 (``"A"`` is ``2 + 0x41 = 67``), the two-byte strings
    start at 258, and ``|X| = sum_{k=0}^{L} 256^k = (256^(L+1) - 1)/255``.
    Every byte string of at most ``L`` bytes gets a number and the map is a
    bijection onto ``[1, |X|]``; numbers are ordered by byte length, then by
    bytes (which for UTF-8 is code-point order).  A number whose bytes are not
    valid UTF-8 is in the universe but is no string's label: :meth:`decode`
    refuses it and :meth:`Utf8Universe.decode_bytes` gives the raw bytes (a
    sparse release may list such a bin, drawn at random among the empty ones).

``int:A..B``
    The integers ``A..B`` (either may be negative, ``A <= B``), labelled by their
    canonical decimal spelling (``-`` for a negative one; ``"0"``, never ``"-0"``):
    ``v`` is numbered ``v - A + 1`` and ``|X| = B - A + 1``.  ``int:M`` is
    ``int:1..M``.

``keys:PATH`` and ``keys=K1,K2,...``
    A public list of keys, from a UTF-8 file of one key per line or written inline
    (a key with a comma needs the file): key ``i`` (from 1, in the order given) is
    numbered ``i``.  With ``other=True`` (``--other``) one more bin, ``(other)``,
    numbered ``K + 1``, holds every value outside the list: a row-wise map, so
    neighbours stay neighbours and nothing is refused.  The keys travel in the
    release document (``"keys"``), so a release is read back without the file.

>>> parse_universe("int:-2..2").encode("-1"), parse_universe("int:0..59").size
(2, 60)
>>> k = parse_universe("keys=JFK,LGA,EWR", other=True)
>>> k.size, k.encode("LGA"), k.encode("ORD"), k.decode(4)
(4, 2, 4, '(other)')
>>> u = parse_universe("utf8:2")
>>> u.size, u.encode(""), u.encode("A"), u.decode(67), u.encode("é")
(65793, 1, 67, 'A', 50347)
>>> v = parse_universe("int:100")
>>> v.size, v.encode("42"), v.decode(42), v.spec
(100, 42, '42', 'int:100')
"""

from __future__ import annotations

import re

from ..errors import ParameterError
from ..params import short_int
from .keyset import KeyUniverse, key_list
from .universebase import Universe, _preview

__all__ = [
    "MAX_INT_DIGITS",
    "MAX_UTF8_BYTES",
    "IntUniverse",
    "RangeUniverse",
    "Universe",
    "Utf8Universe",
    "parse_universe",
]

#: ``int:M`` accepts ``M`` of at most this many decimal digits (Python's int
#: parser refuses more than 4300 by default; no mechanism needs more).
MAX_INT_DIGITS = 4000

#: ``utf8:L`` accepts ``L`` up to this many bytes (``|X|`` of about ``2^(8L)``;
#: CompactHistogram's largest field has about ``2^20`` bits, so more is unusable).
MAX_UTF8_BYTES = 65536

# Canonical positive decimal: ASCII only (str.isdigit and int() also accept
# other scripts' digits, underscores and surrounding spaces).
_DECIMAL = re.compile(r"[1-9][0-9]*")


def _utf8_offset(k: int) -> int:
    """``1 + (256^k - 1)/255``: the number of the first string of ``k`` bytes."""
    return 1 + ((1 << (8 * k)) - 1) // 255


class Utf8Universe(Universe):
    """``utf8:L``: every UTF-8 string of at most ``L`` bytes, numbered as the module says.

    Args:
        max_bytes: ``L``, in ``[1, MAX_UTF8_BYTES]``.

    Raises:
        ParameterError: ``max_bytes`` outside that range.
    """

    __slots__ = ("_max_bytes", "_size")

    def __init__(self, max_bytes: int) -> None:
        if (
            isinstance(max_bytes, bool)
            or not isinstance(max_bytes, int)
            or not 1 <= max_bytes <= MAX_UTF8_BYTES
        ):
            raise ParameterError(
                f"universe: utf8:L needs an integer L in [1, {MAX_UTF8_BYTES}]; got {max_bytes!r}"
            )
        self._max_bytes = max_bytes
        self._size = _utf8_offset(max_bytes + 1) - 1

    @property
    def spec(self) -> str:
        """``"utf8:L"``."""
        return f"utf8:{self._max_bytes}"

    @property
    def max_bytes(self) -> int:
        """``L``."""
        return self._max_bytes

    @property
    def size(self) -> int:
        """``(256^(L+1) - 1)/255``."""
        return self._size

    def encode(self, label: str) -> int:
        """``1 + (256^k - 1)/255 + int_be(label.encode("utf-8"))`` with ``k`` the byte length.

        Raises:
            ParameterError: ``label`` is longer than ``L`` bytes in UTF-8, or is
                not encodable (a lone surrogate, as undecodable bytes become).
        """
        try:
            raw = label.encode("utf-8")
        except UnicodeEncodeError:
            raise ParameterError(
                f"value {_preview(label)} is not valid UTF-8 text, so it is not in the "
                f"universe {self.spec}"
            ) from None
        if len(raw) > self._max_bytes:
            raise ParameterError(
                f"value {_preview(label)} has {len(raw)} bytes in UTF-8; the universe "
                f"{self.spec} holds the strings of at most {self._max_bytes} bytes"
            )
        return _utf8_offset(len(raw)) + int.from_bytes(raw, "big")

    def decode_bytes(self, x: int) -> bytes:
        """The byte string numbered ``x`` (any bytes, valid UTF-8 or not).

        Raises:
            ParameterError: ``x`` outside ``[1, |X|]``.
        """
        x = self._check_number(x)
        # offset(k) <= x < offset(k + 1); offset(k) ~ 256^k / 255, so the bit
        # length of 255 x gives k to within one step.
        k = max(0, ((255 * x).bit_length() - 1) // 8 - 1)
        while _utf8_offset(k + 1) <= x:
            k += 1
        while _utf8_offset(k) > x:
            k -= 1
        return (x - _utf8_offset(k)).to_bytes(k, "big")

    def decode(self, x: int) -> str:
        """The string numbered ``x``.

        Raises:
            ParameterError: ``x`` outside ``[1, |X|]``, or its bytes are not valid UTF-8.
        """
        raw = self.decode_bytes(x)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ParameterError(
                f"x: {short_int(x)} numbers the bytes {raw[:32].hex()}"
                f"{'...' if len(raw) > 32 else ''}, which are not valid UTF-8, so no "
                f"string of {self.spec} has it"
            ) from None


#: A canonical decimal integer, possibly negative ("0", never "-0" or "007").
_SIGNED = re.compile(r"0|-?[1-9][0-9]*")


class RangeUniverse(Universe):
    """``int:A..B``: the integers ``A..B``, ``v`` numbered ``v - A + 1``.

    Args:
        low: ``A``.
        high: ``B >= A``.

    Raises:
        ParameterError: ``B < A``, or bounds of more than ``MAX_INT_DIGITS`` digits.
    """

    __slots__ = ("_high", "_low")

    def __init__(self, low: int, high: int) -> None:
        for bound in (low, high):
            if isinstance(bound, bool) or not isinstance(bound, int):
                raise ParameterError(f"universe: int:A..B needs integers; got {bound!r}")
            if bound.bit_length() > MAX_INT_DIGITS * 10 // 3:
                raise ParameterError(
                    f"universe: int:A..B allows bounds of at most {MAX_INT_DIGITS} digits"
                )
        if high < low:
            raise ParameterError(
                f"universe: int:{short_int(low)}..{short_int(high)} is empty; write A <= B"
            )
        self._low, self._high = low, high

    @property
    def spec(self) -> str:
        """``"int:A..B"``."""
        return f"int:{self._low}..{self._high}"

    @property
    def size(self) -> int:
        """``B - A + 1``."""
        return self._high - self._low + 1

    def encode(self, label: str) -> int:
        """``int(label) - A + 1`` for the canonical spelling of an integer in ``A..B``.

        Raises:
            ParameterError: ``label`` is not such a spelling.
        """
        longest = max(len(str(self._low)), len(str(self._high)))
        if len(label) <= longest and _SIGNED.fullmatch(label):
            value = int(label)
            if self._low <= value <= self._high:
                return value - self._low + 1
        sign = "no sign" if self._low >= 0 else "a '-' for a negative one, no '+'"
        raise ParameterError(
            f"value {_preview(label)} is not in the universe {self.spec}: its values are the "
            f"integers {short_int(self._low)}..{short_int(self._high)} in plain decimal (ASCII "
            f"digits, {sign}, spaces or leading zeros)"
        )

    def decode(self, x: int) -> str:
        """``str(x + A - 1)``.

        Raises:
            ParameterError: ``x`` outside ``[1, B - A + 1]``.
        """
        return str(self._check_number(x) + self._low - 1)


class IntUniverse(RangeUniverse):
    """``int:M``: the integers ``1..M`` (``int:1..M`` under its own spec string).

    Args:
        m: ``M >= 1``.

    Raises:
        ParameterError: ``m`` is not a positive int of at most ``MAX_INT_DIGITS`` digits.
    """

    __slots__ = ()

    def __init__(self, m: int) -> None:
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise ParameterError(f"universe: int:M needs an integer M >= 1; got {m!r}")
        if m.bit_length() > MAX_INT_DIGITS * 10 // 3:  # 10/3 > log2(10): a cheap early bound
            raise ParameterError(
                f"universe: int:M allows M of at most {MAX_INT_DIGITS} digits; got a "
                f"{m.bit_length()}-bit M"
            )
        super().__init__(1, m)

    @property
    def spec(self) -> str:
        """``"int:M"``."""
        return f"int:{self._high}"


def parse_universe(spec: str, *, other: bool = False) -> Universe:
    """Read a universe spec: ``int:M``, ``int:A..B``, ``utf8:L``, ``keys:PATH`` or
    ``keys=K1,K2,...``.

    Args:
        spec: the spec; numbers in plain decimal.
        other: with a key list, add the catch-all bin ``(other)``.

    Returns:
        The universe.

    Raises:
        ParameterError: anything else (the message shows every form), or ``other``
            with a universe that is not a key list.
    """
    if spec.startswith(("keys:", "keys=")):
        if spec.startswith("keys:"):
            path = spec[len("keys:") :]
            return KeyUniverse(key_list(path), other, source=path)
        return KeyUniverse(spec[len("keys=") :].split(","), other, source="--universe keys=...")
    if other:
        raise ParameterError(
            f"--other: adds a catch-all bin to a declared key list (keys:PATH or keys=...); "
            f"{_preview(spec)} already holds every value it can"
        )
    kind, sep, number = spec.partition(":")
    limits = {"int": MAX_INT_DIGITS, "utf8": len(str(MAX_UTF8_BYTES))}
    if kind == "int" and ".." in number:
        low, _, high = number.partition("..")
        if all(len(b) <= MAX_INT_DIGITS and _SIGNED.fullmatch(b) for b in (low, high)):
            return RangeUniverse(int(low), int(high))
    if sep and kind in limits and len(number) <= limits[kind] and _DECIMAL.fullmatch(number):
        size = int(number)
        return IntUniverse(size) if kind == "int" else Utf8Universe(size)
    raise ParameterError(
        f"universe: got {_preview(spec)}; write int:M (the integers 1..M), int:A..B (the "
        f"integers A..B, e.g. int:0..59 or int:-10..10), utf8:L (the UTF-8 strings of at "
        f"most L bytes, 1 <= L <= {MAX_UTF8_BYTES}), keys:PATH (a file of keys, one a line) "
        "or keys=A,B,C"
    )
