"""Typed asynchronous client for the GitLab-compatible REST API (no Qt needed)."""

from typing import Any

from console.core.api.errors import ApiError

__all__ = ["ApiClient", "ApiError"]


def __getattr__(name: str) -> Any:
    # The client (and httpx under it) is imported when first asked for: the console's first screen
    # needs neither, so start-up does not pay for them.
    if name == "ApiClient":
        from console.core.api.client import ApiClient

        return ApiClient
    raise AttributeError(name)
