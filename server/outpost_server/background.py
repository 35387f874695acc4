"""What the background workers (pruner, rate limit, refused-origin counts) share."""

from __future__ import annotations

import asyncio


async def cancelled(task: asyncio.Task | None) -> None:
    """Cancels the task and waits until it has stopped; its cancellation is not passed on."""
    if task is None:
        return
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
