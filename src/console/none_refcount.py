"""Keep CPython 3.11 alive under PySide6 6.12's None reference leak.

PySide6 6.12's stable-ABI wheels give back ``None`` from void methods (``setText``,
``show``, ``processEvents``...) without taking a new reference. On Python 3.12+ ``None``
is immortal and nothing happens; on 3.11 every such call drops one reference until
CPython aborts with "Fatal Python error: none_dealloc: deallocating None", typically
after a few thousand calls. Raising None's reference count far out of reach keeps the
process alive; the guard does nothing on interpreters where None is immortal.
"""

from __future__ import annotations

import ctypes
import sys

# About 10**12 calls' worth of head room.
RESERVE = 2**40


def protect_none() -> None:
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return
    # In CPython's object layout the reference count is the first field of every object.
    refcount = ctypes.c_ssize_t.from_address(id(None))
    if refcount.value < RESERVE:
        refcount.value += RESERVE
