"""The operation protocol without Qt: what an operation's owner offers, the stamps that make a late answer
stale, and the worker-thread step of a coroutine.

The operation itself, :class:`console.operations.Op`, is on the view side: it tells the window (busy, status
line, message bar). What is here is what plain modules need to take part: the API client and the local server
use :func:`blocking` and :func:`helper_task`, pages hold a :class:`Token` per kind of request.

This module imports neither Qt nor asyncio at load time: the first frame is painted without asyncio.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")


class Stamp(NamedTuple):
    """One request of a kind; see :class:`Token`."""

    token: Token
    number: int

    @property
    def current(self) -> bool:
        """True while no newer request of the kind has started."""
        return self.number == self.token.number


class Token:
    """Numbers the requests of one kind; an answer counts only while no newer request has started."""

    def __init__(self) -> None:
        self.number = 0

    def advance(self) -> Stamp:
        """Start a new request (making every earlier stamp stale) and return its stamp."""
        self.number += 1
        return Stamp(self, self.number)

    def stamp(self) -> Stamp:
        """The stamp of the newest request."""
        return Stamp(self, self.number)


@runtime_checkable
class ShowsFailures(Protocol):
    """An owner with a message bar (console.message_bar): its operations' failures stay there."""

    def show_failure(self, action: str, text: str) -> None: ...

    def clear_failure(self, action: str) -> None: ...


async def blocking(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """One blocking step of a coroutine (a file, the keyring), run in a worker thread."""
    import asyncio
    import functools

    return await asyncio.get_running_loop().run_in_executor(None, functools.partial(fn, *args, **kwargs))


def start_task(work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """The one place a coroutine becomes a task: an operation's work (Op.run) or a :func:`helper_task`."""
    import asyncio

    return asyncio.ensure_future(work)


def helper_task(work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """A coroutine an operation leaves running beside it, awaited by that operation's owner later (a child
    process's output reader). It is not an operation: nobody is told about it."""
    return start_task(work)


def usable_loop() -> asyncio.AbstractEventLoop | None:
    """The running loop when it can still run operations from inside a Qt callback, else None."""
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return None if loop.is_closed() else loop


def inside_a_task(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether the caller runs inside one of ``loop``'s tasks (it cannot wait there for other tasks)."""
    import asyncio

    return asyncio.current_task(loop) is not None
