"""The "Test connection" check: who am I, and which server is this?"""

from __future__ import annotations

from dataclasses import dataclass

from console.core.api.client import ApiClient
from console.core.api.errors import ApiError, NotFound
from console.core.api.server import ServerInfo
from outpost_model.accounts import User
from outpost_model.instance import Version

WRONG_URL = (
    "{url} answered, but it does not look like a GitLab-compatible server (no API under /api/v4). "
    "Check the server address."
)


@dataclass(frozen=True)
class ConnectionReport:
    ok: bool
    message: str
    user: User | None = None
    version: Version | None = None


def describe_user(user: User) -> str:
    """"Ada Lovelace (@ada, administrator)"; GitLab says ``is_admin`` only to administrators."""
    role = "administrator" if user.is_admin is True else "user"
    return f"{user.name or user.username} (@{user.username}, {role})"


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
    message = f"Signed in as {describe_user(user)} on server version {version.version} ({product})."
    return ConnectionReport(True, message, user, version)
