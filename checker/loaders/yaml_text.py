"""YAML reading for the data files (rules, hardware tables, audit specs) and user waivers.

PyYAML's C loader (libyaml, shipped in its wheels) reads the round files about ten times faster
than the pure-Python one; both build the same safe subset of Python objects. The pure-Python
loader is the fallback where libyaml is missing.
"""

from __future__ import annotations

import yaml

try:
    _LOADER = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _LOADER = yaml.SafeLoader


def safe_load(stream):
    """``yaml.safe_load`` with the fastest safe loader available."""
    return yaml.load(stream, Loader=_LOADER)
