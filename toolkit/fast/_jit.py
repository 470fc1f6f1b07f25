"""numba's ``njit`` as the compiled kernels use it: cached on disk wherever numba can cache.

numba caches beside the module, or in the user's cache folder when that is not writable or the
module comes from a zip (the package shipped to Spark executors: compiled once per executor,
loaded by its other Python workers). Stamps are content hashes (numba >= 0.68), so a cache
outlives a reinstall of the same source. Where numba has no cache locator for the file (an
older numba importing the zip), the kernel is compiled per process instead of failing at import.
"""
from __future__ import annotations

from typing import Any, Callable

import numba


def njit_cached(fn: Callable[..., Any]) -> Any:
    """``numba.njit(cache=True, nogil=True)(fn)``, without the cache where numba cannot keep one."""
    try:
        return numba.njit(cache=True, nogil=True)(fn)
    except RuntimeError:  # "cannot cache function ...: no locator available for file ..."
        return numba.njit(nogil=True)(fn)
