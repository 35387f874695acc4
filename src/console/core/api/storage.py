"""What error tracking stores on the server: the instance's totals and each project's share
(`GET /error_tracking/storage`, administrators; an Outpost extension, so a GitLab answers 404).

No Qt here: the overview's Storage box and the error tracking tab's Storage page show these texts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from console.core.api.client import ApiClient
from console.core.api.errors import NotFound

NOT_AVAILABLE = ("Error tracking storage figures are not available on this server: GitLab has no API for them. "
                 "Outpost servers show them to administrators.")
# How the server measured the size on disk (the `disk_basis` it answers).
BASES = {"pg_total_relation_size": "PostgreSQL's table sizes", "dbstat": "SQLite's page counts"}
TOP_PROJECTS = 5


def human_bytes(count: int) -> str:
    size = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size)} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{count} bytes"


def disk_text(disk_bytes: int, basis: str) -> str:
    """"about 1.2 MiB on disk (estimated from PostgreSQL's table sizes)"."""
    return f"about {human_bytes(disk_bytes)} on disk (estimated from {BASES.get(basis, basis)})"


@dataclass(frozen=True)
class Stored:
    """What one project (`path`) or the whole instance (no path) stores."""

    path: str
    events: int
    payload_bytes: int
    disk_bytes: int

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> Stored:
        return cls(str(body.get("path_with_namespace") or body.get("project_id") or ""), int(body.get("events") or 0),
                   int(body.get("payload_bytes") or 0), int(body.get("disk_bytes") or 0))


@dataclass(frozen=True)
class InstanceStorage:
    projects: list[Stored]
    total: Stored
    basis: str

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> InstanceStorage:
        return cls([Stored.from_json(row) for row in body.get("projects") or []], Stored.from_json(body),
                   str(body.get("disk_basis") or ""))

    def describe(self) -> str:
        """The overview's paragraph: the totals, then the projects storing the most."""
        if not self.projects:
            return "Error tracking stores no events on this server."
        count, total = len(self.projects), self.total
        text = (f"Error tracking stores {total.events:,} events in {count:,} project{'s' if count != 1 else ''}: "
                f"{human_bytes(total.payload_bytes)} of payloads, {disk_text(total.disk_bytes, self.basis)}.")
        top = "; ".join(f"{row.path} {row.events:,} events, {human_bytes(row.disk_bytes)}"
                        for row in self.projects[:TOP_PROJECTS])
        return f"{text} Most events: {top}."


async def instance_storage(client: ApiClient) -> InstanceStorage | str:
    """The figures, or NOT_AVAILABLE from a server without them."""
    try:
        return InstanceStorage.from_json(await client.get_json("/error_tracking/storage"))
    except NotFound:
        return NOT_AVAILABLE
