"""Basket files: one row per line, the row's 1s as item ids (the FIMI format of Kosarak, POS).

``finitedp release kosarak.dat --format baskets --items 41270 --mechanism plan-mean
--rho 1/4``: line ``j`` (``\\n`` or ``\\r\\n`` ends) is row ``j``, a 0/1 vector of
``d = --items`` coordinates whose 1s are the whitespace-separated ids on the line
(each an integer in ``[0, d)``; an id repeated counts once; an empty line is a row
of zeros).  ``d`` is public: an id at or beyond it is refused, naming the line,
never used to grow ``d`` (the largest id seen is private).  Memory follows the
total number of ids plus ``d`` (``O(items + d)``, never ``n x d``): each row is
kept as the sorted array of its ids.

Paper: Lebeda thesis Section 5.7 (Kosarak and POS as 0/1 vectors); proofs_notes/plan.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from ..errors import ParameterError
from ..resources import require_memory
from .progress import Progress
from .tables import InputFile
from .values import shorten

__all__ = ["MAX_ITEMS", "read_baskets"]

#: The most coordinates a basket file may declare (PLAN takes fewer than 2^20).
MAX_ITEMS = (1 << 20) - 1

#: Bytes each kept row costs beyond its ids (a numpy array's header and the list slot).
ROW_BYTES = 120

#: Lines between progress updates.
PROGRESS_LINES = 1 << 15


def read_baskets(source: InputFile, items: int, progress: Progress) -> tuple[int, list[np.ndarray]]:
    """The rows of a basket file, each the sorted array of its distinct ids.

    Memory is estimated from the file's size and lines before the rows are kept, and
    refused above the limit (:func:`finitedp.resources.require_memory`).

    Raises:
        ParameterError: naming the file and the line, for a token that is not an
            integer id or an id outside ``[0, items)``; a file that is not ASCII text.
    """
    # One read of one handle: counting the lines in a first pass and parsing in a
    # second would release a mixture if the file changed in between.
    with open(source.path, "rb") as handle:
        require_memory(os.fstat(handle.fileno()).st_size, "the basket file", source.name)
        data = handle.read()
    lines = data.count(b"\n")
    # each id takes at least 2 bytes of the file and 8 in memory; each row ROW_BYTES
    require_memory(5 * len(data) + ROW_BYTES * (lines + 1), "the baskets' rows", source.name)
    progress.phase(f"reading {lines:,} baskets", total=lines + 1)
    rows: list[np.ndarray] = []
    for number, raw in enumerate(_lines(data), start=1):
        try:
            tokens = raw.decode("ascii").split()
        except UnicodeDecodeError:
            raise ParameterError(
                f"{source.name}: line {number}: not ASCII text; a basket line is item ids "
                f"(integers in [0, {items})) separated by spaces"
            ) from None
        ids = []
        for token in tokens:
            if not token.isdigit() or len(token) > 7:
                raise ParameterError(
                    f"{source.name}: line {number}: {shorten(token)!r} is not an item id; "
                    f"ids are integers in [0, {items}) (--items)"
                )
            ids.append(int(token))
        row = np.unique(np.asarray(ids, dtype=np.int64))
        if row.size and int(row[-1]) >= items:
            raise ParameterError(
                f"{source.name}: line {number}: item id {int(row[-1])} is not below "
                f"--items {items}; the number of items is public: declare all of them"
            )
        rows.append(row)
        if number % PROGRESS_LINES == 0:
            progress.advance(PROGRESS_LINES)
    return len(rows), rows


def _lines(data: bytes) -> Iterator[bytes]:
    """The lines of ``data`` as the file iterator gives them (``\n`` ends one; a final
    line without it counts), one at a time."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        if end < 0:
            yield data[start:]
            return
        yield data[start : end + 1]
        start = end + 1
