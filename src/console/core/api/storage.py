"""What error tracking stores on the server: the instance's totals and each project's share
(`GET /error_tracking/storage`, administrators; an Outpost extension, so a GitLab answers 404).

No Qt here: the overview's Storage box and the error tracking tab's Storage page show these texts.
"""

from __future__ import annotations

from console.core.api.client import ApiClient
from console.core.api.errors import NotFound
from outpost_model.retention import Storage

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


def describe_storage(storage: Storage) -> str:
    """The overview's paragraph: the totals, then the projects storing the most (in the server's order)."""
    if not storage.projects:
        return "Error tracking stores no events on this server."
    count = len(storage.projects)
    text = (f"Error tracking stores {storage.events:,} events in {count:,} project{'s' if count != 1 else ''}: "
            f"{human_bytes(storage.payload_bytes)} of payloads, {disk_text(storage.disk_bytes, storage.disk_basis)}.")
    top = "; ".join(f"{row.path_with_namespace} {row.events:,} events, {human_bytes(row.disk_bytes)}"
                    for row in storage.projects[:TOP_PROJECTS])
    return f"{text} Most events: {top}."


async def instance_storage(client: ApiClient) -> Storage | str:
    """The figures, or NOT_AVAILABLE from a server without them."""
    try:
        return await client.get_as(Storage, "/error_tracking/storage")
    except NotFound:
        return NOT_AVAILABLE
