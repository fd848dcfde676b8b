"""Accuracy rounding (rules 4.1.1): five significant figures, round half to even.

"Accuracy results must be reported to five significant figures with round to
even. For example, 98.9995% should be recorded as 99.000%."

* Arithmetic is ``decimal.Decimal`` with ``ROUND_HALF_EVEN`` in a private
  context (the global decimal context is never touched).
* Inputs may be ``str``, ``int``, ``float`` or ``Decimal``.  A float is taken
  through ``repr`` (its shortest round-trip text), so ``98.9995`` means the
  decimal 98.9995 and not the binary double 98.99949999999999761...; a tie in
  the text is a tie here.
* The result always carries exactly ``digits`` significant digits, trailing
  zeros included: ``99`` -> ``99.000``, ``99.9995`` -> ``100.00``, ``0`` ->
  ``0.0000`` (zero, also ``-0``, written unsigned with ``digits - 1`` decimals).
* NaN, infinities, booleans and unparsable text raise ``ValueError``.

:func:`format_sig` writes positional notation (``99.000``, ``0.0012346``)
when that shows exactly the significant digits without ambiguity, i.e. when
the decimal exponent ``e`` of the leading digit satisfies
``-7 < e < digits``.  Outside that range (``1.2345650e20``, ``1.234565e-10``)
it writes scientific notation with a ``digits``-digit mantissa
(``1.2346e+20``, ``1.2346e-10``): positional text would either need trailing
zeros that look significant or a long run of leading zeros.
"""

from __future__ import annotations

import decimal
from decimal import ROUND_HALF_EVEN, Context, Decimal

Number = str | int | float | Decimal


def _to_decimal(value: Number) -> Decimal:
    if isinstance(value, bool):
        raise ValueError(f"cannot round a boolean ({value!r}); pass a number")
    if isinstance(value, Decimal):
        d = value
    elif isinstance(value, int):
        d = Decimal(value)
    elif isinstance(value, float):
        d = Decimal(repr(value))
    elif isinstance(value, str):
        text = value.strip()
        try:
            d = Decimal(text)
        except decimal.InvalidOperation:
            raise ValueError(f"not a number: {value!r}") from None
    else:
        raise ValueError(f"cannot round a value of type {type(value).__name__}: {value!r}")
    if not d.is_finite():
        raise ValueError(f"cannot round a non-finite value ({value!r}); expected a finite number")
    return d


def _context(digits: int) -> Context:
    return Context(
        prec=digits,
        rounding=ROUND_HALF_EVEN,
        Emax=decimal.MAX_EMAX,
        Emin=decimal.MIN_EMIN,
        traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow],
    )


def round_sig(value: Number, digits: int = 5) -> Decimal:
    """Round ``value`` to ``digits`` significant figures, half to even, keeping
    trailing zeros (``round_sig("98.9995") == Decimal("99.000")``)."""
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise ValueError(f"digits must be a positive integer, got {digits!r}")
    d = _to_decimal(value)
    ctx = _context(digits)
    if d.is_zero():
        return Decimal(0).quantize(Decimal(1).scaleb(-(digits - 1)), context=ctx)  # no '-0'
    rounded = ctx.plus(d)  # applies the precision: exactly <= digits significant digits
    exponent = rounded.adjusted() - (digits - 1)
    return rounded.quantize(Decimal(1).scaleb(exponent), context=ctx)


def format_sig(value: Number, digits: int = 5) -> str:
    """Text of :func:`round_sig` with its trailing zeros: ``"99.000"``; see the
    module docstring for when scientific notation is used."""
    r = round_sig(value, digits)
    e = r.adjusted()
    if r.is_zero() or -7 < e < digits:
        return format(r, "f")
    mantissa = r.scaleb(-e)
    return f"{format(mantissa, 'f')}e{e:+03d}"
