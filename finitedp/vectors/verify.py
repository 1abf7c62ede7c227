"""Verifying vector files: the schema, then a replay of every vector.

``finitedp vectors verify FILE`` runs :func:`verify_file`.
"""

from __future__ import annotations

import functools
import importlib
import importlib.resources
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..entries import JSON
from ..errors import ParameterError
from ..jsonvalues import load_json
from ..resources import time_budget
from .negative import verify_negative
from .records import verify_counting, verify_recorded

__all__ = ["VerifyResult", "load_schema", "schema_errors", "verify", "verify_file", "verify_vector"]


@functools.lru_cache(maxsize=1)
def load_schema() -> JSON:
    """The JSON Schema (draft 2020-12) of one vector, shipped in ``finitedp/schemas``.

    Returns:
        The parsed schema (cached: do not modify it).

    Raises:
        OSError: the package data is missing (``schemas/*.json`` not installed).
    """
    resource = importlib.resources.files("finitedp").joinpath("schemas/vectors.schema.json")
    schema: JSON = json.loads(resource.read_text(encoding="utf-8"))
    return schema


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    # Imported by name: jsonschema ships no type information, and the validator is
    # only used through its documented ``iter_errors`` method.
    jsonschema = importlib.import_module("jsonschema")
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_errors(vector: object) -> list[str]:
    """The schema violations of one parsed vector.

    Args:
        vector: a parsed JSON value.

    Returns:
        Messages ``"path: problem"``, ordered by path; empty when the vector is valid.

    Raises:
        ModuleNotFoundError: the ``jsonschema`` package is not installed.
    """
    errors = sorted(_validator().iter_errors(vector), key=lambda e: list(e.absolute_path))
    out = []
    for error in errors:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        message = str(error.message)
        out.append(f"{where}: {message[:300]}")
    return out


#: The time budget of one vector's recomputation: reference vectors take milliseconds,
#: so a vector whose parameters were edited to need minutes fails at once.
VECTOR_SECONDS = 10


def verify_vector(vector: Mapping[str, Any]) -> str | None:
    """Check one parsed vector: schema, then replay (or recomputation for counting vectors).

    Args:
        vector: a parsed vector (see :func:`verify` for what is checked).

    Returns:
        ``None`` if it verifies, else why not (one line).
    """
    if isinstance(vector, Mapping) and vector.get("kind") == "negative":
        return verify_negative(vector)
    problems = schema_errors(vector)
    if problems:
        return f"schema: {problems[0]}"
    try:
        with time_budget(VECTOR_SECONDS):
            if vector["kind"] == "counting":
                verify_counting(vector)
            else:
                verify_recorded(vector)
    except Exception as error:  # a verifier reports every failure, whatever raised it
        return f"{type(error).__name__}: {error}"
    return None


@dataclass(frozen=True)
class VerifyResult:
    """The outcome of :func:`verify`.

    Attributes:
        ok: every vector verified (and there was at least one).
        checked: how many vectors verified before the first failure (all, if ``ok``).
        line: the 1-based line number of the first failing vector, or ``None``.
        vector_id: its ``"id"`` (``None`` if it has none or the line is not JSON).
        reason: why it failed.
    """

    ok: bool
    checked: int
    line: int | None = None
    vector_id: str | None = None
    reason: str | None = None

    @property
    def index(self) -> int | None:
        """The 0-based index of the first failing vector, or ``None``."""
        return None if self.line is None else self.line - 1

    def message(self) -> str:
        """A one-line report naming the first failing vector."""
        if self.ok:
            return f"ok: {self.checked} vectors verified"
        name = f" (id {self.vector_id})" if self.vector_id is not None else ""
        if self.line is None:
            return f"FAILED: {self.reason}"
        return f"FAILED at line {self.line}{name}: {self.reason}"


def verify(path: str | Path) -> VerifyResult:
    """Verify a vector file line by line, stopping at the first failure.

    Each line must be a JSON object valid under the schema, with an id not seen
    before.  Recorded vectors are replayed with :class:`~finitedp.oracle.ReplaySource`
    (every call's ``d`` must match the tape, and the tape must be used up) and must
    give the recorded output; the tape must also be the seeded stream of ``seed``.
    Counting vectors are recomputed: ``d`` and the derived values, the output, and
    ``F`` at the output and below it.

    Args:
        path: the JSON Lines file.

    Returns:
        A :class:`VerifyResult`; ``ok`` is false for an empty file.
    """
    seen: set[str] = set()
    checked = 0
    with open(path, encoding="utf-8", newline="") as lines:
        for number, line in enumerate(lines, start=1):
            vector_id: str | None = None
            if not line.endswith("\n") or line.endswith("\r\n"):
                return VerifyResult(False, checked, number, None, "lines must end with \\n")
            try:
                vector = load_json(line, "vector", floats=True)
            except ParameterError as error:
                return VerifyResult(False, checked, number, None, str(error))
            if isinstance(vector, dict) and isinstance(vector.get("id"), str):
                vector_id = vector["id"]
            if vector_id is not None and vector_id in seen:
                return VerifyResult(False, checked, number, vector_id, "duplicate id")
            reason = verify_vector(vector)
            if reason is not None:
                return VerifyResult(False, checked, number, vector_id, reason)
            if vector_id is not None:
                seen.add(vector_id)
            checked += 1
    if not checked:
        return VerifyResult(False, 0, None, None, "the file holds no vectors")
    return VerifyResult(True, checked)


def verify_file(path: str | Path) -> tuple[bool, str]:
    """For ``vectors verify``: whether the file verifies, and a one-line report.

    Args:
        path: the JSON Lines file.

    Returns:
        ``(ok, message)``; the message names the first failing line and its id.  A
        missing or unreadable file is a failure, reported in the message.
    """
    try:
        result = verify(path)
    except (OSError, UnicodeDecodeError) as error:
        return False, f"FAILED: cannot read {path}: {error}"
    return result.ok, result.message()
