"""The ALP projections (the paper layer): Algs 2, 4 and 10, exact.

Paper: Lebeda thesis Alg 2 (ALP1-Projection, Lemma 2.4), Alg 4
(ALP-Projection, Lemma 2.15), Alg 10 (Histogram-Projection, Lemma 2.30).

Neighbours: Algs 2 and 4 are private for vectors at l1 distance at most 1
(several entries may change); Alg 10 for integer vectors at l1 distance 1
(one entry moves by one: for a histogram, one row added or removed).

Each function takes the hash functions as input, as the thesis does, and
draws, in this order: one call ``uniform(q)`` per entry for random rounding
(Algs 2 and 4: the non-zero entries in increasing key order, then
``k - nnz`` padding calls, so exactly ``k`` calls), then
``ceil(s m / r)`` calls for randomized response
(:func:`~finitedp.alp.randomized.flip_mask`).  Every count is a function of
the public ``k``, ``s``, ``m`` and the parameters.

Alg 2's ``s > 2k`` is the precondition of the accuracy lemmas (``gamma > 0``
in Lemma 2.10), not of privacy: Lemma 2.4 holds for every fixed ``h``.  The
functions here accept any ``s`` so that the checker can test privacy on the
smallest instances; the user-level :class:`~finitedp.alp.mechanism.ALP`
requires ``s > 2k``.

>>> from fractions import Fraction as F
>>> from finitedp.oracle import SeededSource
>>> from finitedp.alp.hashing import HashSequence
>>> rng = SeededSource(b"doc")
>>> h = HashSequence.draw(universe_size=100, s=8, m=alp_columns(F(50), F(1), F(5)), rng=rng)
>>> z = alp_projection({7: F(30), 9: F(5, 2)}, h, alpha=F(5), psi=F(50), epsilon=F(1),
...                    k=2, step=F(1, 2), rng=rng)
>>> (z.s, z.m)
(8, 10)
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ..errors import ParameterError
from ..oracle import RandomSource
from ..params import exact_fraction, short_int
from .embedding import BitMatrix, check_keys, unary_packed
from .hashing import Hashes
from .randomized import flip_packed, rand_round_padded

__all__ = [
    "alp1_projection",
    "alp_columns",
    "alp_projection",
    "check_sparse",
    "flip_probability",
    "histogram_projection",
    "rounding_denominator",
]


def alp_columns(psi: Fraction, epsilon: Fraction, alpha: Fraction) -> int:
    """``m = ceil(psi eps / alpha)`` (Alg 4; Alg 2 is ``eps = 1``), at least 1."""
    return max(1, -((-psi * epsilon) // alpha))


def flip_probability(alpha: Fraction) -> tuple[int, int]:
    """``p = 1/(alpha + 2)`` as ``(f, B)`` with ``p = f/B``: ``alpha = a/c`` gives ``(c, a + 2c)``.

    Paper: Lebeda thesis Alg 2 step 3.
    """
    return alpha.denominator, alpha.numerator + 2 * alpha.denominator


def rounding_denominator(step: Fraction, epsilon: Fraction, alpha: Fraction) -> int:
    """``q``: a multiple of the denominator of ``x_i eps / alpha`` for every ``x_i`` on the grid."""
    return (step * epsilon / alpha).denominator


def check_sparse(
    x: Mapping[int, object], universe_size: int, k: int, step: Fraction | None = None
) -> dict[int, Fraction]:
    """Validate a k-sparse non-negative vector given as ``{key: value}``.

    Args:
        x: key in ``[1, d]`` -> a non-negative exact number (zeros may be listed).
        universe_size: ``d``.
        k: the declared bound on the number of non-zero entries.
        step: when given, every value must be an integer multiple of it.

    Returns:
        The non-zero entries as Fractions, in increasing key order.

    Raises:
        ParameterError: a key outside ``[1, d]``, a negative value, a value off
            the grid of ``step``, or more than ``k`` non-zero entries.
        ParameterTypeError: a value that is not exact (a float).
    """
    check_keys(x.keys(), universe_size)
    out: dict[int, Fraction] = {}
    for i in sorted(x):
        v = exact_fraction(x[i], f"x[{i}]")
        if v < 0:
            raise ParameterError(f"x[{i}]: got {v}; entries must be >= 0")
        if step is not None and (v / step).denominator != 1:
            raise ParameterError(f"x[{i}]: got {v}; entries must be multiples of step = {step}")
        if v:
            out[i] = v
    if len(out) > k:
        raise ParameterError(
            f"x: has {len(out)} non-zero entries; the declared sparsity is k = {short_int(k)}"
        )
    return out


def alp1_projection(
    x: Mapping[int, Fraction],
    hashes: Hashes,
    *,
    alpha: Fraction,
    psi: Fraction,
    k: int,
    q: int,
    rng: RandomSource,
) -> BitMatrix:
    """ALP1-Projection: a 1-DP ``s x m`` embedding of a k-sparse non-negative vector.

    Paper: Lebeda thesis Alg 2, Lemma 2.4 (ratio at most ``e^{||x - x'||_1}``
    for every output and every fixed ``h``), Lemma 2.5 (size).

    Neighbours: vectors at l1 distance at most 1 (several entries may change).

    Args:
        x: the non-zero entries (from :func:`check_sparse`); each ``x_i / alpha``
            must have a denominator dividing ``q``.
        hashes: ``h_1 .. h_m`` with ``m = ceil(psi / alpha)``.
        alpha: the scale ``alpha > 0``.
        psi: the value bound ``psi > 0`` (larger entries are encoded as ``psi``).
        k: the public sparsity bound; exactly ``k`` rounding calls are made.
        q: the public rounding denominator.
        rng: the randomness source.

    Returns:
        The noisy embedding ``z~``.

    Raises:
        ParameterError: ``m`` does not match ``hashes``, or more than ``k`` entries.
    """
    m = alp_columns(psi, Fraction(1), alpha)
    if hashes.m != m:
        raise ParameterError(f"hashes: got m = {hashes.m} functions; ceil(psi/alpha) = {m}")
    if len(x) > k:
        raise ParameterError(f"x: has {len(x)} non-zero entries; k = {k}")
    keys = sorted(x)  # then k - nnz padding calls: their number must not say the sparsity
    y = dict(zip(keys, rand_round_padded([x[i] / alpha for i in keys], q, k, rng), strict=True))
    z = unary_packed(y, hashes)
    f, base = flip_probability(alpha)
    flip_packed(hashes.s * m, f, base, rng, into=z)
    return BitMatrix.from_packed(hashes.s, m, z)


def alp_projection(
    x: Mapping[int, object],
    hashes: Hashes,
    *,
    alpha: Fraction,
    psi: Fraction,
    epsilon: Fraction,
    k: int,
    step: Fraction,
    rng: RandomSource,
) -> BitMatrix:
    """ALP-Projection: an eps-DP embedding (scale by ``eps``, then Alg 2 with ``psi eps``).

    Paper: Lebeda thesis Alg 4, Lemma 2.15 (ratio at most ``e^{eps ||x - x'||_1}``).

    Neighbours: vectors at l1 distance at most 1 (several entries may change).

    Args:
        x: key in ``[1, d]`` -> a non-negative multiple of ``step`` (at most ``k`` non-zero).
        hashes: ``m = ceil(psi eps / alpha)`` functions into ``s`` buckets.
        alpha, psi, epsilon: positive rationals.
        k: the public sparsity bound.
        step: the public grid of the values (1 for integer vectors).
        rng: the randomness source.

    Returns:
        The noisy embedding ``z~``.
    """
    entries = check_sparse(x, hashes.universe_size, k, step)
    q = rounding_denominator(step, epsilon, alpha)
    scaled = {i: v * epsilon for i, v in entries.items()}
    return alp1_projection(scaled, hashes, alpha=alpha, psi=psi * epsilon, k=k, q=q, rng=rng)


def histogram_projection(
    x: Mapping[int, int], hashes: Hashes, *, a: int, b: int, k: int, rng: RandomSource
) -> BitMatrix:
    """Histogram-Projection: the unary code of each count, flipped with probability ``a/(a+b)``.

    Paper: Lebeda thesis Alg 10, Lemma 2.30 (the ratio of one changed bit is
    ``(1 - p)/p = b/a``; the thesis takes ``b/a = e^eps``, finitedp a rational
    ``b/a <= e^eps``).

    Neighbours: integer vectors at l1 distance 1 (one entry moves by one; for a
    histogram, one row added or removed).  A replaced row moves two entries:
    the ratio is then ``(b/a)^2``.

    Args:
        x: key -> non-negative int count (at most ``k`` non-zero).
        hashes: ``m = psi`` functions into ``s`` buckets.
        a, b: ``0 < a < b``: flip probability ``a/(a+b)``.
        k: the public sparsity bound.
        rng: the randomness source (``ceil(s psi / r)`` calls).

    Returns:
        The noisy embedding ``z~``.
    """
    if not 0 < a < b:
        raise ParameterError(f"a, b: got {a}, {b}; need 0 < a < b")
    entries = check_sparse(x, hashes.universe_size, k, Fraction(1))
    z = unary_packed({i: int(v) for i, v in entries.items()}, hashes)
    flip_packed(hashes.s * hashes.m, a, a + b, rng, into=z)
    return BitMatrix.from_packed(hashes.s, hashes.m, z)
