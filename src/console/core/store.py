"""The console's one copy of what the server said, which every view renders from; no Qt here.

Every answer the console gets (a list, a detail, the watcher's poll, the answer to a Resolve) is written
here, keyed by kind (a :class:`Kind`, declared once beside the code that writes it), project (its path, or
``""`` for instance-wide things) and id. A kind names the type of its values, so what is read of it has that
type and mypy refuses a write of anything else. Writing a value equal to the one held changes nothing and
tells nobody; writing a different one tells every listener which ids of which kind and project changed, so a
list row and an open detail showing the same error are both told and cannot disagree. Listeners are plain
callables (a view's slot), called on the thread that writes, which in the console is the event loop's.

Everything held belongs to one connection: :meth:`Store.begin` (called when the connection changes) drops
it all and tells every listener, so nothing from an earlier server, user or demo data shows again.

The pattern is that of evented models: state in a plain object, a change event per write that changed
something, and views that only render and subscribe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, NamedTuple, TypeVar

T = TypeVar("T")


class Kind(Generic[T]):
    """One kind of value the store holds, each of type ``T``: declared once as a module constant, e.g.
    ``SUMMARY: Kind[ErrorSummary] = Kind("error")``. Kinds are told apart by identity, never by name (the name
    is for people reading a change), so two modules cannot share a kind by accident."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Kind({self.name!r})"


EVERYTHING: Kind[object] = Kind("*")  # the kind of the change :meth:`Store.begin` announces


class Change(NamedTuple):
    """Which values changed: ``ids`` of ``kind`` in ``project`` (kind :data:`EVERYTHING`: everything was
    dropped)."""

    kind: Kind[Any]
    project: str
    ids: frozenset[str]

    def touches(self, kind: Kind[Any], project: str | None = None, item: str | None = None) -> bool:
        """Whether a view showing ``item`` of ``kind`` in ``project`` (None: any) must render again."""
        if self.kind is EVERYTHING:
            return True
        return self.kind is kind and (project is None or self.project == project) and (
            item is None or item in self.ids)


Listener = Callable[[Change], object]


class Store:
    """Values by (kind, project, id) for the current connection, and who to tell when they change."""

    def __init__(self) -> None:
        # Each kind's values are of its own type; the methods below, typed by the kind, keep it so.
        self._values: dict[tuple[Kind[Any], str], dict[str, Any]] = {}
        self._listeners: list[Listener] = []
        self.scope: str | None = None  # the connection whose values are held

    # listening ----------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with each :class:`Change`; returns the function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def subscribe_view(self, view: Any, listener: Listener) -> None:
        """Call ``listener`` for as long as ``view`` (a QObject, with its ``destroyed`` signal) exists: a deleted
        window's views are told nothing more."""
        stop = self.subscribe(listener)
        view.destroyed.connect(lambda *_: stop())

    def _tell(self, change: Change) -> None:
        for listener in list(self._listeners):
            listener(change)

    # the connection -----------------------------------------------------------------------------
    def begin(self, scope: str | None) -> None:
        """Hold values for the connection ``scope`` (None: none) from now on; drops everything held."""
        self.scope = scope
        self._values.clear()
        self._tell(Change(EVERYTHING, "", frozenset()))

    # reading ------------------------------------------------------------------------------------
    def get(self, kind: Kind[T], project: str, item: str) -> T | None:
        held: T | None = self._values.get((kind, project), {}).get(item)
        return held

    def items(self, kind: Kind[T], project: str) -> dict[str, T]:
        """Every value of ``kind`` held for ``project``, by id."""
        return dict(self._values.get((kind, project), {}))

    # writing ------------------------------------------------------------------------------------
    def put(self, kind: Kind[T], project: str, item: str, value: T) -> bool:
        """Hold ``value``; True (and listeners told) when it differs from what was held."""
        return bool(self.put_many(kind, project, {item: value}))

    def put_many(self, kind: Kind[T], project: str, values: Mapping[str, T]) -> frozenset[str]:
        """Hold several values with one change told; returns the ids whose value changed."""
        held = self._values.setdefault((kind, project), {})
        changed = frozenset(item for item, value in values.items() if held.get(item) != value)
        for item in changed:
            held[item] = values[item]
        if changed:
            self._tell(Change(kind, project, changed))
        return changed

    def remove(self, kind: Kind[Any], project: str, items: Iterable[str]) -> None:
        """Forget values the server no longer has (a deleted variable, an export gone)."""
        held = self._values.get((kind, project), {})
        gone = frozenset(item for item in items if held.pop(item, None) is not None)
        if gone:
            self._tell(Change(kind, project, gone))

    def replace_all(self, kind: Kind[T], project: str, values: Mapping[str, T]) -> None:
        """What a full list says: these values, and no others, of ``kind`` in ``project``."""
        self.remove(kind, project, set(self.items(kind, project)) - set(values))
        self.put_many(kind, project, values)
