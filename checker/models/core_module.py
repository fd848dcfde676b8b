"""pydantic-core's compiled module (``SchemaValidator``, ``ValidationError``), loaded without its package.

A check validates system descriptions with ``pydantic_core.SchemaValidator`` (``checker.models.system_core``)
and uses nothing else of pydantic. Importing the ``pydantic_core`` package first runs its ``core_schema``
module, whose ~80 ``TypedDict`` classes compile ~600 annotations: about 12 ms of every check's start-up, before
its workers can start. :data:`core` is the package's compiled extension module itself, loaded from the
package's folder under its own name (``pydantic_core._pydantic_core``), so that a later ``import pydantic_core``
(pydantic's, say) finds it and holds the very same classes; that import is then given the module as its
attribute too (:class:`_Attach`). Where the extension cannot be found or loaded this way, or the package is
imported already, :data:`core` is the package's module, imported as usual.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys

_PACKAGE = "pydantic_core"
_NAME = "pydantic_core._pydantic_core"


class _Attach:
    """A one-time finder: lets ``pydantic_core`` be imported as usual, then sets the compiled module, loaded before
    the package, as its ``_pydantic_core`` attribute (the import system sets it only for a module it loads)."""

    def find_spec(self, name, path=None, target=None):
        if name != _PACKAGE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _AttachingLoader(spec.loader)
        return spec


class _AttachingLoader:
    def __init__(self, loader) -> None:
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        compiled = sys.modules.get(_NAME)
        if compiled is not None and not hasattr(module, "_pydantic_core"):
            module._pydantic_core = compiled

    def __getattr__(self, name: str):  # (what else the import system asks the loader, as the package's own)
        return getattr(self.loader, name)


def _extension_path() -> str | None:
    spec = importlib.util.find_spec(_PACKAGE)
    for folder in (spec.submodule_search_locations or ()) if spec is not None else ():
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "_pydantic_core" + suffix)
            if os.path.isfile(path):
                return path
    return None


def _load():
    loaded = sys.modules.get(_NAME)
    if loaded is not None:
        return loaded
    if _PACKAGE not in sys.modules:
        try:
            path = _extension_path()
            if path is not None:
                loader = importlib.machinery.ExtensionFileLoader(_NAME, path)
                spec = importlib.util.spec_from_file_location(_NAME, path, loader=loader)
                module = importlib.util.module_from_spec(spec)
                loader.exec_module(module)
                sys.modules[_NAME] = module
                sys.meta_path.insert(0, _Attach())
                return module
        except Exception:  # noqa: BLE001 - imported the usual way below
            sys.modules.pop(_NAME, None)
    import pydantic_core._pydantic_core as module

    return module


core = _load()
SchemaValidator = core.SchemaValidator
ValidationError = core.ValidationError
