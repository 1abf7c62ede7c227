"""Laws of packed polynomial arithmetic over K (kpoly) and of the subproduct tree."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finitedp.compact.gf2 import GF2Field
from finitedp.compact.kpoly import PackedPolyRing
from finitedp.compact.polynomial import horner, interpolate
from finitedp.compact.subproduct import SubproductTree, evaluate, weights
from finitedp.compact.subproduct import interpolate as tree_interpolate
from finitedp.errors import ParameterError

LEVELS = st.integers(0, 3)


def schoolbook(field: GF2Field, a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for k, y in enumerate(b):
            out[i + k] ^= field.mul(x, y)
    return out


def polys(field: GF2Field, min_size: int = 1, max_size: int = 30) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, field.order - 1), min_size=min_size, max_size=max_size)


@settings(max_examples=60)
@given(data=st.data())
def test_product_is_the_schoolbook_product(data: st.DataObject) -> None:
    ring = PackedPolyRing(data.draw(LEVELS))
    a, b = data.draw(polys(ring.field)), data.draw(polys(ring.field))
    product = ring.mul(ring.pack(a), len(a), ring.pack(b), len(b))
    assert ring.unpack(product, len(a) + len(b) - 1) == schoolbook(ring.field, a, b)
    assert ring.unpack(ring.square(ring.pack(a), len(a)), 2 * len(a) - 1) == schoolbook(
        ring.field, a, a
    )


@settings(max_examples=60)
@given(data=st.data())
def test_layout_laws(data: st.DataObject) -> None:
    ring = PackedPolyRing(data.draw(LEVELS))
    a = data.draw(polys(ring.field))
    p, m = ring.pack(a), len(a)
    assert ring.unpack(p, m) == a
    assert ring.unpack(ring.reverse(p, m), m) == a[::-1]
    assert [ring.coefficient(p, t) for t in range(m)] == a
    derivative = [a[k] if k % 2 else 0 for k in range(1, m)]  # k a_k, k mod 2
    assert ring.unpack(ring.derivative(p, m), max(m - 1, 1))[: m - 1] == derivative
    start = data.draw(st.integers(0, m - 1))
    assert ring.unpack(ring.window(p, start, m - start), m - start) == a[start:]


@settings(max_examples=60)
@given(data=st.data())
def test_inverse_series(data: st.DataObject) -> None:
    ring = PackedPolyRing(data.draw(LEVELS))
    d = [1, *data.draw(polys(ring.field, 0, 20))]
    length = data.draw(st.integers(1, 40))
    g = ring.inverse_series(ring.pack(d), length)
    product = ring.truncate(ring.mul(ring.pack(d), len(d), g, length), length)
    assert ring.unpack(product, length) == [1] + [0] * (length - 1)
    with pytest.raises(ValueError, match="constant coefficient"):
        ring.inverse_series(ring.pack([0, 1]), 3)


def distinct_points(data: st.DataObject, field: GF2Field, max_size: int) -> list[int]:
    size = data.draw(st.integers(1, min(field.order, max_size)))
    return data.draw(
        st.lists(st.integers(0, field.order - 1), min_size=size, max_size=size, unique=True)
    )


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_tree_products_evaluation_and_interpolation(data: st.DataObject) -> None:
    ring = PackedPolyRing(data.draw(st.integers(0, 4)))
    field = ring.field
    points = distinct_points(data, field, 70)
    tree = SubproductTree(ring, points)
    # Every spine node covers a prefix of 2^k points (the root: all of them).
    spine = tree.spine()
    assert [node.lo for node in spine] == [0] * len(spine)
    assert all(node.size & (node.size - 1) == 0 for node in spine[1:])
    for node in spine:
        size, prefix = node.size, points[: node.size]
        z = [1]
        for b in prefix:
            z = schoolbook(field, z, [b, 1])
        assert ring.unpack(node.z, size + 1) == z
        p = data.draw(polys(field, 1, size))
        assert evaluate(node, ring.pack(p), len(p)) == [horner(field, p, x) for x in prefix]
        expected = []
        for b in prefix:
            product = 1
            for c in prefix:
                if c != b:
                    product = field.mul(product, b ^ c)
            expected.append(field.inv(product))
        assert weights(node) == expected
        values = data.draw(polys(field, size, size))
        found = ring.unpack(tree_interpolate(node, values), size)
        assert tuple(found) == interpolate(field, prefix, values)


def test_prefix_choice_and_errors() -> None:
    ring = PackedPolyRing(2)
    tree = SubproductTree(ring, list(range(1, 12)))
    assert [node.size for node in tree.spine()] == [11, 8, 4, 2, 1]
    assert [tree.prefix(a).size for a in (1, 2, 3, 5, 8, 9, 11)] == [1, 2, 4, 8, 8, 11, 11]
    with pytest.raises(ParameterError, match="prefix"):
        tree.prefix(12)
    with pytest.raises(ParameterError, match="distinct"):
        SubproductTree(ring, [3, 3])
    with pytest.raises(ParameterError, match="at least one"):
        SubproductTree(ring, [])
    with pytest.raises(ParameterError, match="values"):
        tree_interpolate(tree.root, [1, 2])
    with pytest.raises(ParameterError, match="length"):
        evaluate(tree.root, 0, 12)


def test_large_tree_uses_three_byte_slots_and_stays_exact() -> None:
    # 600 points of GF(2^162): the top products sum up to 300 * 162 > 2^16 ones per column,
    # so the Kronecker slots are three bytes wide; Horner (no packing) checks a sample.
    ring = PackedPolyRing(4)
    field = ring.field
    points = [(b * 0x9E3779B97F4A7C15) % field.order for b in range(1, 601)]
    values = [(b * 0xD1B54A32D192ED03 + 7) % field.order for b in range(600)]
    tree = SubproductTree(ring, points)
    coefficients = ring.unpack(tree_interpolate(tree.root, values), 600)
    assert all(horner(field, coefficients, points[i]) == values[i] for i in range(0, 600, 37))
    assert evaluate(tree.root, ring.pack(coefficients), 600) == values
