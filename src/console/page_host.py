"""What a page inside a tab is given: the protocol between a tab and the pages it holds.

A page (the Errors list, the Alerts editor, the exports' scope picker) does not know the tab that holds it.
It receives a host that offers exactly what pages use: the application's context, the typed API of the
connection, the connection's stamp and the work admission that :class:`console.operations.Op` needs, and,
for the pages of a project, the chosen project with the token that advances when the choice changes. A test
can hand a page any object with these few members.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from console.context import AppContext
    from console.core.operations import Token
    from outpost_model.projects import Project

ApiT_co = TypeVar("ApiT_co", covariant=True)
T = TypeVar("T")


class PageHost(Protocol[ApiT_co]):
    """A tab as its pages see it; it also owns their operations (console.operations.WorkOwner)."""

    @property
    def context(self) -> AppContext: ...

    @property
    def connection(self) -> Token:
        """Advances on every connection change: an answer from an earlier connection is stale."""
        ...

    @property
    def api(self) -> ApiT_co:
        """The tab's API bound to the current connection (raises NotConnected without one)."""
        ...

    def admit(self, work: Coroutine[Any, Any, T]) -> Coroutine[Any, Any, T] | None: ...


class ProjectHost(PageHost[ApiT_co], Protocol[ApiT_co]):
    """The host of pages about one project, chosen in the tab."""

    @property
    def project(self) -> Project | None:
        """The chosen project (one of console.core.repositories.projects'), or None before one is chosen."""
        ...

    @property
    def project_choice(self) -> Token:
        """Advances whenever another project is chosen: what the pages asked about the previous one is stale."""
        ...


def project_path(host: ProjectHost[Any]) -> str | None:
    """The chosen project's path, by which the repositories (console.core.repositories) hold its values; None
    before a project is chosen."""
    project = host.project
    return None if project is None else project.path_with_namespace
