"""Universe encodings (SPEC.md, "Universe encodings"): bijection, order, sizes and bounds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from finitedp.errors import ParameterError
from finitedp.io.universe import (
    MAX_UTF8_BYTES,
    IntUniverse,
    Utf8Universe,
    parse_universe,
)


def spec_number(raw: bytes) -> int:
    """SPEC.md's formula, written out independently: 1 + sum_{j<k} 256^j + int_be(b)."""
    shorter: int = sum(256**j for j in range(len(raw)))
    return 1 + shorter + int.from_bytes(raw, "big")


# -- parsing specs ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "size"),
    [("int:1", 1), ("int:7", 7), ("int:10000000", 10**7), ("utf8:1", 257), ("utf8:2", 65793)],
)
def test_parse_known_specs(spec: str, size: int) -> None:
    universe = parse_universe(spec)
    assert universe.size == size and universe.spec == spec
    assert parse_universe(universe.spec) == universe


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "int",
        "int:",
        "int:0",
        "int:07",
        "int:-3",
        "int: 5",
        "int:5 ",
        "int:1e6",
        "INT:5",
        "utf8:0",
        f"utf8:{MAX_UTF8_BYTES + 1}",
        "utf8:99999999999999",
        "utf16:4",
        "str:4",
        "int:" + "9" * 5000,
    ],
)
def test_bad_specs_name_the_forms(spec: str) -> None:
    with pytest.raises(ParameterError, match=r"universe: .*(int:M|utf8:L)"):
        parse_universe(spec)


def test_constructors_check_their_arguments() -> None:
    with pytest.raises(ParameterError, match="M >= 1"):
        IntUniverse(0)
    with pytest.raises(ParameterError, match=r"L in \[1, 65536\]"):
        Utf8Universe(0)


# -- int:M -------------------------------------------------------------------------------


@given(m=st.integers(1, 10**40), data=st.data())
def test_int_round_trip(m: int, data: st.DataObject) -> None:
    universe = IntUniverse(m)
    x = data.draw(st.integers(1, m))
    assert universe.decode(x) == str(x)
    assert universe.encode(universe.decode(x)) == x


@given(m=st.integers(1, 10**6), label=st.text(max_size=10))
def test_int_encode_is_exactly_the_canonical_spellings(m: int, label: str) -> None:
    universe = IntUniverse(m)
    try:
        x = universe.encode(label)
    except ParameterError as error:
        assert repr(label) in str(error) and "int:" in str(error)
    else:
        assert 1 <= x <= m and universe.decode(x) == label


@pytest.mark.parametrize(
    "label", ["007", " 7", "7 ", "+7", "7.0", "0", "-1", "1_0", "\u0667", "11", ""]
)
def test_int_refuses_non_canonical_labels(label: str) -> None:
    with pytest.raises(ParameterError, match=r"not in the universe int:10"):
        IntUniverse(10).encode(label)


def test_int_decode_out_of_range() -> None:
    with pytest.raises(ParameterError, match=r"numbered 1\.\.10"):
        IntUniverse(10).decode(11)
    with pytest.raises(ParameterError):
        IntUniverse(10).decode(0)


def test_long_labels_are_cut_in_messages() -> None:
    with pytest.raises(ParameterError) as caught:
        IntUniverse(10).encode("9" * 10_000)
    assert len(str(caught.value)) < 400


# -- utf8:L ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "number", "max_bytes"),
    [
        ("", 1, 2),
        ("\x00", 2, 2),
        ("A", 67, 2),
        ("AB", 16964, 2),
        ("é", 50347, 2),
        ("東", 15179443, 3),
    ],
)
def test_utf8_known_answers_of_spec(label: str, number: int, max_bytes: int) -> None:
    universe = Utf8Universe(max_bytes)
    assert universe.encode(label) == number == spec_number(label.encode())
    assert universe.decode(number) == label


def test_utf8_size_and_bounds() -> None:
    universe = Utf8Universe(2)
    assert universe.size == 65793
    assert universe.decode_bytes(1) == b"" and universe.decode_bytes(65793) == b"\xff\xff"
    assert Utf8Universe(16).size == 341616807575530379006368233343265341697


@given(max_bytes=st.integers(1, 6), label=st.text(max_size=6))
def test_utf8_round_trip_and_bounds(max_bytes: int, label: str) -> None:
    universe = Utf8Universe(max_bytes)
    raw = label.encode("utf-8")
    if len(raw) > max_bytes:
        with pytest.raises(ParameterError, match=f"at most {max_bytes} bytes"):
            universe.encode(label)
        return
    x = universe.encode(label)
    assert 1 <= x <= universe.size
    assert x == spec_number(raw)
    assert universe.decode(x) == label


@given(max_bytes=st.integers(1, 5), data=st.data())
def test_utf8_is_a_bijection_on_byte_strings(max_bytes: int, data: st.DataObject) -> None:
    universe = Utf8Universe(max_bytes)
    x = data.draw(st.integers(1, universe.size))
    raw = universe.decode_bytes(x)
    assert len(raw) <= max_bytes and spec_number(raw) == x
    b = data.draw(st.binary(max_size=max_bytes))
    assert universe.decode_bytes(spec_number(b)) == b


@given(a=st.text(max_size=4), b=st.text(max_size=4))
def test_utf8_numbers_follow_length_then_bytes(a: str, b: str) -> None:
    universe = Utf8Universe(16)
    ra, rb = a.encode(), b.encode()
    assert (universe.encode(a) < universe.encode(b)) == ((len(ra), ra) < (len(rb), rb))


@given(max_bytes=st.integers(1, 40), label=st.text(max_size=8))
def test_utf8_universes_are_nested(max_bytes: int, label: str) -> None:
    small, large = Utf8Universe(max_bytes), Utf8Universe(max_bytes + 1)
    assert small.size < large.size == 256 * small.size + 1
    if len(label.encode()) <= max_bytes:
        assert small.encode(label) == large.encode(label)


def test_utf8_sizes_match_the_closed_form() -> None:
    for max_bytes in range(1, 40):
        assert Utf8Universe(max_bytes).size == (256 ** (max_bytes + 1) - 1) // 255


def test_utf8_decode_refuses_bytes_that_are_not_utf8() -> None:
    universe = Utf8Universe(2)
    assert universe.decode_bytes(257) == b"\xff"
    with pytest.raises(ParameterError, match="not valid UTF-8"):
        universe.decode(257)
    with pytest.raises(ParameterError, match=r"numbered 1\.\.65793"):
        universe.decode(65794)


def test_utf8_refuses_lone_surrogates() -> None:
    with pytest.raises(ParameterError, match="not valid UTF-8"):
        Utf8Universe(4).encode("\ud800")


def test_largest_utf8_universe_is_usable() -> None:
    universe = Utf8Universe(MAX_UTF8_BYTES)
    assert universe.size.bit_length() == 8 * MAX_UTF8_BYTES + 1
    assert universe.decode(universe.encode("x" * 1000)) == "x" * 1000
