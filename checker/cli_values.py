"""Command-line values without pydantic at start-up. typer 0.29 turns every parameter's text into its
Python value through a pydantic ``TypeAdapter``, built when the command line is parsed, so that any
command with a text or number option imported pydantic and built adapters first (about 0.15 s, a third
of a warm re-check). :func:`light_values` gives the parameters of a command a coercion that takes the
plain cases itself, exactly as the adapter would (text as given, a whole number in range, an enum's
value, an unset option) and hands every other value to typer's own coercion, built on first use, so
that its messages for a bad value stay the same."""

from __future__ import annotations

from enum import Enum


class _Light:
    """A parameter's coercion (typer's ``RuntimeParam`` interface: ``coerce(value, param, ctx)``)."""

    def __init__(self, descriptor) -> None:
        self.descriptor = descriptor
        self.full = None

    def coerce(self, value, param, ctx):
        if value is None and not (param.multiple or param.nargs == -1):
            return None
        plain = self._plain(value, param)
        if plain is not None:
            return plain[0]
        if self.full is None:
            from typer._coercion import build_runtime_param

            self.full = build_runtime_param(self.descriptor)
        return self.full.coerce(value, param=param, ctx=ctx)

    def _plain(self, value, param) -> tuple | None:
        """``(value,)`` when the value is a plain case, else None."""
        if param.multiple or param.nargs != 1:
            return None
        annotation, info = self.descriptor.annotation, self.descriptor.parameter_info
        if annotation is str:
            return (value,) if type(value) is str else None
        if annotation is bool:
            return (value,) if type(value) is bool else None
        if annotation is int:
            if type(value) is str and value.isascii() and value.isdigit():
                value = int(value)
            if type(value) is not int or getattr(info, "clamp", False):
                return None
            low, high = getattr(info, "min", None), getattr(info, "max", None)
            if (low is not None and value < low) or (high is not None and value > high):
                return None  # typer says why
            return (value,)
        if isinstance(annotation, type) and issubclass(annotation, Enum) and info.case_sensitive:
            if isinstance(value, annotation):
                return (value,)
            if type(value) is str:
                member = next((m for m in annotation if m.value == value), None)
                return (member,) if member is not None else None
        return None


def light_values(params) -> None:
    """Give each typer parameter in ``params`` the light coercion (parameters typer did not make, or whose
    coercion is already built, are left alone)."""
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is not None and getattr(param, "_runtime_param", ...) is None and descriptor.file_annotation is None:
            param._runtime_param = _Light(descriptor)
