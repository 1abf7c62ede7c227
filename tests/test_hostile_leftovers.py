"""Issue 54 item 3: the hostile suite's leftovers, each refused by name and at once."""

from __future__ import annotations

import re
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest
from cli_run import run

from finitedp.errors import ParameterError


def test_an_out_folder_that_takes_no_file_is_refused_before_the_input_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    # The input does not exist: a refusal that names --out came before any read.
    argv = ["release", str(tmp_path / "absent.csv"), "--column", "k", "--universe", "int:3"]
    code, out, err = run([*argv, "--epsilon", "1", "--out", str(tmp_path / "r.json")], capsys)
    assert code == 2 and out == ""
    assert err.startswith("finitedp release: --out: cannot write in the directory"), err


@pytest.mark.parametrize("name", ["ExponentialQuantile", "BinarySearchQuantile"])
def test_a_quantile_grid_too_fine_is_refused_at_construction_naming_step(name: str) -> None:
    from finitedp.selection import quantile

    options = {"base": 2} if name == "ExponentialQuantile" else {"epsilon": 1}
    with pytest.raises(ParameterError, match=r"^step: got 1/<a \d+-bit integer>.*2\^63"):
        getattr(quantile, name)(
            0, 1, quantile=Fraction(1, 2), n=10, step=Fraction(1, 10**100), **options
        )
    # 2^63 points exactly are allowed (the construction, not a release).
    getattr(quantile, name)(
        0, 1, quantile=Fraction(1, 2), n=10, step=Fraction(1, 2**63 - 1), **options
    )


NINES = "9" * 5000


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            "--column k --universe utf8:8 --mechanism blanket --epsilon 1 --beta 1/NINES",
            r"at most 1/<a \d+-bit integer> for N",
        ),
        (
            "--mechanism plan-mean --columns x --bounds 0:1 --rho 1/NINES",
            r"^finitedp release: --rho: got 1/<a \d+-bit integer>",
        ),
        (
            "--column k --universe utf8:65536 --mechanism alp --epsilon 1 --delta 1/1000",
            r"utf8:L with L <= 8183",
        ),
    ],
)
def test_huge_numbers_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: str, message: str
) -> None:
    path = tmp_path / "f.csv"
    path.write_text("k,x\nA,1\nB,0\nA,1\n", encoding="utf-8")
    argv = ["release", str(path), *flags.replace("NINES", NINES).split(), "--quiet"]
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert re.search(message, err), err
