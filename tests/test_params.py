"""Laws of exact parameter parsing (finitedp.params).

Exact numbers (ints, Fractions, gmpy2 mpz/mpq, exact strings) are accepted
unchanged; floats of every kind are refused with a message that names the
parameter and suggests the exact spelling; other types are refused too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction

import gmpy2
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from finitedp.errors import (
    FiniteDPError,
    FloatParameterError,
    ParameterError,
    ParameterTypeError,
)
from finitedp.params import (
    check_count,
    check_draw,
    check_positive_int,
    exact_fraction,
    inverse_natural,
    positive_fraction,
    probability,
    short_int,
)

F = Fraction

fractions = st.fractions()
big_ints = st.integers(min_value=-(10**60), max_value=10**60)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)

_SUGGESTION = re.compile(r'use Fraction\((-?\d+), (\d+)\) or "([^"]+)"$')


def _suggested(message: str) -> tuple[Fraction, str]:
    """The Fraction and the string a FloatParameterError message suggests."""
    match = _SUGGESTION.search(message)
    assert match is not None, message
    return F(int(match[1]), int(match[2])), match[3]


# -- the error hierarchy -----------------------------------------------------


def test_error_classes_refine_the_builtins() -> None:
    assert issubclass(FloatParameterError, ParameterTypeError)
    assert issubclass(FloatParameterError, TypeError)
    assert issubclass(ParameterTypeError, TypeError)
    assert issubclass(ParameterError, ValueError)
    for cls in (FloatParameterError, ParameterTypeError, ParameterError):
        assert issubclass(cls, FiniteDPError)
    assert not issubclass(ParameterError, TypeError)
    assert not issubclass(ParameterTypeError, ValueError)


# -- exact_fraction: what is accepted ----------------------------------------


@given(fractions)
def test_fraction_is_accepted_unchanged(q: Fraction) -> None:
    result = exact_fraction(q, "epsilon")
    assert result == q
    assert type(result) is Fraction


@given(big_ints)
def test_int_is_accepted_exactly(n: int) -> None:
    result = exact_fraction(n, "n")
    assert result == n
    assert type(result) is Fraction
    assert result.denominator == 1


@given(fractions)
def test_string_of_fraction_round_trips(q: Fraction) -> None:
    assert exact_fraction(str(q), "epsilon") == q


@given(fractions, st.text(alphabet=" \t\n", max_size=3), st.text(alphabet=" \t\n", max_size=3))
def test_surrounding_whitespace_is_ignored(q: Fraction, left: str, right: str) -> None:
    assert exact_fraction(f"{left}{q}{right}", "epsilon") == q


@given(st.integers(min_value=-(10**40), max_value=10**40), st.integers(0, 40))
def test_decimal_string_is_exact(mantissa: int, places: int) -> None:
    digits = str(abs(mantissa)).rjust(places + 1, "0")
    sign = "-" if mantissa < 0 else ""
    text = f"{sign}{digits[: len(digits) - places]}.{digits[len(digits) - places :]}"
    assert exact_fraction(text, "delta") == F(mantissa, 10**places)


@given(fractions)
def test_gmpy2_mpq_is_accepted_exactly(q: Fraction) -> None:
    value = gmpy2.mpq(q.numerator, q.denominator)
    result = exact_fraction(value, "epsilon")
    assert result == q
    assert type(result) is Fraction
    assert type(result.numerator) is int
    assert type(result.denominator) is int


@given(big_ints)
def test_gmpy2_mpz_is_accepted_exactly(n: int) -> None:
    result = exact_fraction(gmpy2.mpz(n), "n")
    assert result == n
    assert type(result.numerator) is int


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1/2", F(1, 2)),
        ("0.25", F(1, 4)),
        (" 3 ", F(3)),
        ("0.1", F(1, 10)),
        ("-3/6", F(-1, 2)),
        ("1e-3", F(1, 1000)),
        ("2/4", F(1, 2)),
        ("\t7/8\n", F(7, 8)),
        ("0.333333333333333333333333333333", F(333333333333333333333333333333, 10**30)),
    ],
)
def test_exact_strings(text: str, expected: Fraction) -> None:
    assert exact_fraction(text, "epsilon") == expected


def test_numpy_integers_are_accepted() -> None:
    assert exact_fraction(np.int64(-7), "n") == -7
    assert exact_fraction(np.uint8(200), "n") == 200


@pytest.mark.parametrize("text", ["", "   ", "1 / 2", "one half", "nan", "inf", "1/0", "0x10"])
def test_inexact_strings_are_refused(text: str) -> None:
    with pytest.raises(ParameterError) as info:
        exact_fraction(text, "epsilon")
    assert not isinstance(info.value, TypeError)
    assert str(info.value).startswith("epsilon: ")
    assert repr(text) in str(info.value)


# -- exact_fraction: floats --------------------------------------------------


@pytest.mark.parametrize(
    ("value", "numerator", "denominator"),
    [
        (0.1, 1, 10),
        (0.5, 1, 2),
        (2.0, 2, 1),
        (-0.25, -1, 4),
        (np.float64(0.1), 1, 10),
        (gmpy2.mpfr("0.1"), 1, 10),
        (gmpy2.mpfr("0.75"), 3, 4),
    ],
)
def test_float_is_refused_with_exact_spelling(
    value: object, numerator: int, denominator: int
) -> None:
    with pytest.raises(FloatParameterError) as info:
        exact_fraction(value, "epsilon")
    message = str(info.value)
    assert isinstance(info.value, TypeError)
    assert message.startswith("epsilon: got ")
    assert "floats break the exactness guarantee" in message
    suggestion = F(numerator, denominator)
    assert message.endswith(
        f'use Fraction({suggestion.numerator}, {suggestion.denominator}) or "{suggestion}"'
    )


def test_float_message_example_from_the_brief() -> None:
    with pytest.raises(FloatParameterError, match=r'Fraction\(1, 10\) or "1/10"'):
        exact_fraction(0.1, "gamma")


@pytest.mark.parametrize(
    "value",
    [0.5, np.float32(0.5), np.float16(0.5), np.float64(3.0), np.longdouble(0.5), gmpy2.mpfr(1)],
)
def test_every_kind_of_float_is_refused(value: object) -> None:
    with pytest.raises(FloatParameterError) as info:
        exact_fraction(value, "epsilon")
    message = str(info.value)
    assert message.startswith("epsilon: ")
    assert "floats break the exactness guarantee" in message


@pytest.mark.parametrize("value", [0.5, np.float64(0.5), np.float32(0.5), np.float16(0.5)])
def test_float_message_says_a_float(value: object) -> None:
    with pytest.raises(FloatParameterError, match=r"^epsilon: got .* \(a float(16|32|64)?\); "):
        exact_fraction(value, "epsilon")


@pytest.mark.parametrize("value", [gmpy2.mpfr("0.5"), np.longdouble(0.5)])
def test_float_message_says_a_float_for_mpfr_and_longdouble(value: object) -> None:
    with pytest.raises(FloatParameterError, match="a float"):
        exact_fraction(value, "epsilon")


@given(finite_floats)
@example(0.1)
@example(1e300)
@example(5e-324)
def test_float_suggestion_round_trips_to_the_same_float(x: float) -> None:
    with pytest.raises(FloatParameterError) as info:
        exact_fraction(x, "beta")
    fraction, text = _suggested(str(info.value))
    assert float(fraction) == x
    assert F(text) == fraction


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), np.float64("nan")])
def test_non_finite_floats_are_refused_with_generic_advice(value: object) -> None:
    with pytest.raises(FloatParameterError) as info:
        exact_fraction(value, "epsilon")
    assert str(info.value).startswith("epsilon: ")
    assert 'use an int, a Fraction or a string such as "1/2"' in str(info.value)


def test_float32_suggestion_is_the_intended_value() -> None:
    with pytest.raises(FloatParameterError, match=r'Fraction\(1, 10\) or "1/10"'):
        exact_fraction(np.float32(0.1), "epsilon")


# -- exact_fraction: other types ---------------------------------------------


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_bools_are_refused(value: object) -> None:
    with pytest.raises(ParameterTypeError) as info:
        exact_fraction(value, "epsilon")
    assert not isinstance(info.value, FloatParameterError)
    assert str(info.value).startswith("epsilon: ")


@pytest.mark.parametrize(
    "value", [None, 1j, Decimal("0.1"), [1, 2], (1, 2), b"1/2", gmpy2.mpc(1), object()]
)
def test_other_types_are_refused(value: object) -> None:
    with pytest.raises(ParameterTypeError) as info:
        exact_fraction(value, "delta")
    message = str(info.value)
    assert not isinstance(info.value, FloatParameterError)
    assert message.startswith("delta: got ")
    assert type(value).__name__ in message


# -- positive_fraction, probability ------------------------------------------


@given(fractions)
def test_positive_fraction(q: Fraction) -> None:
    if q > 0:
        assert positive_fraction(q, "epsilon") == q
    else:
        with pytest.raises(ParameterError, match=r"^epsilon: .*positive"):
            positive_fraction(q, "epsilon")


def test_positive_fraction_refuses_floats() -> None:
    with pytest.raises(FloatParameterError):
        positive_fraction(0.5, "epsilon")


@given(fractions)
def test_probability_open_interval(q: Fraction) -> None:
    if 0 < q < 1:
        assert probability(q, "beta") == q
        assert probability(str(q), "beta") == q
    else:
        with pytest.raises(ParameterError) as info:
            probability(q, "beta")
        assert str(info.value).startswith("beta: ")
        assert "(0, 1)" in str(info.value)


@given(fractions)
def test_probability_half_open_interval(q: Fraction) -> None:
    if 0 <= q < 1:
        assert probability(q, "beta", allow_zero=True) == q
    else:
        with pytest.raises(ParameterError, match=r"\[0, 1\)"):
            probability(q, "beta", allow_zero=True)


@pytest.mark.parametrize("value", [0, 1, "1", "0", F(-1, 2), F(3, 2)])
def test_probability_boundaries(value: object) -> None:
    if value in (0, "0"):
        assert probability(value, "beta", allow_zero=True) == 0
    with pytest.raises(ParameterError):
        probability(value, "beta")


def test_probability_refuses_floats() -> None:
    with pytest.raises(FloatParameterError, match=r'^beta: .*"1/2"'):
        probability(0.5, "beta")


# -- inverse_natural (BV's N^-1) ---------------------------------------------


@given(st.integers(min_value=1, max_value=10**40))
def test_inverse_natural_accepts_one_over_m(m: int) -> None:
    expected = F(1, m)
    assert inverse_natural(F(1, m), "epsilon") == expected
    assert inverse_natural(f"1/{m}", "epsilon") == expected
    assert inverse_natural(gmpy2.mpq(1, m), "epsilon") == expected
    if m >= 2:
        assert inverse_natural(F(1, m), "gamma", below_one=True) == expected
    else:
        with pytest.raises(ParameterError, match=r"^gamma: .*m >= 2"):
            inverse_natural(F(1, m), "gamma", below_one=True)


@given(st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=10**6))
def test_inverse_natural_unreduced_spelling(m: int, k: int) -> None:
    assert inverse_natural(f"{k}/{k * m}", "epsilon") == F(1, m)


@given(fractions)
def test_inverse_natural_refuses_everything_else(q: Fraction) -> None:
    if q > 0 and q.numerator == 1:
        assert inverse_natural(q, "epsilon") == q
    else:
        with pytest.raises(ParameterError, match=r"^epsilon: .*1/m"):
            inverse_natural(q, "epsilon")


@pytest.mark.parametrize("value", [F(2, 3), "2/3", 0, "-1/2", F(-1, 2), 2, "0.3"])
def test_inverse_natural_refusals(value: object) -> None:
    with pytest.raises(ParameterError) as info:
        inverse_natural(value, "epsilon")
    assert str(info.value).startswith("epsilon: ")
    assert "1/m" in str(info.value)


def test_inverse_natural_one() -> None:
    assert inverse_natural(1, "epsilon") == 1
    assert inverse_natural("1", "epsilon") == 1
    with pytest.raises(ParameterError, match="m >= 2"):
        inverse_natural(1, "gamma", below_one=True)


def test_inverse_natural_refuses_float_even_when_it_is_one_over_m() -> None:
    with pytest.raises(FloatParameterError, match=r'^epsilon: .*Fraction\(1, 2\) or "1/2"'):
        inverse_natural(0.5, "epsilon")


# -- integers: check_positive_int, check_count, check_draw --------------------


@given(st.integers(min_value=-(10**40), max_value=10**40))
def test_check_positive_int(v: int) -> None:
    if v >= 1:
        result = check_positive_int(v, "n")
        assert result == v
        assert type(result) is int
    else:
        with pytest.raises(
            ParameterError, match=r"^n: got (-?\d+|<a negative \d+-bit integer>); .*>= 1"
        ):
            check_positive_int(v, "n")


@given(st.integers(min_value=-5, max_value=60), st.integers(min_value=0, max_value=50))
def test_check_count(c: int, n: int) -> None:
    if 0 <= c <= n:
        assert check_count(c, n) == c
    else:
        with pytest.raises(ParameterError) as info:
            check_count(c, n)
        assert str(info.value) == f"c: got {c}; it must be an int in [0, {n}]"


@given(st.integers(min_value=-5, max_value=60), st.integers(min_value=1, max_value=50))
def test_check_draw(u: int, d: int) -> None:
    if 1 <= u <= d:
        assert check_draw(u, d) == u
    else:
        with pytest.raises(ParameterError) as info:
            check_draw(u, d)
        assert str(info.value) == f"u: got {u}; it must be an int in [1, d] with d = {d}"


def test_check_draw_huge_values_are_summarised() -> None:
    d = 2**200 + 1
    assert check_draw(d, d) == d
    with pytest.raises(ParameterError) as info:
        check_draw(d + 1, d)
    message = str(info.value)
    assert "<a 201-bit integer>" in message
    assert str(d) not in message


def test_check_count_names_the_parameter() -> None:
    with pytest.raises(ParameterError, match=r"^true_count: got 11; .*\[0, 10\]"):
        check_count(11, 10, "true_count")


@pytest.mark.parametrize("value", [3, gmpy2.mpz(3), np.int64(3), np.uint16(3)])
def test_integer_checks_accept_exact_integer_types(value: object) -> None:
    for result in (check_positive_int(value, "n"), check_count(value, 5), check_draw(value, 5)):
        assert result == 3
        assert type(result) is int


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (3.0, FloatParameterError),
        (np.float64(3), FloatParameterError),
        (gmpy2.mpfr(3), FloatParameterError),
        (True, ParameterTypeError),
        (F(3), ParameterTypeError),
        ("3", ParameterTypeError),
        (None, ParameterTypeError),
        (gmpy2.mpq(3, 1), ParameterTypeError),
    ],
)
def test_integer_checks_refuse_non_integers(value: object, error: type[Exception]) -> None:
    calls: list[Callable[[], int]] = [
        lambda: check_positive_int(value, "n"),
        lambda: check_count(value, 5, "c"),
        lambda: check_draw(value, 5, "u"),
    ]
    for call in calls:
        with pytest.raises(error) as info:
            call()
        assert isinstance(info.value, TypeError)
        assert re.match(r"^[ncu]: got ", str(info.value))
        if error is ParameterTypeError:
            assert not isinstance(info.value, FloatParameterError)
            assert "must be an int" in str(info.value)
        else:
            assert "floats break the exactness guarantee, use an int" in str(info.value)


def test_short_int() -> None:
    assert short_int(10**30 - 1) == str(10**30 - 1)
    assert short_int(-(10**30) + 1) == str(-(10**30) + 1)
    assert short_int(10**30) == "<a 100-bit integer>"
    assert short_int(-(2**200)) == "<a negative 201-bit integer>"
    assert short_int(0) == "0"
