"""What a Reporter sees on the Maintainer-only pages (settings, client keys): an explanation, not an error."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

from console.core.api.errors import Forbidden

T = TypeVar("T")
MAINTAINER_ONLY = "Only Maintainers and Owners of the project can see and change this."


async def maintainer_only(work: Coroutine[Any, Any, T]) -> T | None:
    """The result, or None when the signed-in user's role is too low (not an error worth reporting)."""
    try:
        return await work
    except Forbidden:
        return None
