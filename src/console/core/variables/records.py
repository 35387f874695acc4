"""How the instance variables are held in the console's store (console.core.store); no Qt here.

The variables tab's table and the overview's count both read them there. Whatever reads them from the server
writes them in: the tab's load, a save, a delete, an import, the overview's count.
"""

from __future__ import annotations

from collections.abc import Iterable

from console.core.api.variables import Variable
from console.core.store import Kind, Store

KIND: Kind[Variable] = Kind("variable")
INSTANCE = ""  # instance variables belong to no project


def held(store: Store) -> list[Variable]:
    return list(store.items(KIND, INSTANCE).values())


def variable(store: Store, key: str) -> Variable | None:
    return store.get(KIND, INSTANCE, key)


def write_all(store: Store, variables: Iterable[Variable]) -> None:
    """What a full list says: these variables and no others."""
    store.replace_all(KIND, INSTANCE, {item.key: item for item in variables})


def write(store: Store, saved: Variable) -> None:
    store.put(KIND, INSTANCE, saved.key, saved)


def forget(store: Store, key: str) -> None:
    store.remove(KIND, INSTANCE, [key])
