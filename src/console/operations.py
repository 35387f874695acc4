"""The console's one way to run work in the background, so every piece of work behaves the same.

An operation is built, described, then run::

    Op(tab, tab.api.projects(), description="Loading projects").success(show).stale_when(request).run()
    Op.in_thread(tab, history.load, description="Reading the export history").success(show).run()

- **Where it runs.** A coroutine runs on the event loop; :meth:`Op.in_thread` runs blocking work (files, the
  keyring) in a worker thread and hands its result back on the loop. Inside a coroutine,
  :func:`console.core.operations.blocking` does the same for one step. Nothing else in the console starts
  tasks or threads: :func:`console.core.operations.helper_task` is for the rare coroutine an operation leaves
  running beside it (a child process's output reader).
- **What the user sees.** The window is busy while the operation runs and the status bar says
  "Loading projects…"; afterwards it says "Loading projects: done", unless something more telling was said
  meanwhile through :meth:`AppContext.say` (the one way to talk in the status bar). ``quiet`` operations
  (background polls) neither mark the window busy nor talk: what they find is shown, or announced as news.
- **Failures.** An API or local-server failure is handed to the :meth:`Op.failure` handler or reported:
  in the owner's message bar when it has one (:class:`~console.core.operations.ShowsFailures`, a tab), where
  it stays until dismissed or the same operation runs again, else in the window's; anything else is a bug
  and goes to the application's exception hook.
- **Late answers.** A :class:`~console.core.operations.Token` numbers the requests of one kind;
  :meth:`Op.stale_when` drops the success handler of an answer whose request has been superseded (its
  failure is still reported: the user asked).
  Work owned by a tab is also stale once the connection it was started on has changed, and then its failure
  is dropped too (a disconnect cuts the request); it is refused while there is no connection at all.

This is the operation's view side: it tells the window and checks that the owning widget still exists. Its
plain half, which the API client and the pages use without Qt, is console.core.operations. The window's first
frame is painted without this module (it loads asyncio and the HTTP client's errors): Op is imported once that
frame is up.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine, Generator
from typing import Any, Generic, Protocol, TypeVar

from PySide6.QtCore import QEventLoop, QTimer
from shiboken6 import isValid

from console.context import AppContext
from console.core.api.errors import ApiError, readable
from console.core.connection.local_server import LocalServerError
from console.core.messages import Kind
from console.core.operations import ShowsFailures, Stamp, Token, blocking, start_task

T = TypeVar("T")


class WorkOwner(Protocol):
    """A tab that owns operations: it needs a connection, and an answer from an old connection is stale."""

    @property
    def context(self) -> AppContext: ...

    @property
    def connection(self) -> Token: ...

    def admit(self, work: Coroutine[Any, Any, T]) -> Coroutine[Any, Any, T] | None:
        """``work`` as the tab runs it (it may explain failures better), or None when it cannot run now."""
        ...


class Op(Generic[T]):
    """One piece of background work; see the module's documentation."""

    def __init__(self, owner: AppContext | WorkOwner, work: Coroutine[Any, Any, T], *, description: str,
                 quiet: bool = False) -> None:
        self.description = description
        self.quiet = quiet
        self._given = work
        self._work: Coroutine[Any, Any, T] | None = work
        self._on_success: Callable[[T], object] | None = None
        self._on_failure: Callable[[Exception], object] | None = None
        self._stamps: list[Stamp] = []
        self._connection: Stamp | None = None
        self._task: asyncio.Task[None] | None = None
        self._failures = owner if isinstance(owner, ShowsFailures) else None
        self._owner = owner
        if isinstance(owner, AppContext):
            self.context = owner
        else:
            self.context = owner.context
            self._connection = owner.connection.stamp()
            self._stamps.append(self._connection)
            self._work = owner.admit(work)

    @classmethod
    def in_thread(cls, owner: AppContext | WorkOwner, fn: Callable[..., T], *args: Any, description: str,
                  quiet: bool = False) -> Op[T]:
        """An operation running the blocking ``fn(*args)`` in a worker thread."""
        return cls(owner, blocking(fn, *args), description=description, quiet=quiet)

    # building ----------------------------------------------------------------------------------
    def success(self, handler: Callable[[T], object]) -> Op[T]:
        """Call ``handler`` with the result, on the loop, unless the answer is stale by then."""
        self._on_success = handler
        return self

    def failure(self, handler: Callable[[Exception], object]) -> Op[T]:
        """Hand expected failures (the API's, the local server's) to ``handler`` instead of reporting them."""
        self._on_failure = handler
        return self

    def stale_when(self, *kinds: Token | Stamp) -> Op[T]:
        """The answer is stale once any of these has moved on: a token past its stamp at this call, a stamp
        no longer current."""
        self._stamps.extend(kind.stamp() if isinstance(kind, Token) else kind for kind in kinds)
        return self

    def run(self) -> Op[T]:
        """Start the work; an owner that cannot run it now (no connection) gets an operation that is done."""
        if self._task is not None:
            raise RuntimeError(f"{self.description}: already started")
        work = self._work
        if work is None:
            return self
        given = self._given
        task = self._task = start_task(self._guarded(work))
        self.context.track(task)

        def finished(task: asyncio.Task[None]) -> None:
            # Cancelled before it ever ran (e.g. on disconnect): close the work so it is not left unawaited,
            # and the work as given too, which the owner's wrapper (admit) would have awaited.
            if task.cancelled():
                work.close()
                given.close()

        task.add_done_callback(finished)
        return self

    # running -----------------------------------------------------------------------------------
    @property
    def started(self) -> bool:
        return self._task is not None

    @property
    def is_stale(self) -> bool:
        return not all(stamp.current for stamp in self._stamps)

    def _owner_deleted(self) -> bool:
        """A tab whose window was closed meanwhile: its widgets are gone, so there is nothing to show the answer on."""
        if self._connection is None:  # the context's own work: the context lives as long as the console
            return False
        return not isValid(self._owner)

    def done(self) -> bool:
        """True once it has finished, failed or been cancelled, and for an operation that never started."""
        return self._task is None or self._task.done()

    def cancelled(self) -> bool:
        return self._task is not None and self._task.cancelled()

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
        elif self._work is not None:
            self._work.close()

    def when_done(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once the operation is over, however it ended (at once if it never started)."""
        if self._task is None:
            callback()
        else:
            self._task.add_done_callback(lambda _task: callback())

    def wait(self, timeout: float) -> bool:
        """From a Qt callback that must not return before the work is over (a window closing): process events
        until the operation is done or ``timeout`` seconds have passed; True when it is done."""
        if not self.done():
            waiter = QEventLoop()
            self.when_done(waiter.quit)
            QTimer.singleShot(int(timeout * 1000), waiter.quit)
            if not self.done():
                waiter.exec()
        return self.done()

    def __await__(self) -> Generator[Any, None, None]:
        if self._task is not None:
            yield from self._task.__await__()

    async def _guarded(self, work: Coroutine[Any, Any, T]) -> None:
        context = self.context
        if self._failures is not None:
            self._failures.clear_failure(self.description)  # tried again: the earlier failure no longer stands
        if not self.quiet:
            context.set_busy(+1)
            context.say(f"{self.description}…", Kind.PROGRESS, routine=True)
        said_before = context.messages_said
        try:
            result = await work
            if self._on_success is not None and not self.is_stale and not self._owner_deleted():
                self._on_success(result)
        except asyncio.CancelledError:
            if not self.quiet:
                context.say(f"{self.description}: cancelled", routine=True)
            raise
        except (ApiError, LocalServerError) as exc:
            if self._connection is not None and not self._connection.current:
                pass  # the connection it was for has gone (a disconnect cut the request): no news to the user
            elif self._on_failure is not None:
                self._on_failure(exc)
            else:
                text = readable(exc)
                if self._failures is not None:
                    self._failures.show_failure(self.description, f"{self.description} failed: {text}")
                context.report_error(f"{self.description} failed", text, shown_in_place=self._failures is not None)
        except Exception:
            # Anything else is a bug: the application exception hook shows it with the traceback.
            sys.excepthook(*sys.exc_info())
        else:
            if not self.quiet and context.messages_said == said_before:  # keep a more telling message
                context.say(f"{self.description}: done", routine=True)
        finally:
            if not self.quiet:
                context.set_busy(-1)
