"""The standing hostile suite for the noise, accounting and selection APIs.

Each row is a call a user could make with a bad or extreme argument.  It must
raise one of finitedp's errors (a ``ValueError`` or ``TypeError`` subclass)
naming the parameter, within a time cap, under a 1 GiB memory limit, before
any long work; and whatever is displayed of a valid object never fails.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from work import refused_within

from finitedp.accounting import Accountant, Guarantee
from finitedp.aggregation import budget_split
from finitedp.aggregation.vectorsum import EllipticalGaussian, ParallelotopeLaplace
from finitedp.counting.gaussian import DiscreteGaussian
from finitedp.counting.mixedgeometric import MixedGeometric
from finitedp.counting.twosided import ClampedGeometric, clamp_tail, least_tail
from finitedp.errors import (
    FiniteDPError,
    FloatParameterError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
)
from finitedp.exactmath import exp_bounds
from finitedp.mean import PLAN
from finitedp.selection import BinarySearchQuantile, ExponentialMechanism, ExponentialQuantile, Grid
from finitedp.selection.gaussianquantile import GaussianBinarySearchQuantile
from finitedp.sketches.private import PrivateMisraGries

HUGE = Fraction(1, 10**5000)
F6 = Fraction(1, 10**6)


@functools.cache
def _small_plan() -> PLAN:
    return PLAN(0, 1, d=1, n=2, rho=1)


@functools.cache
def _small_plan2() -> PLAN:
    return PLAN(0, 1, d=2, n=2, rho=1)


CASES: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    # PLAN (thesis Alg 17) and its quantiles
    ("plan rho 65", lambda: PLAN(-1, 1, d=4, n=100, rho=65), ParameterError, "rho"),
    (
        "plan rho 10^-12",
        lambda: PLAN(-1, 1, d=4, n=100, rho=Fraction(1, 10**12)),
        ResourceLimitError,
        "rho",
    ),
    (
        "plan rho 10^-40",
        lambda: PLAN(-1, 1, d=4, n=100, rho=Fraction(1, 10**40)),
        FiniteDPError,
        "rho",
    ),
    ("plan float rho", lambda: PLAN(-1, 1, d=4, n=100, rho=0.5), FloatParameterError, "rho"),
    ("plan n 1", lambda: PLAN(-1, 1, d=4, n=1, rho=1), ParameterError, "n"),
    ("plan d 2^20", lambda: PLAN(-1, 1, d=1 << 20, n=100, rho=1), ParameterError, "d"),
    (
        "plan clip_count 10^9",
        lambda: PLAN(-1, 1, d=4, n=100, rho=1, clip_count=10**9),
        ParameterError,
        "clip_count",
    ),
    (
        "plan clipped n",
        lambda: PLAN(-1, 1, d=4, n=100, rho=1, clipped=100),
        ParameterError,
        "clipped",
    ),
    (
        "plan centre typo",
        lambda: PLAN(-1, 1, d=4, n=100, rho=1, centre="mean"),
        ParameterError,
        "centre",
    ),  # type: ignore[arg-type]
    (
        "plan grid 2^40",
        lambda: PLAN(0, 1, d=4, n=100, rho=1, step=Fraction(1, 2**40)),
        ParameterError,
        "step",
    ),
    (
        "plan rows huge index",
        lambda: _small_plan().release_indices([[0], [10**30]]),
        FiniteDPError,
        "rows",
    ),
    (
        "quantile epsilon 129",
        lambda: ExponentialQuantile.from_epsilon(0, 9, quantile=0, n=1, epsilon=129),
        ParameterError,
        "epsilon",
    ),
    (
        "gaussian quantile rho 0",
        lambda: GaussianBinarySearchQuantile(0, 9, quantile=0, n=1, rho=0),
        ParameterError,
        "rho",
    ),
    (
        "gaussian quantile rho 10^-30, one-table law",
        lambda: GaussianBinarySearchQuantile(
            0, 9, quantile=0, n=1, rho=Fraction(1, 10**30), noise_law="table"
        ),
        ResourceLimitError,
        "sigma",
    ),
    (  # the convolved law takes sigma^2 = 2 10^30 (in milliseconds); 2 10^40 is past 2^128
        "gaussian quantile rho 10^-40",
        lambda: GaussianBinarySearchQuantile(0, 9, quantile=0, n=1, rho=Fraction(1, 10**40)),
        ResourceLimitError,
        "sigma",
    ),
    ("float sigma", lambda: DiscreteGaussian(2.5), FloatParameterError, "sigma"),
    ("bool sigma", lambda: DiscreteGaussian(True), FiniteDPError, "sigma"),
    ("negative sigma", lambda: DiscreteGaussian(-1), ParameterError, "sigma"),
    ("sigma as text", lambda: DiscreteGaussian("ten"), ParameterError, "sigma"),
    ("sigma 10^9", lambda: DiscreteGaussian(10**9), ResourceLimitError, "sigma"),
    ("sigma 10^40", lambda: DiscreteGaussian(10**40), ResourceLimitError, "sigma"),
    ("sigma 10^-6", lambda: DiscreteGaussian(Fraction(1, 10**6)), ParameterError, "sigma"),
    ("radius 0", lambda: DiscreteGaussian(3, radius=0), ParameterError, "radius"),
    ("radius float", lambda: DiscreteGaussian(3, radius=5.0), FloatParameterError, "radius"),
    ("precision 0", lambda: DiscreteGaussian(3, precision=0), ParameterError, "precision"),
    ("precision 10^6", lambda: DiscreteGaussian(3, precision=10**6), ParameterError, "precision"),
    ("base 1", lambda: DiscreteGaussian.with_base(1, 3), ParameterError, "base"),
    ("base 0", lambda: DiscreteGaussian.with_base(0, 3), ParameterError, "base"),
    (
        "base near 1, wide",
        lambda: DiscreteGaussian.with_base("999999/1000000", 2000),
        ResourceLimitError,
        "base",
    ),
    ("sample_many float", lambda: DiscreteGaussian(3).sample_many(2.0), FiniteDPError, "count"),
    ("draw 0", lambda: DiscreteGaussian(3)(0), ParameterError, "u"),
    ("delta float eps", lambda: DiscreteGaussian(3).delta(0.5), FloatParameterError, "epsilon"),
    ("delta negative eps", lambda: DiscreteGaussian(3).delta(-1), ParameterError, "epsilon"),
    ("zcdp shift 0", lambda: DiscreteGaussian(3).zcdp(0), ParameterError, "sensitivity"),
    ("accuracy beta 1", lambda: DiscreteGaussian(3).accuracy(1), ParameterError, "beta"),
    ("guarantee float", lambda: Guarantee.pure(0.1, "x"), FloatParameterError, "epsilon"),
    ("guarantee rho text", lambda: Guarantee.zcdp("a lot", "x"), ParameterError, "rho"),
    ("accountant delta 0", lambda: _plan().epsilon_for(0), ParameterError, "delta"),
    ("accountant delta 1", lambda: _plan().epsilon_for(1), ParameterError, "delta"),
    ("em base 1", lambda: ExponentialMechanism(1), ParameterError, "base"),
    ("em float base", lambda: ExponentialMechanism(1.01), FloatParameterError, "base"),
    (
        "em sensitivity 0",
        lambda: ExponentialMechanism(2, sensitivity=0),
        ParameterError,
        "sensitivity",
    ),
    (
        "em utilities spanning 10^12",
        lambda: ExponentialMechanism("3/2").weights([0, -(10**12)]),
        ResourceLimitError,
        "utilities",
    ),
    ("em no candidates", lambda: ExponentialMechanism(2).sample([]), ParameterError, "utilities"),
    (
        "quantile off grid",
        lambda: ExponentialQuantile(0, "1/2", quantile="1/2", n=1, base=2, step="1/3"),
        ParameterError,
        "upper",
    ),
    (
        "quantile float value",
        lambda: ExponentialQuantile(0, 10, quantile="1/2", n=1, base=2).release([1.5]),
        FloatParameterError,
        "values[0]",
    ),
    (
        "quantile empty",
        lambda: ExponentialQuantile(0, 10, quantile="1/2", n=1, base=2).release([]),
        ParameterError,
        "values",
    ),
    (
        "quantile n 0",
        lambda: ExponentialQuantile(0, 10, quantile="1/2", n=0, base=2),
        ParameterError,
        "n",
    ),
    (
        "hockey-stick ratio of 5,000 digits",
        lambda: DiscreteGaussian(3).hockey_stick(HUGE),
        ParameterError,
        "exp_epsilon: got 1/<a 16610-bit integer>",
    ),
    (
        "guarantee negative 5,000 digits",
        lambda: Guarantee("x", epsilon=-HUGE),
        ParameterError,
        "epsilon -1/<a 16610-bit integer>",
    ),
    (
        "em base of 5,000 digits below 1",
        lambda: ExponentialMechanism(HUGE),
        ParameterError,
        "base: got 1/<a 16610-bit integer>",
    ),
    (
        "quantile value of 5,000 digits",
        lambda: ExponentialQuantile(0, 10, quantile="1/2", n=1, base=2).release([10**5000]),
        ParameterError,
        "values[0]: got <a 16610-bit integer>",
    ),
    (
        "binary search epsilon 10^-9",
        lambda: BinarySearchQuantile(0, 10, quantile="1/2", n=5, epsilon=Fraction(1, 10**9)),
        ResourceLimitError,
        "epsilon",
    ),
    (
        "binary search huge grid step",
        lambda: BinarySearchQuantile(0, 1, quantile="1/2", n=5, epsilon=1, step=HUGE),
        ParameterError,
        "step",
    ),
    # -- the aggregation family (thesis chapter 4) --
    ("mixed eps tiny", lambda: MixedGeometric(HUGE, 1, 0, 1), ResourceLimitError, "epsilon"),
    ("mixed eps huge", lambda: MixedGeometric(10**5000, 1, 0, 1), ParameterError, "epsilon"),
    ("mixed eps 65/unit", lambda: MixedGeometric(65, 1, 0, 1), ParameterError, "epsilon"),
    ("mixed sens huge", lambda: MixedGeometric(1, 10**5000, 0, 1), ResourceLimitError, "epsilon"),
    ("mixed low > high", lambda: MixedGeometric(1, 1, 3, 2), ParameterError, "low"),
    ("mixed float low", lambda: MixedGeometric(1, 1, 0.0, 2), FloatParameterError, "low"),
    ("mixed moment p huge", lambda: MixedGeometric(1, 1, 0, 2).moment(10**6), ParameterError, "p"),
    ("mixed value off", lambda: MixedGeometric(1, 1, 0, 2).sample(3), ParameterError, "value"),
    ("split p huge", lambda: budget_split([1, 2], "l1", p=10**9), ParameterError, "p: got"),
    ("split norm", lambda: budget_split([1, 2], "l7"), ParameterError, "norm"),
    (
        "laplace fine grid",
        lambda: ParallelotopeLaplace([Grid(0, 1, Fraction(1, 10**30))], 10, 1),
        ResourceLimitError,
        "epsilon",
    ),
    (
        "laplace eps tiny",
        lambda: ParallelotopeLaplace([Grid(0, 1)], 10, HUGE),
        ResourceLimitError,
        "epsilon",
    ),
    ("laplace grids", lambda: ParallelotopeLaplace(Grid(0, 1), 10, 1), ParameterError, "grids"),
    (
        "laplace n float",
        lambda: ParallelotopeLaplace([Grid(0, 1)], 1.0, 1),
        FloatParameterError,
        "n",
    ),
    (
        "laplace moment p huge",
        lambda: ParallelotopeLaplace([Grid(0, 1)], 1, 1).moment(10**6),
        ParameterError,
        "p",
    ),
    (
        "gauss rho tiny",
        lambda: EllipticalGaussian([Grid(0, 1)], 10, HUGE),
        ResourceLimitError,
        "sigma",
    ),
    (
        "gauss rho huge",
        lambda: EllipticalGaussian([Grid(0, 1)], 10, 10**5000),
        ParameterError,
        "rho",
    ),
    (
        "gauss fine grid",
        lambda: EllipticalGaussian([Grid(0, 1, Fraction(1, 10**30))], 10, 1),
        ResourceLimitError,
        "sigma",
    ),
    (
        "gauss sums off",
        lambda: EllipticalGaussian([Grid(0, 1)], 2, 1).release_sums([3]),
        ParameterError,
        "sums",
    ),
    # issue 40 item 2: the Python API's hostile calls
    ("gauss add float", lambda: DiscreteGaussian(3).add([1.7]), FloatParameterError, "values[0]"),
    ("gauss add text", lambda: DiscreteGaussian(3).add(["abc"]), ParameterTypeError, "values[0]"),
    ("gauss add bool", lambda: DiscreteGaussian(3).add([True]), ParameterTypeError, "values[0]"),
    ("gauss sigma 1e9999", lambda: DiscreteGaussian("1e9999"), ResourceLimitError, "sigma"),
    (
        "gauss sigma^2 2^129",
        lambda: DiscreteGaussian.from_variance(2**129),
        ParameterError,
        "sigma",
    ),
    (
        "gauss 10^12 samples",
        lambda: DiscreteGaussian(3).sample_many(10**12),
        ResourceLimitError,
        "count",
    ),
    (
        "mixed gamma_bits 10^12",
        lambda: MixedGeometric(1, 1, 0, 10, gamma_bits=10**12),
        ParameterError,
        "gamma_bits",
    ),
    (
        "mixed gamma_bits 4097",
        lambda: MixedGeometric(1, 1, 0, 10, gamma_bits=4097),
        ParameterError,
        "gamma_bits",
    ),
    (
        "binary quantile eps 10^9",
        lambda: BinarySearchQuantile(0, 100, quantile="1/2", n=3, epsilon=10**9),
        ParameterError,
        "epsilon",
    ),
    (
        "binary quantile eps 129 a step",
        lambda: BinarySearchQuantile(0, 1, quantile="1/2", n=3, epsilon=129),
        ParameterError,
        "epsilon",
    ),
    (
        "binary quantile eps 1e-9999",
        lambda: BinarySearchQuantile(0, 100, quantile="1/2", n=3, epsilon="1e-9999"),
        ParameterError,
        "epsilon",
    ),
    (
        "binary quantile eps 2^-40",
        lambda: BinarySearchQuantile(0, 100, quantile="1/2", n=3, epsilon=Fraction(1, 2**40)),
        ParameterError,
        "epsilon",
    ),
    (
        "exp quantile eps 10^-9",
        lambda: ExponentialQuantile.from_epsilon(
            0, 100, quantile="1/2", n=3, epsilon=Fraction(1, 10**9)
        ),
        ResourceLimitError,
        "epsilon",
    ),
    (
        "exp quantile base near 1",
        lambda: ExponentialQuantile(0, 100, quantile="1/2", n=3, base=Fraction(10**9 + 1, 10**9)),
        ResourceLimitError,
        "base",
    ),
    ("plan p 10^9", lambda: PLAN(-1, 1, d=2, n=10, rho=1, p=10**9), ParameterError, "p"),
    ("plan p 65", lambda: PLAN(-1, 1, d=2, n=10, rho=1, p=65), ParameterError, "p"),
    (
        "plan rho 10^-9",
        lambda: PLAN(-1, 1, d=2, n=10, rho=Fraction(1, 10**9)),
        ResourceLimitError,
        "rho",
    ),
    ("plan 10^5000 steps", lambda: PLAN(0, 10**5000, d=2, n=10, rho=1), ParameterError, "step"),
    ("grid of 2^64 points", lambda: Grid(0, 2**64).indices([3, "1/2"]), ParameterError, "values"),
    ("exp_bounds 2^25", lambda: exp_bounds(2**25), ParameterError, "exponent"),
    # issue 40 item 2, second part: the sketches' noise, grids, splits and the rest
    ("pmg k 0", lambda: PrivateMisraGries(0, 10, 1, "1/10"), ParameterError, "k: got 0"),
    ("pmg k 10^12", lambda: PrivateMisraGries(10**12, 10, 1, "1/10"), ResourceLimitError, "k ="),
    ("pmg delta 1", lambda: PrivateMisraGries(2, 10, 1, 1), ParameterError, "delta"),
    ("pmg delta float", lambda: PrivateMisraGries(2, 10, 1, 0.1), FloatParameterError, "delta"),
    ("pmg eps 0", lambda: PrivateMisraGries(2, 10, 0, "1/10"), ParameterError, "epsilon"),
    (
        "pmg threshold",
        lambda: PrivateMisraGries(2, 10, 1, "1/10", threshold="x"),
        ParameterError,
        "threshold",
    ),
    (
        "pmg eps 10^-6, delta 10^-100",
        lambda: PrivateMisraGries(2, 10, F6, Fraction(1, 10**100)),
        ResourceLimitError,
        "epsilon: got 1/1000000",
    ),
    (
        "pmg element 11",
        lambda: PrivateMisraGries(2, 10, 1, "1/10").release([11]),
        ParameterError,
        "element",
    ),
    (
        "pmg element float",
        lambda: PrivateMisraGries(2, 10, 1, "1/10").release([1.0]),
        ParameterError,
        "element",
    ),
    ("clamped R 0", lambda: ClampedGeometric(1, 0), ParameterError, "R"),
    ("clamped eps float", lambda: ClampedGeometric(0.5, 3), FloatParameterError, "epsilon"),
    (
        "least_tail alpha 1",
        lambda: least_tail(Fraction(1), Fraction(1, 10)),
        ParameterError,
        "alpha",
    ),
    ("clamp_tail j 0", lambda: clamp_tail(Fraction(1, 2), 0), ParameterError, "j = 0"),
    ("grid step 0", lambda: Grid(0, 1, 0), ParameterError, "step"),
    ("grid reversed", lambda: Grid(1, 0), ParameterError, "upper"),
    ("grid float", lambda: Grid(0.0, 1), FloatParameterError, "lower"),
    ("grid index off", lambda: Grid(0, 10).index("1/2"), ParameterError, "not on the grid"),
    ("grid index out", lambda: Grid(0, 10).index(11), ParameterError, "[0, 10]"),
    ("grid value text", lambda: Grid(0, 10).indices(["abc"]), ParameterError, "values[0]"),
    ("split empty", lambda: budget_split([], "l1"), ParameterError, "sensitivities"),
    ("split zero", lambda: budget_split([0, 1], "l1"), ParameterError, "sensitivities[0]"),
    ("split float", lambda: budget_split([0.5, 1], "l1"), FloatParameterError, "sensitivities[0]"),
    (
        "split exponent < 0",
        lambda: budget_split([1, 2], "l2", exponent=-1),
        ParameterError,
        "exponent",
    ),
    ("split p 0", lambda: budget_split([1, 2], "l2", p=0), ParameterError, "p: got 0"),
    ("split p 63 l2", lambda: budget_split([1, 2], "l2", p=63), ParameterError, "p: got 63"),
    (
        "binary quantile clip 10^12",
        lambda: BinarySearchQuantile(0, 10, quantile="1/2", n=5, epsilon=1, clip=10**12),
        ResourceLimitError,
        "clip: got 1000000000000",
    ),
    (
        "binary quantile q 2",
        lambda: BinarySearchQuantile(0, 10, quantile=2, n=5, epsilon=1),
        ParameterError,
        "quantile",
    ),
    (
        "binary quantile q float",
        lambda: BinarySearchQuantile(0, 10, quantile=0.5, n=5, epsilon=1),
        FloatParameterError,
        "quantile",
    ),
    (
        "binary quantile n mismatch",
        lambda: BinarySearchQuantile(0, 10, quantile="1/2", n=5, epsilon=1).release([1, 2]),
        ParameterError,
        "values",
    ),
    (
        "exp quantile clip 10^12",
        lambda: ExponentialQuantile(0, 10, quantile="1/2", n=5, base=2, clip=10**12),
        ResourceLimitError,
        "clip K = 1000000000000",
    ),
    (
        "exp quantile base float",
        lambda: ExponentialQuantile(0, 10, quantile="1/2", n=5, base=2.0),
        FloatParameterError,
        "base",
    ),
    (
        "exp quantile base 1/2",
        lambda: ExponentialQuantile(0, 10, quantile="1/2", n=5, base="1/2"),
        ParameterError,
        "base",
    ),
    (
        "gaussian quantile rho float",
        lambda: GaussianBinarySearchQuantile(0, 9, quantile=0, n=1, rho=0.5),
        FloatParameterError,
        "rho",
    ),
    (
        "gaussian quantile n 0",
        lambda: GaussianBinarySearchQuantile(0, 9, quantile=0, n=0, rho=1),
        ParameterError,
        "n",
    ),
    (
        "em utility float",
        lambda: ExponentialMechanism(2).sample([0.5]),
        ParameterError,
        "utility 0",
    ),
    ("em utility text", lambda: ExponentialMechanism(2).sample(["a"]), ParameterError, "utility 0"),
    ("laplace n 0", lambda: ParallelotopeLaplace([Grid(0, 1)], 0, 1), ParameterError, "n"),
    ("laplace no grids", lambda: ParallelotopeLaplace([], 10, 1), ParameterError, "grids"),
    (
        "laplace sums float",
        lambda: ParallelotopeLaplace([Grid(0, 1)], 2, 1).release_sums([0.5]),
        ParameterError,
        "sums[0]",
    ),
    (
        "gauss two sums for d = 1",
        lambda: EllipticalGaussian([Grid(0, 1)], 2, 1).release_sums([1, 1]),
        ParameterError,
        "sums",
    ),
    (
        "gauss rho float",
        lambda: EllipticalGaussian([Grid(0, 1)], 2, 0.5),
        FloatParameterError,
        "rho",
    ),
    (
        "gauss epsilon_for 0",
        lambda: EllipticalGaussian([Grid(0, 1)], 2, 1).epsilon_for(0),
        ParameterError,
        "delta",
    ),
    ("mixed sample float", lambda: MixedGeometric(1, 1, 0, 2).sample(0.5), ParameterError, "value"),
    ("mixed sensitivity 0", lambda: MixedGeometric(1, 0, 0, 2), ParameterError, "sensitivity"),
    ("plan lower > upper", lambda: PLAN(1, -1, d=2, n=10, rho=1), ParameterError, "upper"),
    ("plan d 0", lambda: PLAN(-1, 1, d=0, n=10, rho=1), ParameterError, "d: got 0"),
    (
        "plan rounds 10^9",
        lambda: PLAN(-1, 1, d=2, n=10, rho=1, rounds=10**9),
        ParameterError,
        "rounds",
    ),
    ("plan float lower", lambda: PLAN(-1.0, 1, d=2, n=10, rho=1), FloatParameterError, "lower"),
    (
        "plan one row of two",
        lambda: _small_plan2().release_indices([[0, 0]]),
        ParameterError,
        "rows",
    ),
    (
        "plan ragged rows",
        lambda: _small_plan2().release_indices([[0, 0], [1]]),
        ParameterError,
        "rows",
    ),
    (
        "plan rows of text",
        lambda: _small_plan2().release_indices([["a", "b"], ["c", "d"]]),
        ParameterError,
        "rows",
    ),
    ("accountant adds text", lambda: Accountant("x").add("abc"), ParameterError, "guarantee"),
    ("guarantee rho < 0", lambda: Guarantee.zcdp(-1, "x"), ParameterError, "rho"),
    ("gauss sample_many -1", lambda: DiscreteGaussian(3).sample_many(-1), ParameterError, "count"),
    ("gauss variance 0", lambda: DiscreteGaussian.from_variance(0), ParameterError, "sigma2"),
    (
        "gauss ratio 1/2",
        lambda: DiscreteGaussian(3).hockey_stick(Fraction(1, 2)),
        ParameterError,
        "exp_epsilon",
    ),
]


def _plan() -> Accountant:
    acc = Accountant("replace one vector")
    acc.add(Guarantee.zcdp(Fraction(1, 2), "all"))
    return acc


@pytest.fixture(autouse=True)
def one_gib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "1G")


@pytest.mark.parametrize(
    ("call", "error", "name"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_refused_quickly_by_name(
    call: Callable[[], Any], error: type[Exception], name: str
) -> None:
    _small_plan(), _small_plan2()  # built outside the count: the refusal is what is measured
    raised = refused_within(call, error)
    assert isinstance(raised, ValueError | TypeError)
    assert name in str(raised)


def test_display_never_fails_on_huge_valid_figures() -> None:
    g = Guarantee.zcdp(HUGE, "tiny", delta=HUGE, integer_orders=True)
    assert "16610-bit" in repr(g)
    acc = Accountant("replace one row")
    acc.add(g)
    acc.add(Guarantee.pure(Fraction(10**5000 + 1, 10**5000), "pure"))
    assert "Accountant" in repr(acc)
    assert acc.to_json_dict()["total"]["rho"].startswith("1")
    assert repr(DiscreteGaussian(Fraction(10**40 + 1, 10**40))).startswith("DiscreteGaussian(")
    assert "ExponentialMechanism" in repr(ExponentialMechanism(Fraction(10**5000 + 1, 10**5000)))


def test_hostile_calls_with_sane_answers() -> None:
    """Calls that must answer, not refuse: an int beyond int64 on a grid that holds it,
    the repr of a split of 5000-digit sensitivities, e^x far past the series' reach."""
    assert Grid(2**62 + 2, 2**63).indices([2**63]).tolist() == [2**62 - 2]
    assert Grid(-(2**63) - 5, -(2**63) + 5).indices([-(2**63)]).tolist() == [5]
    shown = repr(budget_split([1, 10**5000], "l1"))
    assert "bit integer" in shown and len(shown) < 400
    low, high = exp_bounds(Fraction(5000))
    assert low < high and (high - low) / low < Fraction(1, 2**60)
    assert DiscreteGaussian(3).add([], None) == []


def test_the_suite_has_its_150_api_calls() -> None:
    assert len(CASES) >= 90  # with test_hostile_columns' CLI rows and tests/test_fuzz.py
