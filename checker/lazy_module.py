"""Standard-library modules a check imports only because another module names them, loaded when first used.

``dataclasses`` imports ``inspect`` (with ``ast``, ``dis``, ``tokenize`` and ``linecache``: about 8 ms, a
twelfth of what starting a check costs) for one call, ``inspect.signature``, made only for a dataclass without
a docstring (every dataclass of the checker has one). :func:`defer` puts a stand-in for such a module in
``sys.modules``: the first attribute read from it imports the real module, which then takes its place there,
and the stand-in answers from the real module's namespace from then on. A program that imports ``checker`` as a
library keeps its modules as they are: only the command line defers (``checker.cli_process``).
"""

from __future__ import annotations

import sys
from types import ModuleType


class _Deferred(ModuleType):
    """Stands in ``sys.modules`` for a module not imported yet; imports it on the first attribute read."""

    def __getattr__(self, attr: str):
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        real = __import__(name)
        for part in name.split(".")[1:]:
            real = getattr(real, part)
        vars(self).update(vars(real))  # (what the ones that imported the stand-in read from now on)
        return getattr(real, attr)


def defer(*names: str) -> None:
    """Put a stand-in for each of ``names`` not imported yet in ``sys.modules`` (see the module's text)."""
    for name in names:
        if name not in sys.modules:
            sys.modules[name] = _Deferred(name)
