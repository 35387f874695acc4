"""Typed asynchronous client for the GitLab-compatible REST API (no Qt needed)."""

from console.api.client import ApiClient
from console.api.errors import ApiError

__all__ = ["ApiClient", "ApiError"]
