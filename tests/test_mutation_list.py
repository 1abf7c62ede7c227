"""The curated mutations of benchmarks/mutations.py still point at code that exists.

The script itself is not run by the suite (it takes minutes); a mutation whose
anchor or text has moved would silently test nothing, so their places are
checked here.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_curated_mutation_finds_its_text() -> None:
    spec = importlib.util.spec_from_file_location("mutations", ROOT / "benchmarks" / "mutations.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutations"] = module  # dataclasses look their module up while building
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules["mutations"]
    for mutation in module.MUTATIONS:
        text = (ROOT / mutation.path).read_text(encoding="utf-8")
        start = text.find(mutation.after)
        assert start >= 0, (mutation.path, mutation.after)
        assert text.find(mutation.old, start) >= 0, (mutation.path, mutation.old)
        for test in mutation.tests:
            assert (ROOT / test).exists(), test
