"""Reference test vectors: known answers that another implementation must reproduce.

Paper: BV Section 2.4 (every mechanism is a deterministic function of its input
and of the oracle answers ``u`` in ``[d]_+``), Defs 4.1-4.3 (counting samplers),
Algs 5.1, 5.4, 6.1, 6.4, 6.7, 6.9, 6.16-6.21, 8.2, 8.5, A.3.

A vector file is JSON Lines: one JSON object (a *vector*) per line, each
validated by the JSON Schema ``finitedp/schemas/vectors.schema.json``.  Three
kinds of vectors:

* ``"counting"``: a counting sampler (GeoSample or FastSample, paper or tight
  noise), its parameters, a true count ``c``, a draw ``u`` and the output
  ``z = min{z : F(z) >= u}``, with ``F(z - 1)`` and ``F(z)`` so that the bracket
  ``F(z - 1) < u <= F(z)`` can be checked.  Edge cases (``u = 1``, ``u = d``,
  ``u = F(z)`` and ``F(z) + 1``, ``c = 0`` and ``c = n``) and random draws.
* ``"histogram"``: a histogram mechanism (user-level or paper-layer), its
  parameters, a dataset, the *tape* of ``(d, u)`` oracle answers recorded with
  :class:`~finitedp.oracle.RecordingSource` over a
  :class:`~finitedp.oracle.SeededSource`, and the output's JSON form.
* ``"primitive"``: a sampling step with no dataset (DistinctSample,
  ApproxBinSample, OrdSample, ...), its parameters, its tape and its output.
* ``"negative"`` (``vectors/negative.jsonl``): an input every implementation
  must refuse, with the reason and flags (:mod:`.negative`).

``SPEC.md`` ("Oracle call order and reference test vectors") states, for every
mechanism, the order of oracle calls and how the output is formed, so that a
tape can be replayed elsewhere.

Numbers.  Every integer that is a value of the mathematics (``d``, ``u``, CDF
values, counts, bins, rows, universe sizes, parameters) is written as a decimal
string, because many JSON parsers lose precision above ``2^53``; rationals are
strings ``"p/q"`` in lowest terms (``"1"`` for an integer).  The only JSON
number in a vector is the schema version ``"finitedp": 1``.

Determinism.  :func:`generate` takes all its randomness from ``SeededSource``
streams with fixed seeds (the seed of a tape is the UTF-8 of the vector's id),
so the file it writes is identical byte for byte on every run.  Seeded sources
are not for production (see ``SPEC.md``); they are what makes vectors possible.

>>> vector = next(v for v in generate() if v["kind"] == "histogram")
>>> verify_vector(vector) is None
True
"""

from .generate import generate, generate_negative_to, generate_to, random_vectors, write_jsonl
from .records import SCHEMA_VERSION, dumps_vector
from .verify import VerifyResult, load_schema, schema_errors, verify, verify_file, verify_vector

__all__ = [
    "SCHEMA_VERSION",
    "VerifyResult",
    "dumps_vector",
    "generate",
    "generate_negative_to",
    "generate_to",
    "load_schema",
    "random_vectors",
    "schema_errors",
    "verify",
    "verify_file",
    "verify_vector",
    "write_jsonl",
]
