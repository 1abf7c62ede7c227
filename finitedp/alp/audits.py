"""Exact audit of ALP: its plan for ``finitedp audit alp``.

Paper: Lebeda thesis Lemma 2.15 (Alg 4) and Lemma 2.30 (Alg 10) for privacy,
Lemmas 2.18 / 2.13 for the per-query accuracy.  The audited mechanism is the
one ``finitedp release --mechanism alp`` builds: one row contributes l1 2
(BV's replacement of one row moves two counts), so each unit of l1 costs
``eps / 2``.

The user-level mechanism draws multiply-add-shift hash functions from
``uniform(2^64)``, which cannot be enumerated.  Privacy holds for every fixed
``h`` (the proofs of Lemmas 2.4 and 2.30 condition on it), so the audit makes
the hash functions part of the output and draws them uniformly from *every*
table ``[d] -> [s]`` for each of the ``m`` columns (one call ``uniform(T)``,
``T = s^(d m)``): a truly random sequence, whose collision probability is
exactly ``1/s`` per column as the accuracy lemmas assume.  The ratio of a
mixture over a public index is the worst ratio over its tables, so the audit
decides Lemma 2.15 / 2.30 for every table at once.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np

from ..checker.plan import (
    AuditPlan,
    AuditRequest,
    Dataset,
    claims_of,
    explorer,
    missing_accuracy,
)
from ..errors import ParameterError
from ..oracle import RandomSource, draw
from .embedding import BitMatrix, path_bits, peak_average
from .hashing import HashTable
from .mechanism import ALP
from .randomized import flip_draws
from .rows import for_rows

__all__ = ["ALP_SIZES", "alp_plan"]

#: Instances measured to work (one core, ``epsilon = 1``).
ALP_SIZES = (
    "--buckets 4 (every table of 4 buckets is enumerated): n = 1, |X| = 2 (2 multisets, "
    "40,000 paths, 2.5 s). Larger instances pass a million paths per dataset (8 buckets "
    "flip 5^8 ways); --histogram-projection's exact flip ratio has a base of 37 or more, "
    "so it is checked at the paper layer instead (tests/test_alp_checker.py, Lemma 2.30)"
)

#: The most hash tables the audit enumerates.
MAX_TABLES = 256


def _tables(universe_size: int, s: int, m: int) -> list[HashTable]:
    count = s ** (universe_size * m)
    if count > MAX_TABLES:
        raise ParameterError(
            f"s^(|X| m) = {s}^{universe_size * m} hash tables; the audit enumerates at most "
            f"{MAX_TABLES}: use --buckets 4 and a universe of 2"
        )
    out = []
    for index in range(count):
        values = []
        for _ in range(universe_size * m):
            index, v = divmod(index, s)
            values.append(v)
        out.append(
            HashTable(s, tuple(tuple(values[x * m : (x + 1) * m]) for x in range(universe_size)))
        )
    return out


def alp_plan(request: AuditRequest) -> AuditPlan:
    """ALP (Alg 4 or Alg 10) over every dataset of a tiny universe, every hash table."""
    n, size = request.n, request.universe_size
    if request.option("delta") is not None:
        raise ParameterError(
            "--delta: the audit explores pure ALP only; Threshold ALP's Threshold2 is checked "
            "exactly in tests/test_alp_checker.py (its delta at l1 distance 1 and 2)"
        )
    mech = for_rows(n, size, request.epsilon, request.option, request.beta)
    if not isinstance(mech, ALP):  # pragma: no cover - guarded by the delta check
        raise AssertionError("for_rows built a Threshold ALP without --delta")
    tables = _tables(size, mech.s, mech.m)
    accuracy = mech.accuracy(request.beta)

    def release(data: Dataset, rng: RandomSource) -> tuple[int, tuple[int, ...]]:
        t = int(draw(rng, len(tables)))
        counts = dict(Counter(data))
        table = tables[t - 1]
        z = mech.embed(counts, table, rng)
        return t, tuple(int(v) for v in z.columns.reshape(-1))

    def counts_of(output: tuple[int, tuple[int, ...]]) -> tuple[Fraction, ...]:
        t, bits = output
        table = tables[t - 1]
        z = BitMatrix.from_array(np.array(bits, dtype=np.uint8).reshape(mech.m, mech.s))
        return tuple(
            mech.scale * peak_average(path_bits(z, table.rows(x))) for x in range(1, size + 1)
        )

    rounding = mech.k if mech.variant == "alp" else 0
    return AuditPlan(
        title=f"ALP({mech.variant}, |X| = {size}, epsilon = {mech.epsilon}, k = {mech.k}, "
        f"psi = {mech.psi}, s = {mech.s}, m = {mech.m})",
        description=(
            "user-level mechanism of finitedp release --mechanism alp: one row contributes "
            f"l1 distance 2, so eps/2 = {mech.unit_epsilon} per unit",
            f"hash functions: every one of the {len(tables)} tables [d] -> [s]^m, "
            "drawn uniformly and released with the bits",
            f"randomized response flips with probability {mech.flip[0]}/{mech.flip[1]}",
        ),
        explore=explorer(release, request.explore_limit),
        privacy=mech.privacy,
        privacy_source="Lebeda thesis Lemma " + ("2.15" if mech.variant == "alp" else "2.30"),
        accuracy=claims_of(accuracy),
        exact_calls=1 + rounding + flip_draws(mech.s * mech.m, mech.flip[1]),
        fixed_domains=True,
        notes=missing_accuracy(accuracy),
        counts=counts_of,
        hint="use --buckets 4 with |X| = 2 and psi small (m = 1 or 2 columns)",
    )
