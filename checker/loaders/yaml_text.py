"""YAML reading for the data files (rules, hardware tables, audit specs) and user waivers.

PyYAML's C loader (libyaml, shipped in its wheels) reads the round files about ten times faster
than the pure-Python one; both build the same safe subset of Python objects. The pure-Python
loader is the fallback where libyaml is missing.

PyYAML (10-20 ms to import) is imported when a YAML text is first parsed: a check of an unchanged install
reads its data files from ``checker.loaders.data_cache`` and parses none. ``yaml_text.YAMLError`` is
``yaml.YAMLError``, imported when first asked for: an ``except`` clause naming it asks only when an
exception is being handled.
"""

from __future__ import annotations

_LOADER = None


def safe_load(stream):
    """``yaml.safe_load`` with the fastest safe loader available."""
    global _LOADER
    import yaml

    if _LOADER is None:
        _LOADER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader  # (PyYAML built without libyaml)
    return yaml.load(stream, Loader=_LOADER)


def __getattr__(name: str):
    if name == "YAMLError":
        import yaml

        return yaml.YAMLError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
