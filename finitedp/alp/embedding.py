"""The ALP embedding: an ``s x m`` bit matrix, its unary encoding, and Alg 3's estimate.

Paper: Lebeda thesis Alg 2 step 2 (``z_{a,b} = 1`` iff some ``i`` has
``b <= y_i`` and ``h_b(i) = a``), Alg 3 (ALP1-Estimator), Figs 2.1-2.2.

The matrix is stored column by column: bit ``(a, b)`` (bucket ``a`` in
``[0, s)``, column ``b`` in ``[1, m]``) is at position ``(b - 1) s + a``, and
positions are packed eight to a byte, least significant bit first.  This is
also the order in which randomized response draws its flips (``SPEC.md``).

The worked example of Figs 2.1/2.2 (``m = 8``, ``s = 5``, ``y_i = 5``): the
hash values of ``i`` are ``2 3 5 3 4 4 1 2`` (buckets ``1..5`` in the thesis,
``0..4`` here), the noisy bits on ``i``'s path are ``1 1 1 0 1 0 0 1``, the
prefix sum ``f`` peaks at 3 and 5, and the estimate is their average, 4:

>>> from finitedp.alp.hashing import HashTable
>>> rows = (2, 3, 5, 3, 4, 4, 1, 2)
>>> h = HashTable(s=5, table=(tuple(r - 1 for r in rows),))
>>> fig_2_2 = ["00010000",      # z~_{1,.}
...            "11000101",      # z~_{2,.}
...            "01000000",      # z~_{3,.}
...            "01001001",      # z~_{4,.}
...            "00110000"]      # z~_{5,.}
>>> z = BitMatrix.from_rows([[int(c) for c in row] for row in fig_2_2])
>>> path_bits(z, h.rows(1))
(1, 1, 1, 0, 1, 0, 0, 1)
>>> peak_average(path_bits(z, h.rows(1)))
Fraction(4, 1)
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..errors import ParameterError
from ..params import check_positive_int, short_int
from .hashing import Hashes

__all__ = [
    "BitMatrix",
    "check_keys",
    "histogram_of",
    "path_bits",
    "peak_average",
    "peak_averages",
    "unary_embedding",
    "unary_packed",
    "unary_positions",
]


@dataclass(frozen=True)
class BitMatrix:
    """An immutable ``s x m`` bit matrix (columns ``1..m`` of ``s`` buckets each).

    Attributes:
        s: buckets per column.
        m: columns.
        packed: the bits, column by column, eight to a byte, least significant first:
            ``bytes``, or a read-only ``memoryview`` of a projection's own array (so
            that a release does not copy its largest object; both compare and
            hash by value).
    """

    s: int
    m: int
    packed: bytes | memoryview
    _cache: dict[str, Any] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        check_positive_int(self.s, "s")
        check_positive_int(self.m, "m")
        if isinstance(self.packed, memoryview) and not (
            self.packed.readonly and self.packed.format == "B" and self.packed.contiguous
        ):
            raise ParameterError("bits: a memoryview must be read-only, contiguous bytes")
        size = self.s * self.m
        if len(self.packed) != -(-size // 8):
            raise ParameterError(
                f"bits: got {len(self.packed)} bytes; an s x m = {self.s} x {self.m} "
                f"matrix packs into {-(-size // 8)}"
            )
        if size % 8 and self.packed[-1] >> (size % 8):
            raise ParameterError("bits: the padding bits after the last position must be 0")

    def __hash__(self) -> int:
        # A memoryview of a numpy array cannot be hashed (its exporter is not
        # hashable); a digest of the bits hashes bytes and views alike.
        digest = self._cache.get("digest")
        if digest is None:
            digest = hashlib.blake2b(self.packed, digest_size=16).digest()
            self._cache["digest"] = digest
        return hash((self.s, self.m, digest))

    @property
    def bytes_view(self) -> npt.NDArray[np.uint8]:
        """The packed bits as a read-only numpy array (no copy)."""
        view = self._cache.get("bytes")
        if view is None:
            view = np.frombuffer(self.packed, dtype=np.uint8)
            self._cache["bytes"] = view
        out: npt.NDArray[np.uint8] = view
        return out

    def bits_at(self, positions: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The bits at the given positions (``(b - 1) s + a``), as 0/1 ints."""
        data = self.bytes_view
        out: npt.NDArray[np.int64] = (
            (data[positions >> 3] >> (positions & 7).astype(np.uint8)) & 1
        ).astype(np.int64)
        return out

    @classmethod
    def from_array(cls, array: npt.NDArray[Any]) -> BitMatrix:
        """From an ``(m, s)`` array of 0/1 (row ``b - 1`` is column ``b`` of the thesis)."""
        m, s = array.shape
        packed = np.packbits(np.asarray(array, dtype=np.uint8).reshape(-1), bitorder="little")
        return cls(s, m, packed.tobytes())

    @classmethod
    def from_packed(cls, s: int, m: int, packed: npt.NDArray[np.uint8]) -> BitMatrix:
        """From packed bytes (positions ``(b - 1) s + a``, least significant bit first).

        Takes ownership: ``packed`` is made read-only and kept, not copied.
        """
        packed.flags.writeable = False
        return cls(s, m, packed.data.cast("B"))

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[int]]) -> BitMatrix:
        """From the thesis' layout: ``rows[a][b - 1]`` is ``z_{a+1, b}`` (as Figs 2.1-2.2 print)."""
        return cls.from_array(np.array(rows, dtype=np.uint8).T)

    @property
    def columns(self) -> npt.NDArray[np.uint8]:
        """The ``(m, s)`` array of bits, one byte per bit (for small matrices: tests, figures)."""
        size = self.s * self.m
        flat = np.unpackbits(self.bytes_view, count=size, bitorder="little")
        out: npt.NDArray[np.uint8] = flat.reshape(self.m, self.s)
        return out

    def to_text(self) -> str:
        """The packed bytes in base64 (the release's ``"bits"`` field)."""
        return base64.b64encode(self.packed).decode("ascii")

    @classmethod
    def from_text(cls, text: object, s: int, m: int) -> BitMatrix:
        """Read :meth:`to_text`'s form back.

        Raises:
            ParameterError: not base64 text, or the wrong length.
        """
        if not isinstance(text, str):
            raise ParameterError("bits: expected a base64 string")
        try:
            packed = base64.b64decode(text.encode("ascii"), validate=True)
        except (ValueError, UnicodeEncodeError):
            raise ParameterError("bits: not valid base64") from None
        return cls(s, m, packed)


def _columns(y: Mapping[int, int], hashes: Hashes) -> Iterator[npt.NDArray[np.int64]]:
    """For ``b = 1..m``: the positions ``(b - 1) s + h_b(i)`` of the keys with ``y_i >= b``.

    Paper: Lebeda thesis Alg 2 step 2, Alg 10 step 1, Fig 2.1.  One column at a
    time, so the memory is that of the keys, not of ``m`` times the keys.
    """
    m, s = hashes.m, hashes.s
    keys = np.array([i for i, v in y.items() if v > 0], dtype=object)
    lengths = np.array([min(v, m) for v in y.values() if v > 0], dtype=np.int64)
    order = np.argsort(-lengths, kind="stable")  # longest first: column b takes a prefix
    keys, lengths = keys[order], lengths[order]
    for b in range(m):
        alive = int(np.searchsorted(-lengths, -b, side="left"))  # keys with length > b
        if alive == 0:
            return
        yield b * s + hashes.column(b, keys[:alive].tolist())


def unary_positions(y: Mapping[int, int], hashes: Hashes) -> npt.NDArray[np.int64]:
    """The set positions of Alg 2 step 2 / Alg 10 step 1 (with repeats)."""
    parts = list(_columns(y, hashes))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def unary_packed(y: Mapping[int, int], hashes: Hashes) -> npt.NDArray[np.uint8]:
    """``z`` of Alg 2 step 2 / Alg 10 step 1, packed (see :class:`BitMatrix`)."""
    out = np.zeros(-(-hashes.s * hashes.m // 8), dtype=np.uint8)
    for positions in _columns(y, hashes):
        np.bitwise_or.at(out, positions >> 3, (1 << (positions & 7)).astype(np.uint8))
    return out


def unary_embedding(y: Mapping[int, int], hashes: Hashes) -> npt.NDArray[np.uint8]:
    """``z`` as an ``(m, s)`` array of 0/1 (row ``b - 1`` is column ``b``), for small cases.

    Args:
        y: key -> non-negative integer (values above ``m`` fill the whole path).
        hashes: ``h_1 .. h_m``.
    """
    z = np.zeros(hashes.m * hashes.s, dtype=np.uint8)
    z[unary_positions(y, hashes)] = 1
    return z.reshape(hashes.m, hashes.s)


def path_bits(z: BitMatrix, rows: Sequence[int]) -> tuple[int, ...]:
    """``(z_{h_1(i), 1}, ..., z_{h_m(i), m})``: the bits on key ``i``'s path."""
    if len(rows) != z.m:
        raise ParameterError(f"rows: got {len(rows)} hash values for m = {z.m} columns")
    positions = np.arange(z.m, dtype=np.int64) * z.s + np.asarray(rows, dtype=np.int64)
    return tuple(int(b) for b in z.bits_at(positions))


def peak_average(bits: Iterable[int]) -> Fraction:
    """Alg 3 steps 1-3: the average of the maximisers of ``f(n) = sum_{b <= n} (2 z_b - 1)``.

    Paper: Lebeda thesis Alg 3 (``f`` is defined on ``{0, ..., m}``, ``f(0) = 0``).
    """
    best, total, count, f = 0, 0, 1, 0
    for n, bit in enumerate(bits, start=1):
        f += 1 if bit else -1
        if f > best:
            best, total, count = f, n, 1
        elif f == best:
            total += n
            count += 1
    return Fraction(total, count)


def peak_averages(z: BitMatrix, rows: npt.NDArray[np.int64]) -> list[Fraction]:
    """:func:`peak_average` for many keys at once (``rows`` is ``(m, n)``, from ``rows_of``)."""
    m, n = rows.shape
    if m != z.m:
        raise ParameterError(f"rows: got {m} hash values per key for m = {z.m} columns")
    if n == 0:
        return []
    bits = z.bits_at(np.arange(m, dtype=np.int64)[:, None] * z.s + rows)
    f = np.vstack([np.zeros((1, n), dtype=np.int64), np.cumsum(2 * bits - 1, axis=0)])
    peaks = f == f.max(axis=0)
    counts = peaks.sum(axis=0)
    totals = (peaks * np.arange(m + 1)[:, None]).sum(axis=0)
    return [Fraction(int(t), int(c)) for t, c in zip(totals, counts, strict=True)]


def check_keys(keys: Iterable[int], universe_size: int) -> None:
    """Every key an int in ``[1, d]``.

    Raises:
        ParameterError: naming the first key that is not.
    """
    for x in keys:
        if type(x) is not int or not 1 <= x <= universe_size:
            raise ParameterError(
                f"key: got {x!r}; keys are ints in [1, {short_int(universe_size)}]"
            )


def histogram_of(
    data: Iterable[object] | Mapping[Any, Any], universe_size: int, rows: int | None
) -> dict[int, int]:
    """The counts of ``data`` (each row adds 1 to one key), its rows checked first.

    ``data`` may also be the histogram ``{key: count}`` itself (positive int counts,
    summing to ``rows`` when that is given): the same vector, so the same release.

    Raises:
        ParameterError: a row that is not a key in ``[1, d]``, a count that is not
            positive, or (``rows`` given) a dataset of another size.
    """
    if isinstance(data, Mapping):
        check_keys(list(data), universe_size)
        counts = {}
        for key, count in data.items():
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise ParameterError(f"data[{key}]: got {count!r}; a count must be an int >= 1")
            counts[int(key)] = count
        if rows is not None and sum(counts.values()) != rows:
            raise ParameterError(
                f"data: the counts sum to {sum(counts.values())}; this release is for n = {rows}"
            )
        return counts
    keys = list(data)
    if rows is not None and len(keys) != rows:
        raise ParameterError(f"data: got {len(keys)} rows; this release is for n = {rows}")
    check_keys(keys, universe_size)
    counts = {}
    for x in cast(list[int], keys):  # check_keys: every row is an int in [1, d]
        counts[x] = counts.get(x, 0) + 1
    return counts
