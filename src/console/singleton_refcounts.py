"""Keep CPython 3.11 alive under PySide6 6.12's reference leaks on singletons.

PySide6 6.12's stable-ABI wheels hand back ``None`` from void methods (``setText``,
``show``, ``processEvents``...), and in some paths ``True``/``False``, without taking a
new reference. On Python 3.12+ these objects are immortal and nothing happens; on 3.11
every such call drops one reference until CPython aborts with "Fatal Python error:
none_dealloc: deallocating None" (or bool_dealloc), typically after a few thousand calls.
Raising their reference counts far out of reach keeps the process alive; the guard does
nothing on interpreters where these objects are immortal.
"""

from __future__ import annotations

import ctypes
import sys

# About 10**12 calls' worth of head room.
RESERVE = 2**40


def protect_singletons() -> None:
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return
    for singleton in (None, True, False):
        # In CPython's object layout the reference count is the first field of every object.
        refcount = ctypes.c_ssize_t.from_address(id(singleton))
        if refcount.value < RESERVE:
            refcount.value += RESERVE
