"""The ``@check`` decorator and the frozen ``Check`` record.

A check is a plain function ``(ctx, rules) -> Iterable[Finding]``. The decorator
wraps it in a ``Check`` (code, name, category, scope, docstring) and registers
nothing: each category module lists its checks in a ``CHECKS`` tuple, and
``checker.registry`` concatenates those tuples explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from checker.diagnostics import Finding, Location, Severity

SCOPES = ("root", "division", "submitter", "system", "model", "result", "round")
CATEGORIES = {
    "ST": "structure", "SY": "system", "PF": "performance", "AC": "accuracy", "MS": "measurements",
    "CP": "compliance", "PW": "power", "BW": "bandwidth", "PL": "plausibility", "TL": "tool",
    "EP": "endpoint",
}


@dataclass(frozen=True)
class Check:
    """A registered check: its code, name, scope, function and documentation."""

    code: str
    name: str
    scope: str
    func: Callable
    docstring: str  # as written (``doc``: as ``inspect.getdoc`` gives it)
    stricter: bool = False
    # ``when(ctx, rules) -> bool``: a cheap test that is false only on contexts where the check yields
    # nothing (its own first test, or an empty shared reading); the engine asks each distinct ``when`` once
    # per context and skips the checks whose test is false. None: the check runs on every context.
    when: Callable | None = None

    @property
    def category(self) -> str:
        return CATEGORIES[self.code[:2]]

    @property
    def doc(self) -> str:
        """The documentation, its indentation removed (``inspect.cleandoc``, imported when a command shows it)."""
        from inspect import cleandoc

        return cleandoc(self.docstring)

    @property
    def summary(self) -> str:
        doc = self.doc.strip()  # (cleaned once: ``doc`` is computed on every read)
        return doc.splitlines()[0] if doc else self.name

    def run(self, ctx, rules) -> Iterable[Finding]:
        return self.func(ctx, rules) or ()


def check(code: str, name: str, scope: str, stricter: bool = False, when: Callable | None = None
          ) -> Callable[[Callable], Check]:
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}")
    if code[:2] not in CATEGORIES or len(code) != 5 or not code[2:].isdigit():
        raise ValueError(f"bad check code {code!r}")

    def wrap(func: Callable) -> Check:
        return Check(code=code, name=name, scope=scope, func=func, docstring=func.__doc__ or "",
                     stricter=stricter, when=when)

    return wrap


def has_power(ctx, rules) -> bool:
    """``when`` of the PW result checks: the result has a power measurement (``performance/power``)."""
    return ctx.power is not None


def is_endpoint(ctx, rules) -> bool:
    """``when`` of the EP checks: an endpoint result (no LoadGen logs)."""
    return getattr(ctx, "endpoint", None) is not None


def finding(path: str, message: str, expected=None, actual=None, hint=None, line=None, pointer=None,
            result_id: str | None = None, **data) -> Finding:
    """Shorthand used by checks: the message is prefixed with the path. ``result_id`` is only for
    checks of scope "round", which must say which result a finding belongs to."""
    # (made field by field as the frozen dataclasses' __init__ would, without a setattr call per field; the engine
    # stamps a copy of it the same way)
    location = object.__new__(Location)
    location.__dict__.update(path=path, line=line, pointer=pointer)
    out = object.__new__(Finding)
    out.__dict__.update(message=f"{path}: {message}", location=location,
                        expected=None if expected is None else str(expected),
                        actual=None if actual is None else str(actual), hint=hint, code="", severity=_ERROR,
                        result_id=result_id, waived=None, data=tuple(sorted(data.items())) if data else (),
                        scope="", invalidates=True)
    return out


_ERROR = Severity.ERROR  # (Finding's default severity)


def strict_log_problems(rel, log):
    """Lines LoadGen never writes (v6.0+: the official parser stops at them, rounds-v6.md 4-L L8, L10)."""
    if log.undecodable:
        yield finding(rel, "the log holds bytes that are not UTF-8", expected="UTF-8 text as LoadGen writes it",
                      actual="undecodable bytes", hint="copy the log exactly as LoadGen wrote it")
    if log.foreign_lines:
        first = log.foreign_lines[0]
        yield finding(rel, f"{len(log.foreign_lines)} line(s) are not LoadGen log lines (first: line {first})",
                      line=first, expected="every line starts with :::MLLOG", actual=f"line {first}",
                      hint="copy the log exactly as LoadGen wrote it")
