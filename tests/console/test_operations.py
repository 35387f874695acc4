"""console.operations.Op: the one way to run background work (busy, status line, failures, late answers)."""

from __future__ import annotations

import asyncio
import threading

import pytest
import shiboken6
from PySide6.QtWidgets import QWidget

from console.core.api.errors import ConnectionFailed, NotFound
from console.core.operations import Token
from console.operations import Op

WAIT = 10_000


def test_success_status_and_busy(qtbot, qloop_running, context):
    said: list[str] = []
    busy: list[bool] = []
    context.status_message.connect(said.append)
    context.busy.connect(busy.append)
    results: list[int] = []

    async def work() -> int:
        return 42

    op = Op(context, work(), description="Counting").success(results.append).run()
    qtbot.waitUntil(op.done, timeout=WAIT)
    assert results == [42] and said == ["Counting…", "Counting: done"] and busy == [True, False]


def test_a_line_said_while_working_is_not_replaced_by_done(qtbot, qloop_running, context):
    said: list[str] = []
    context.status_message.connect(said.append)

    async def work() -> None:
        context.say("Exported 3 variables")

    op = Op(context, work(), description="Exporting").run()
    qtbot.waitUntil(op.done, timeout=WAIT)
    assert said == ["Exporting…", "Exported 3 variables"]


def test_a_stale_answer_is_dropped(qtbot, qloop_running, context):
    searches = Token()
    shown: list[str] = []
    release = asyncio.Event()

    async def answer(text: str) -> str:
        await release.wait()
        return text

    first = Op(context, answer("first"), description="Searching").success(shown.append).stale_when(
        searches.advance()).run()
    second = Op(context, answer("second"), description="Searching").success(shown.append).stale_when(searches).run()
    searches.advance()  # a third search supersedes both; a token passed as is counts from then on
    third = Op(context, answer("third"), description="Searching").success(shown.append).stale_when(searches).run()
    release.set()
    qtbot.waitUntil(lambda: first.done() and second.done() and third.done(), timeout=WAIT)
    assert shown == ["third"]


@pytest.mark.expected_log(r"WARNING console\.context Loading the project failed: Not found \(404\)")
def test_expected_failures_are_reported_or_handed_to_the_failure_handler(qtbot, qloop_running, context):
    reported: list[tuple[str, str]] = []
    context.error_reported.connect(lambda title, message: reported.append((title, message)))
    handled: list[Exception] = []

    async def missing() -> None:
        raise NotFound(status=404, detail="404 Project Not Found")

    reporting = Op(context, missing(), description="Loading the project").run()
    handling = Op(context, missing(), description="Loading the project").failure(handled.append).run()
    qtbot.waitUntil(lambda: reporting.done() and handling.done(), timeout=WAIT)
    assert [title for title, _message in reported] == ["Loading the project failed"]
    assert [type(failure) for failure in handled] == [NotFound]


class _Tab:
    """A tab as the operations see it (WorkOwner, ShowsFailures): its connection and its message bar."""

    def __init__(self, context) -> None:
        self.context = context
        self.connection = Token()
        self.shown: list[str] = []

    def admit(self, work):
        return work

    def show_failure(self, action: str, text: str) -> None:
        self.shown.append(text)

    def clear_failure(self, action: str) -> None:
        pass


def test_a_failure_of_work_for_a_connection_that_has_gone_is_dropped(qtbot, qloop_running, context):
    reported: list[str] = []
    context.error_reported.connect(lambda title, message: reported.append(title))
    tab = _Tab(context)
    cut = asyncio.Event()

    async def searching() -> None:
        await cut.wait()
        raise ConnectionFailed(detail="closed")

    search = Op(tab, searching(), description="Searching projects").run()
    qtbot.wait(50)
    tab.connection.advance()  # a disconnect, which cuts the search's request
    cut.set()
    qtbot.waitUntil(search.done, timeout=WAIT)
    assert (reported, tab.shown) == ([], [])


def test_blocking_work_runs_in_a_worker_thread(qtbot, qloop_running, context):
    threads: list[threading.Thread] = []

    def read() -> str:
        threads.append(threading.current_thread())
        return "contents"

    results: list[str] = []
    op = Op.in_thread(context, read, description="Reading").success(results.append).run()
    qtbot.waitUntil(op.done, timeout=WAIT)
    assert results == ["contents"] and threads[0] is not threading.main_thread()


def test_quiet_work_neither_talks_nor_marks_the_window_busy(qtbot, qloop_running, context):
    said: list[str] = []
    busy: list[bool] = []
    context.status_message.connect(said.append)
    context.busy.connect(busy.append)

    async def work() -> None:
        return None

    op = Op(context, work(), description="Watching", quiet=True).run()
    qtbot.waitUntil(op.done, timeout=WAIT)
    assert said == [] and busy == []


def test_cancelling_says_so(qtbot, qloop_running, context):
    said: list[str] = []
    context.status_message.connect(said.append)
    op = Op(context, asyncio.sleep(3600), description="Waiting").run()
    qtbot.waitUntil(lambda: "Waiting…" in said, timeout=WAIT)
    op.cancel()
    qtbot.waitUntil(op.done, timeout=WAIT)
    assert op.cancelled() and said[-1] == "Waiting: cancelled"


class _WidgetTab(QWidget):
    """A tab that is a widget, as the real ones are: its window may be closed while its work runs."""

    def __init__(self, context) -> None:
        super().__init__()
        self.context = context
        self.connection = Token()

    def admit(self, work):
        return work


def test_an_answer_for_a_tab_deleted_meanwhile_is_dropped(qtbot, qloop_running, context):
    tab = _WidgetTab(context)
    shown: list[str] = []
    answer = asyncio.Event()

    async def loading() -> str:
        await answer.wait()
        return "projects"

    load = Op(tab, loading(), description="Loading projects").success(shown.append).run()
    qtbot.wait(50)
    shiboken6.delete(tab)  # the window closed, and the tab with it
    answer.set()
    qtbot.waitUntil(load.done, timeout=WAIT)
    assert shown == []


class _ExplainingTab(_Tab):
    """A tab that wraps its work to explain failures, as the real tabs do (console.tab.Tab.explain)."""

    def admit(self, work):
        async def explained():
            return await work
        return explained()


def test_work_cancelled_before_it_runs_is_closed_inside_the_tab_s_wrapper(qtbot, qloop_running, context):
    """A watch cancelled at once (a disconnect right after it was asked for) must leave no coroutine that is
    never awaited: Python warns of one only when it is collected, at some later, unrelated line."""
    async def watching() -> None:
        await asyncio.sleep(3600)

    work = watching()
    op = Op(_ExplainingTab(context), work, description="Checking export 1", quiet=True).run()
    op.cancel()  # before the loop ever ran it
    qtbot.waitUntil(op.done, timeout=WAIT)
    assert work.cr_frame is None  # closed (a coroutine left open keeps its frame until collected)
