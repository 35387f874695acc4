"""What the watcher announces about a watched project's errors: which are new and which may have regressed
since the previous look. No Qt: the watcher (console.notifications) asks the server and notifies.

Per project it keeps the newest "last seen" of the previous look (``since``), the ids already regressed or
reported, and the ids listed so far. The first look only records what is already there. Timestamps are the
server's own, so the two clocks need not agree; they may count whole seconds, so ``since`` includes the
previous look's second, and an error already listed then is not new.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

NEW = "New error"
REGRESSED = "Regressed error"


class Listed(Protocol):
    """What the watcher reads of a listed error (console.core.api.error_tracking.ErrorSummary has it)."""

    @property
    def id(self) -> str: ...

    @property
    def first_seen(self) -> str | None: ...

    @property
    def last_seen(self) -> str | None: ...


E = TypeVar("E", bound=Listed)


@dataclass
class ProjectLook:
    since: str  # the newest "last seen" of the looks so far
    known: set[str] = field(default_factory=set)  # ids whose regression is already known (announced or there)
    listed: set[str] = field(default_factory=set)  # ids listed so far


@dataclass(frozen=True)
class Candidate(Generic[E]):
    """An error with events since the previous look: new, or to be asked whether it regressed."""

    error: E
    new: bool

    @property
    def kind(self) -> str:
        return NEW if self.new else REGRESSED


def newest(errors: Iterable[Listed], since: str) -> str:
    """The newest of ``since`` and the errors' "last seen" (ISO texts of one server compare as times)."""
    return max([since, *(error.last_seen or "" for error in errors)])


class ErrorWatch:
    """The watcher's memory of each watched project between looks."""

    def __init__(self) -> None:
        self._looks: dict[str, ProjectLook] = {}

    def clear(self) -> None:
        """Forget every project: the next look at each is a first look again."""
        self._looks.clear()

    def is_first_look(self, path: str) -> bool:
        return path not in self._looks

    def look(self, path: str) -> ProjectLook | None:
        return self._looks.get(path)

    def first_look(self, path: str, listed: Sequence[Listed], regressed: Iterable[str]) -> None:
        """Record what is already there, including which errors already regressed: nothing of it is news."""
        self._looks[path] = ProjectLook(newest(listed, ""), set(regressed), {error.id for error in listed})

    def next_look(self, path: str, listed: Sequence[E], *, complete: bool = False) -> list[Candidate[E]]:
        """The errors of a later look that may be news, in the list's order; the look is recorded.

        Only errors with events since the previous look can be new or have regressed. A new error is one
        not listed before whose first event is since then; any other not yet reported is a candidate for a
        regression, which only the server can tell (:meth:`reported` once it is announced). When ``listed``
        is every unresolved error (``complete``), a known regression missing from it was resolved meanwhile:
        it is forgotten, so regressing again is news again.
        """
        previous = self._looks.get(path)
        if previous is None:
            self.first_look(path, listed, ())
            return []
        since, before = previous.since, set(previous.listed)
        previous.since = newest(listed, since)
        previous.listed = before | {error.id for error in listed}
        if complete:
            previous.known &= {error.id for error in listed}
        candidates: list[Candidate[E]] = []
        for error in listed:
            if (error.last_seen or "") < since:
                continue
            if error.id not in before and (error.first_seen or "") >= since:
                candidates.append(Candidate(error, new=True))
            elif error.id not in previous.known:
                candidates.append(Candidate(error, new=False))
        return candidates

    def reported(self, path: str, error_id: str) -> None:
        """The error's regression was announced: its later events are not news either, until it is resolved."""
        look = self._looks.get(path)
        if look is not None:
            look.known.add(error_id)
