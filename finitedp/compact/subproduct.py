"""Fast interpolation over a small field ``K``: the subproduct tree.

Paper: BV Lemma 8.1 iv, step 3 (interpolation through the ``n + 1`` points);
the algorithms are the classical ones (von zur Gathen & Gerhard, *Modern
Computer Algebra*, 10.1-10.11; Bostan, Lecerf & Schost 2003 for the transposed
evaluation), run on packed polynomials (:mod:`finitedp.compact.kpoly`).

For distinct points ``b_0, ..., b_(m-1)`` of ``K`` the tree has a leaf
``z - b_i`` per point and, at every inner node, the product ``Z_v`` of its
children.  The left child of a node of size ``m`` has the largest power of two
below ``m`` leaves, so the nodes of the left spine cover the *prefixes* of
sizes ``2^k`` of the points; :func:`finitedp.compact.family.sample_consistent` interpolates through
such prefixes.

Interpolation through the points of a node ``T`` is Lagrange's formula
``p = sum_i c_i Z_T/(z - b_i)`` with ``c_i = y_i / Z_T'(b_i)``, computed bottom up
as ``R_v = R_left Z_right + R_right Z_left`` (:func:`combine`).  The weights
``1/Z_T'(b_i)`` need ``Z_T'`` at every point: a multipoint evaluation, done by the
transpose of :func:`combine` (:func:`evaluate`).  Each costs ``O(M(m) log m)``
operations, ``M`` the cost of a product (one gmpy2 multiplication).

>>> from finitedp.compact.kpoly import PackedPolyRing
>>> ring = PackedPolyRing(1)
>>> tree = SubproductTree(ring, [1, 2, 3, 4, 5])
>>> [node.size for node in tree.spine()]
[5, 4, 2, 1]
>>> p = interpolate(tree.root, [7, 0, 9, 9, 1])
>>> evaluate(tree.root, p, 5)
[7, 0, 9, 9, 1]
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ParameterError
from .kpoly import PackedPolyRing

__all__ = ["Node", "SubproductTree", "combine", "evaluate", "interpolate", "weights"]


class Node:
    """A node of the subproduct tree: the points ``[lo, hi)`` and ``Z = prod (z - b_i)``."""

    __slots__ = ("_reversed", "hi", "known_weights", "left", "lo", "right", "ring", "z")

    def __init__(self, ring: PackedPolyRing, lo: int, hi: int, z: int) -> None:
        self.ring, self.lo, self.hi, self.z = ring, lo, hi, z
        self.left: Node | None = None
        self.right: Node | None = None
        self._reversed: int | None = None
        self.known_weights: list[int] | None = None  # 1/Z'(b_i), once computed

    @property
    def size(self) -> int:
        """The number of points under the node (``Z`` has degree ``size``)."""
        return self.hi - self.lo

    @property
    def reversed_z(self) -> int:
        """``z^size Z(1/z)``, kept for the transposed products."""
        if self._reversed is None:
            self._reversed = self.ring.reverse(self.z, self.size + 1)
        return self._reversed

    def children(self) -> tuple[Node, Node]:
        """``(left, right)``; an inner node always has both."""
        if self.left is None or self.right is None:
            raise ValueError("a leaf has no children")
        return self.left, self.right


class SubproductTree:
    """The subproduct tree of distinct points of ``K`` (left children of power-of-two size).

    Args:
        ring: the packed polynomials over ``K``.
        points: distinct elements of ``K``, in the order the leaves take.

    Raises:
        ParameterError: no points, or points not distinct.
    """

    __slots__ = ("points", "ring", "root")

    def __init__(self, ring: PackedPolyRing, points: Sequence[int]) -> None:
        if not points:
            raise ParameterError("points: got none; a subproduct tree needs at least one point")
        if len(set(points)) != len(points):
            raise ParameterError("points: the interpolation points must be distinct")
        self.ring, self.points = ring, list(points)
        self.root = self._build(0, len(self.points))

    def _build(self, lo: int, hi: int) -> Node:
        ring = self.ring
        if hi - lo == 1:
            return Node(ring, lo, hi, ring.pack([self.points[lo], 1]))  # z - b = z + b
        half = 1 << ((hi - lo - 1).bit_length() - 1)  # the largest power of two below hi - lo
        left, right = self._build(lo, lo + half), self._build(lo + half, hi)
        node = Node(ring, lo, hi, ring.mul(left.z, left.size + 1, right.z, right.size + 1))
        node.left, node.right = left, right
        return node

    def spine(self) -> list[Node]:
        """The root, its left child, that node's left child, ... down to a leaf."""
        nodes, node = [self.root], self.root
        while node.left is not None:
            node = node.left
            nodes.append(node)
        return nodes

    def prefix(self, size: int) -> Node:
        """The smallest spine node over at least ``size`` points (the first ``2^k``, or all).

        Raises:
            ParameterError: ``size`` outside ``[1, number of points]``.
        """
        if not 1 <= size <= self.root.size:
            raise ParameterError(f"size: got {size}; a prefix has 1 to {self.root.size} points")
        best = self.root
        for node in self.spine():
            if node.size >= size:
                best = node
        return best


def combine(node: Node, coefficients: Sequence[int]) -> int:
    """``sum_i c_i Z_node/(z - b_i)`` over the node's points (packed, length ``size``).

    ``coefficients[i]`` belongs to the node's ``i``-th point.
    """
    if node.size == 1:
        return int(coefficients[0])
    left, right = node.children()
    ring = node.ring
    low = combine(left, coefficients[: left.size])
    high = combine(right, coefficients[left.size :])
    return ring.mul(low, left.size, right.z, right.size + 1) ^ ring.mul(
        high, right.size, left.z, left.size + 1
    )


def evaluate(node: Node, p: int, length: int) -> list[int]:
    """``[p(b_i)]`` over the node's points, for ``p`` of length at most ``size``.

    The transpose of :func:`combine`: that map sends ``c`` to
    ``sum_i c_i Z/(z - b_i)``; its transpose sends ``g`` to ``[H(b_i)]`` where
    ``rev(H) = rev(Z) g mod z^size``, so ``g = rev(p) / rev(Z) mod z^size`` gives
    ``[p(b_i)]``.  Going down, a node hands its children the middle products
    ``rev(Z_right) g`` and ``rev(Z_left) g``.

    Raises:
        ParameterError: ``length`` above the node's size.
    """
    size, ring = node.size, node.ring
    if not 1 <= length <= size:
        raise ParameterError(f"length: got {length}; evaluate() takes 1 to {size} coefficients")
    reversed_p = ring.shift(ring.reverse(p, length), size - length)  # rev as a length-size poly
    inverse = ring.inverse_series(node.reversed_z, size)
    return _descend(node, ring.truncate(ring.mul(reversed_p, size, inverse, size), size))


def _descend(node: Node, g: int) -> list[int]:
    if node.size == 1:
        return [node.ring.coefficient(g, 0)]
    left, right = node.children()
    ring, size = node.ring, node.size
    to_left = ring.window(
        ring.mul(right.reversed_z, right.size + 1, g, size), right.size, left.size
    )
    to_right = ring.window(ring.mul(left.reversed_z, left.size + 1, g, size), left.size, right.size)
    return _descend(left, to_left) + _descend(right, to_right)


def weights(node: Node) -> list[int]:
    """``[1 / Z'(b_i)]`` over the node's points (cached on the node)."""
    if node.known_weights is None:
        ring, size = node.ring, node.size
        if size == 1:
            node.known_weights = [1]
        else:
            derivative = ring.derivative(node.z, size + 1)
            node.known_weights = ring.field.batch_inv(evaluate(node, derivative, size))
    return node.known_weights


def interpolate(node: Node, values: Sequence[int]) -> int:
    """The packed ``p`` of degree below ``size`` with ``p(b_i) = values[i]`` at the node's points.

    Raises:
        ParameterError: not one value per point.
    """
    if len(values) != node.size:
        raise ParameterError(f"values: got {len(values)} for {node.size} points")
    mul = node.ring.field.mul
    return combine(node, [mul(y, w) for y, w in zip(values, weights(node), strict=True)])
