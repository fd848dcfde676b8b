"""Accuracy rounding: five significant figures, half to even (rules 4.1.1)."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checker.metrics.rounding import format_sig, round_sig


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("98.9995", "99.000"),  # the rules' example
        (98.9995, "99.000"),  # float goes through repr, not its binary expansion
        (Decimal("98.9995"), "99.000"),
        (99, "99.000"),
        ("76.46", "76.460"),
        ("75.6954", "75.695"),
        ("99.9995", "100.00"),  # carry adds a digit: still five significant
        ("1.23445", "1.2344"),  # tie -> even (down)
        ("1.23455", "1.2346"),  # tie -> even (up)
        (12344.5, "12344"),
        (12345.5, "12346"),
        ("-98.9995", "-99.000"),
        ("-1.23445", "-1.2344"),
        (0, "0.0000"),
        ("-0", "0.0000"),
        (0.00123456, "0.0012346"),
        (1.234565e-10, "1.2346e-10"),
        (1.2345650e20, "1.2346e+20"),
        (123456, "1.2346e+05"),
        ("  42.0  ", "42.000"),
    ],
)
def test_format_sig_examples(value, text: str) -> None:
    assert format_sig(value) == text


def test_round_sig_returns_decimal_with_trailing_zeros() -> None:
    r = round_sig("98.9995")
    assert isinstance(r, Decimal) and str(r) == "99.000"
    assert round_sig(1.234565e-10) == Decimal("1.2346E-10")
    assert str(round_sig("2.5", digits=1)) == "2"
    assert str(round_sig("3.5", digits=1)) == "4"
    assert str(round_sig("0.000123449", digits=3)) == "0.000123"


@pytest.mark.parametrize("bad", ["nan", float("nan"), float("inf"), "-Infinity", "abc", "", "98.9%", True, None, [1]])
def test_bad_values_raise_value_error(bad) -> None:
    with pytest.raises(ValueError):
        round_sig(bad)


@pytest.mark.parametrize("digits", [0, -1, 2.5, True])
def test_bad_digits(digits) -> None:
    with pytest.raises(ValueError, match="digits"):
        round_sig("1.5", digits)


def test_global_decimal_context_untouched() -> None:
    import decimal

    before = decimal.getcontext().copy()
    round_sig("1.23456789")
    after = decimal.getcontext()
    assert (before.prec, before.rounding) == (after.prec, after.rounding)


finite = st.decimals(allow_nan=False, allow_infinity=False, min_value=-10**30, max_value=10**30)


@given(finite, st.integers(min_value=1, max_value=12))
def test_exactly_digits_significant_and_close(value: Decimal, digits: int) -> None:
    r = round_sig(value, digits)
    if r.is_zero():
        assert value.is_zero()  # a non-zero value never rounds to zero
        return
    assert len(r.as_tuple().digits) == digits
    ulp = Decimal(1).scaleb(r.adjusted() - digits + 1)
    assert abs(r - value) <= ulp / 2


@given(finite)
def test_idempotent_and_matches_quantize(value: Decimal) -> None:
    r = round_sig(value)
    assert round_sig(r) == r and str(round_sig(r)) == str(r)
    if not value.is_zero():
        q = value.quantize(Decimal(1).scaleb(value.adjusted() - 4), rounding=ROUND_HALF_EVEN)
        assert r == q  # same value (exponent may differ after a carry)


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6))
def test_float_uses_repr(value: float) -> None:
    assert round_sig(value) == round_sig(repr(value))
