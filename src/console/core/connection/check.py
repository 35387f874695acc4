"""The "Test connection" check: who am I, and which server is this?"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from console.core.api.client import ApiClient
from console.core.api.errors import ApiError, NotFound
from console.core.api.server import ServerInfo

WRONG_URL = (
    "{url} answered, but it does not look like a GitLab-compatible server (no API under /api/v4). "
    "Check the server address."
)


@dataclass(frozen=True)
class ConnectionReport:
    ok: bool
    message: str
    user: dict[str, Any] | None = None
    version: dict[str, Any] | None = None


def describe_user(user: dict[str, Any]) -> str:
    name = user.get("name") or user.get("username", "?")
    role = "administrator" if user.get("is_admin") else "user"
    return f"{name} (@{user.get('username', '?')}, {role})"


async def check_connection(base_url: str, token: str) -> ConnectionReport:
    """Call ``GET /user`` and ``GET /version``; explain any failure in plain words."""
    try:
        async with ApiClient(base_url, token) as client:
            user = await client.get_user()
            version = await client.get_version()
    except NotFound as exc:
        return ConnectionReport(False, WRONG_URL.format(url=exc.url or base_url))
    except ApiError as exc:
        return ConnectionReport(False, exc.message)
    product = ServerInfo(version=version).product
    message = f"Signed in as {describe_user(user)} on server version {version.get('version', 'unknown')} ({product})."
    return ConnectionReport(True, message, user, version)
