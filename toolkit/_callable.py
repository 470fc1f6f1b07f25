"""Modules that are also functions: ``toolkit.replay``, ``toolkit.sweep``, ``toolkit.report``.

The public API calls ``toolkit.replay(log, ...)`` while ``toolkit.replay`` is also a module
(and ``toolkit.sweep`` a package with ``toolkit.sweep.frontier`` ...). Once such a module is
imported, Python binds the module itself to the parent's attribute, hiding the function of
the same name; making the module callable keeps both spellings working.
"""
from __future__ import annotations

import sys
import types


def make_module_callable(module_name: str, function_name: str) -> None:
    """Make ``sys.modules[module_name](...)`` call its attribute ``function_name``."""
    module = sys.modules[module_name]

    class CallableModule(types.ModuleType):
        def __call__(self, *args, **kwargs):
            return getattr(self, function_name)(*args, **kwargs)

        def __repr__(self) -> str:
            return f"<module {module_name!r}, callable as {module_name}.{function_name}()>"

    CallableModule.__call__.__doc__ = getattr(module, function_name).__doc__
    module.__class__ = CallableModule
