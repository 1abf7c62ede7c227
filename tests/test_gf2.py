"""GF(2^(2*3^l)) (BV Lemma 8.1 iii): irreducibility, field laws, arithmetic against a reference."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from finitedp.compact.gf2 import MAX_LEVEL, GF2Field
from finitedp.errors import ParameterError, ParameterTypeError

# -- an independent GF(2)[x]: schoolbook product, long division, gcd --------------


def clmul(a: int, b: int) -> int:
    product = 0
    while b:
        if b & 1:
            product ^= a
        a <<= 1
        b >>= 1
    return product


def polymod(a: int, f: int) -> int:
    degree = f.bit_length()
    while a.bit_length() >= degree:
        a ^= f << (a.bit_length() - degree)
    return a


def polygcd(a: int, b: int) -> int:
    while b:
        a, b = b, polymod(a, b)
    return a


def frobenius_power(f: int, k: int) -> int:
    """``x^(2^k) mod f`` by k squarings."""
    r = 0b10
    for _ in range(k):
        r = polymod(clmul(r, r), f)
    return r


def rabin_irreducible(f: int) -> bool:
    """Rabin's test: ``f`` of degree L is irreducible over GF(2) iff ``x^(2^L) = x mod f``
    and ``gcd(x^(2^(L/p)) - x, f) = 1`` for every prime ``p`` dividing ``L``."""
    degree = f.bit_length() - 1
    if frobenius_power(f, degree) != 0b10:
        return False
    for p in sympy.primefactors(degree):
        if polygcd(f, frobenius_power(f, degree // p) ^ 0b10) != 1:
            return False
    return True


def reference_mul(field: GF2Field, a: int, b: int) -> int:
    return polymod(clmul(a, b), field.modulus)


# -- irreducibility ------------------------------------------------------------------


@pytest.mark.parametrize("level", range(6))
def test_modulus_is_irreducible_rabin(level: int) -> None:
    field = GF2Field(level)
    n = 3**level
    assert field.modulus == (1 << (2 * n)) | (1 << n) | 1
    assert rabin_irreducible(field.modulus)


def test_rabin_test_can_fail() -> None:
    # x^10 + x^5 + 1 = Phi_3(x) Phi_15(x): the same shape with 5 for 3 is reducible.
    assert not rabin_irreducible((1 << 10) | (1 << 5) | 1)
    assert not rabin_irreducible((1 << 4) | 1)  # (x + 1)^4
    assert rabin_irreducible((1 << 4) | 0b11)  # x^4 + x + 1


@pytest.mark.parametrize("level", range(4))
def test_modulus_is_irreducible_sympy(level: int) -> None:
    x = sympy.symbols("x")
    n = 3**level
    poly = sympy.Poly(x ** (2 * n) + x**n + 1, x, modulus=2)
    assert poly.is_irreducible
    # It is the cyclotomic polynomial Phi_(3^(l+1)) reduced modulo 2.
    assert sympy.Poly(sympy.cyclotomic_poly(3 ** (level + 1), x), x, modulus=2) == poly


@pytest.mark.parametrize("level", range(MAX_LEVEL + 1))
def test_two_is_a_primitive_root_mod_3_to_the_l_plus_1(level: int) -> None:
    # The argument of the note: the order of 2 modulo 3^(l+1) is phi(3^(l+1)) = 2 * 3^l,
    # so Phi_(3^(l+1)) is irreducible over GF(2).
    modulus = 3 ** (level + 1)
    assert sympy.n_order(2, modulus) == 2 * 3**level == sympy.totient(modulus)


# -- arithmetic against the reference ------------------------------------------------


@pytest.mark.parametrize("level", range(7))
@given(data=st.data())
def test_multiplication_matches_reference(level: int, data: st.DataObject) -> None:
    field = GF2Field(level)
    element = st.integers(0, field.order - 1)
    a, b = data.draw(element), data.draw(element)
    expected = reference_mul(field, a, b)
    assert field.mul(a, b) == expected
    assert field.mul_windowed(a, b) == expected
    assert field.mul_bytes(a, b) == expected
    assert field.mul_kronecker(a, b) == expected
    assert field.mul_sparse(a, b) == expected
    assert field.square(a) == reference_mul(field, a, a)
    assert field.reduce(clmul(a, b)) == expected


@pytest.mark.parametrize("level", [0, 1, 2, 3, 5])
@given(data=st.data())
def test_field_axioms(level: int, data: st.DataObject) -> None:
    field = GF2Field(level)
    element = st.integers(0, field.order - 1)
    a, b, c = data.draw(element), data.draw(element), data.draw(element)
    mul, add = field.mul, field.add
    assert mul(a, b) == mul(b, a)
    assert mul(mul(a, b), c) == mul(a, mul(b, c))
    assert mul(a, add(b, c)) == add(mul(a, b), mul(a, c))
    assert mul(a, 1) == a and add(a, 0) == a and add(a, a) == 0
    if a:
        assert mul(a, field.inv(a)) == 1
        assert field.pow(a, -1) == field.inv(a)
    assert field.pow(a, 5) == mul(a, mul(mul(a, a), mul(a, a)))
    assert field.pow(a, 0) == 1


@pytest.mark.parametrize("level", range(4))
def test_x_has_order_3_to_the_l_plus_1_and_frobenius_fixes_everything(level: int) -> None:
    field = GF2Field(level)
    order = 3 ** (level + 1)
    assert field.pow(0b10, order) == 1
    assert all(field.pow(0b10, order // p) != 1 for p in (3,))
    for a in (0, 1, 0b10, field.order - 1, field.order // 3):
        assert field.pow(a, field.order) == a  # a^(2^L) = a in GF(2^L)


def test_batch_inverse() -> None:
    field = GF2Field(4)
    values = [1, 2, 3, field.order - 1, 12345]
    assert field.batch_inv(values) == [field.inv(v) for v in values]
    with pytest.raises(ZeroDivisionError):
        field.batch_inv([1, 0])
    with pytest.raises(ZeroDivisionError):
        field.inv(0)


# -- T and subfields -----------------------------------------------------------------


def test_bijection_t() -> None:
    field = GF2Field(1)
    assert sorted(field.to_index(a) for a in range(64)) == list(range(1, 65))
    assert all(field.from_index(field.to_index(a)) == a for a in range(64))
    for bad in (0, 65, -1):
        with pytest.raises(ParameterError, match=r"\[1, 2\^6\]"):
            field.from_index(bad)
    with pytest.raises(ParameterError, match=r"\[0, 2\^6\)"):
        field.to_index(64)


@pytest.mark.parametrize(("level", "sub"), [(1, 0), (2, 0), (2, 1), (3, 1), (4, 2)])
@given(data=st.data())
def test_embedding_is_a_field_homomorphism(level: int, sub: int, data: st.DataObject) -> None:
    big, small = GF2Field(level), GF2Field(sub)
    element = st.integers(0, small.order - 1)
    a, b = data.draw(element), data.draw(element)
    ea, eb = big.embed(a, sub), big.embed(b, sub)
    assert big.mul(ea, eb) == big.embed(small.mul(a, b), sub)
    assert ea ^ eb == big.embed(a ^ b, sub)
    assert big.extract(ea, sub) == a
    # Subfield elements are fixed by the Frobenius power of the subfield's order.
    assert big.pow(ea, small.order) == ea


def test_extract_refuses_elements_outside_the_subfield() -> None:
    big = GF2Field(2)
    with pytest.raises(ParameterError, match="not an element of the subfield"):
        big.extract(0b10, 1)
    with pytest.raises(ParameterError, match=r"\[0, 2\]"):
        big.stride(3)


def test_bad_levels_are_refused() -> None:
    with pytest.raises(ParameterError, match=r"l: got -1; it must be an int in \[0, 12\]"):
        GF2Field(-1)
    with pytest.raises(ParameterError, match="l: got 13"):
        GF2Field(13)
    with pytest.raises(ParameterTypeError):
        GF2Field("1")  # type: ignore[arg-type]
    with pytest.raises(ParameterTypeError):
        GF2Field(True)
    with pytest.raises(ParameterTypeError, match="field element"):
        GF2Field(1).check(1.0)
