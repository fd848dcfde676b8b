"""The regularized incomplete beta function ``I_x(a, b)`` for whole ``a, b >= 1``: the binomial tail that
LoadGen's early stopping compares with ``1 - confidence`` (pure maths, no IO, standard library only).

``I_x(a, b)`` is the probability that ``Binomial(a + b - 1, x)`` is at least ``a``. It is the continued
fraction of Numerical Recipes (section 6.4, evaluated with the modified Lentz method) times its prefactor
``x^a (1-x)^b / (a B(a, b))``, which for whole ``a, b`` equals ``(1 - x) * P(Binomial(a + b - 1, x) = a)``.
That binomial probability is computed in Loader's saddle-point form (C. Loader, "Fast and accurate
computation of binomial probabilities", 2000: Stirling-series remainders and the deviance ``bd0``), which
keeps about 15 significant digits for counts of 10^8, where ``lgamma(a + b) - lgamma(a) - lgamma(b)``
keeps about 7. Early stopping decides ``odds < 0.01`` with this value, so the digits matter: an error of
1e-7 would flip about one search in a hundred at such counts.
"""

from __future__ import annotations

import math

_LN_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_LN_2PI = math.log(2.0 * math.pi)
_S0, _S1, _S2, _S3, _S4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188
_TINY = 1e-300
_EPS = 1e-16
_MAX_STEPS = 1_000_000


def _stirling_error(n: int) -> float:
    """``ln(n!) - ln(sqrt(2 pi n) (n / e)^n)`` for a whole ``n >= 1``."""
    if n <= 15:
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - _LN_SQRT_2PI
    nn = float(n) * n
    if n > 500:
        return (_S0 - _S1 / nn) / n
    if n > 80:
        return (_S0 - (_S1 - _S2 / nn) / nn) / n
    if n > 35:
        return (_S0 - (_S1 - (_S2 - _S3 / nn) / nn) / nn) / n
    return (_S0 - (_S1 - (_S2 - (_S3 - _S4 / nn) / nn) / nn) / nn) / n


def _deviance(k: float, mean: float) -> float:
    """``k ln(k / mean) + mean - k``, without the cancellation of that formula when ``k`` is near ``mean``."""
    if abs(k - mean) < 0.1 * (k + mean):
        v = (k - mean) / (k + mean)
        total = (k - mean) * v
        term = 2.0 * k * v
        v *= v
        for j in range(1, 1000):
            term *= v
            following = total + term / (2 * j + 1)
            if following == total:
                return following
            total = following
        return total
    return k * math.log(k / mean) + mean - k


def binomial_pmf(k: int, n: int, p: float) -> float:
    """``P(Binomial(n, p) = k)`` for whole ``0 <= k <= n`` and ``0 < p < 1``."""
    q = 1.0 - p
    if k == 0:
        return math.exp(-_deviance(n, n * q) - n * p if p < 0.1 else n * math.log(q))
    if k == n:
        return math.exp(-_deviance(n, n * p) - n * q if q < 0.1 else n * math.log(p))
    exponent = (_stirling_error(n) - _stirling_error(k) - _stirling_error(n - k)
                - _deviance(k, n * p) - _deviance(n - k, n * q))
    return math.exp(exponent - 0.5 * (_LN_2PI + math.log(k) + math.log1p(-k / n)))


def _continued_fraction(a: int, b: int, x: float) -> float:
    """The continued fraction of ``I_x(a, b)`` (modified Lentz); it converges fast for ``x < (a+1)/(a+b+2)``."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = _TINY
    d = 1.0 / d
    h = d
    for m in range(1, _MAX_STEPS):
        m2 = 2 * m
        c, d = _lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), c, d)  # the even term
        h *= d * c
        c, d = _lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), c, d)  # the odd term
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            break
    return h


def _lentz_step(aa: float, c: float, d: float) -> tuple[float, float]:
    """The next ``(C, 1/D)`` of the modified Lentz recurrence for a term ``aa``, kept away from zero."""
    d = 1.0 + aa * d
    if abs(d) < _TINY:
        d = _TINY
    c = 1.0 + aa / c
    if abs(c) < _TINY:
        c = _TINY
    return c, 1.0 / d


def regularized_beta(a: int, b: int, x: float) -> float:
    """``I_x(a, b)`` for whole ``a >= 0``, ``b >= 1`` and ``0 <= x <= 1`` (``I_x(0, b) = 1``)."""
    if a <= 0 or x >= 1.0:
        return 1.0
    if x <= 0.0:
        return 0.0
    n = a + b - 1
    if x < (a + 1.0) / (a + b + 2.0):
        return (1.0 - x) * binomial_pmf(a, n, x) * _continued_fraction(a, b, x)
    return 1.0 - x * binomial_pmf(b, n, 1.0 - x) * _continued_fraction(b, a, 1.0 - x)
