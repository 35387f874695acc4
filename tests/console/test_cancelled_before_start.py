"""A task cancelled before its first step leaves no coroutine behind unawaited.

httpx connects through anyio, which runs each connection attempt as a task of its own. From anyio 4.14 a
task's coroutine runs inside a wrapper that awaits it only once the wrapper starts; cancelled before that
(the GUI tests' teardown cancels every task a test left, the console's quit cancels its operations), the
attempt's coroutine was dropped unawaited and Python warned "coroutine 'connect_tcp.<locals>.try_connect'
was never awaited" at the next collection. constraints.txt keeps anyio before that change.
"""

import asyncio
import gc
import warnings

import anyio


async def _attempt() -> None:
    await asyncio.sleep(1)


async def _connects() -> None:
    async with anyio.create_task_group() as group:
        group.start_soon(_attempt)
        await anyio.sleep(1)


async def _cancel_everything_once_scheduled() -> None:
    connecting = asyncio.get_running_loop().create_task(_connects())
    await asyncio.sleep(0)  # the group has scheduled its attempt; the attempt has not run yet
    for task in asyncio.all_tasks():
        if task is not asyncio.current_task():
            task.cancel()
    try:
        await connecting
    except asyncio.CancelledError:
        pass


def test_an_attempt_cancelled_before_it_ran_is_not_left_unawaited():
    with warnings.catch_warnings(record=True) as caught:
        # Only the unawaited-coroutine warning: a socket another test on this worker left to the collector
        # would otherwise be reported here as an unclosed socket (a ResourceWarning, off in the suite).
        warnings.simplefilter("always", RuntimeWarning)
        asyncio.run(_cancel_everything_once_scheduled())
        gc.collect()
    assert [str(warning.message) for warning in caught if warning.category is RuntimeWarning] == []
