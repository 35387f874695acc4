"""Vulnerability exports API: request an export (or a project's archive export), poll it, download it
(streamed); scope pickers."""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from console.core.api.client import ApiClient
from console.core.api.errors import ExportAlreadyRunning, RateLimited, error_from_response, error_from_transport
from console.core.operations import blocking
from outpost_model import decode
from outpost_model.accounts import Group
from outpost_model.exports import ArchiveExport, Export
from outpost_model.projects import Project

DEFAULT_POLL_SECONDS = 5.0
DEVELOPER_ACCESS = 30
PREVIEW_BYTES = 8 * 1024 * 1024
EXPORTS = "/security/vulnerability_exports"
ARCHIVE_EXPORTS = "/security/vulnerability_archive_exports"
# How the 429 sentence names each scope (console.core.api.errors.ExportAlreadyRunning).
RUNNING_SCOPE = {"project": "this project", "group": "this group", "instance": "the instance (all your projects)"}


@dataclass(frozen=True)
class ExportScope:
    """What an export covers: a project, a group, or every project the user may export (instance)."""

    kind: str  # "project", "group" or "instance"
    id: int | None = None
    label: str = "Instance (all my projects)"

    @property
    def create_path(self) -> str:
        if self.kind == "project":
            return f"/security/projects/{self.id}/vulnerability_exports"
        if self.kind == "group":
            return f"/security/groups/{self.id}/vulnerability_exports"
        return "/security/vulnerability_exports"


@dataclass(frozen=True)
class ExportState:
    """One answer of GET /security/vulnerability_exports/:id (or of an archive export's)."""

    body: Export | ArchiveExport
    poll_seconds: float | None  # set while the export is still being produced (202)

    @property
    def status(self) -> str:
        return self.body.status


class DownloadCancelled(Exception):
    """The user cancelled a download; the partial file was removed."""


class ExportsApi:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def create(self, scope: ExportScope, options: dict[str, Any] | None = None) -> Export:
        """``options``: GitLab 18's create parameters (export_format, send_email, filters); none: a plain CSV."""
        return decode(await self._create(scope.create_path, options or None, scope.kind), Export)

    async def create_archive(self, project_id: int, start: dt.date, end: dt.date) -> ArchiveExport:
        """A project's archive export of the vulnerabilities of ``start`` to ``end`` (both days included)."""
        body = {"start_date": start.isoformat(), "end_date": end.isoformat(), "export_format": "csv"}
        path = f"/security/projects/{project_id}/vulnerability_archive_exports"
        return decode(await self._create(path, body, "project"), ArchiveExport)

    async def _create(self, path: str, body: dict[str, Any] | None, scope_kind: str) -> bytes:
        try:
            response = await self.client.request("POST", path, json=body)
        except RateLimited as limited:
            if limited.retry_after is not None:  # a throttle, which says when to come back
                raise
            # GitLab answers 429 while the user's previous export of the same scope is unfinished.
            raise ExportAlreadyRunning(scope=RUNNING_SCOPE[scope_kind], status=limited.status, body=limited.body,
                                       url=limited.url) from limited
        return response.content

    async def state(self, export_id: int, *, archive: bool = False) -> ExportState:
        response = await self.client.request("GET", f"{ARCHIVE_EXPORTS if archive else EXPORTS}/{export_id}")
        poll = None
        if response.status_code == 202:
            try:
                poll = int(response.headers.get("Poll-Interval", "")) / 1000
            except ValueError:
                poll = DEFAULT_POLL_SECONDS
        body: Export | ArchiveExport = decode(response.content, ArchiveExport) if archive else decode(
            response.content, Export)
        return ExportState(body, poll)

    # Exports need Developer access; GitLab narrows the lists to that with min_access_level.
    # search_namespaces: "acme/web" finds acme/webshop, as the picker's "name or path" promises.
    async def search_projects(self, text: str) -> list[Project]:
        response = await self.client.request("GET", "/projects", params={
            "search": text, "search_namespaces": True, "per_page": 20, "order_by": "name", "sort": "asc",
            "min_access_level": DEVELOPER_ACCESS})
        return decode(response.content, list[Project])

    async def search_groups(self, text: str) -> list[Group]:
        response = await self.client.request("GET", "/groups", params={
            "search": text, "per_page": 20, "min_access_level": DEVELOPER_ACCESS})
        return decode(response.content, list[Group])

    async def download(self, export_id: int, target: Path, *,
                       progress: Callable[[int, int | None], None] = lambda done, total: None,
                       cancelled: Callable[[], bool] = lambda: False, archive: bool = False) -> int:
        """Streams the file into ``target`` (through a .part file); returns the number of bytes."""
        partial = target.with_name(target.name + ".part")
        handle = await blocking(partial.open, "wb")
        done = 0
        try:
            async with self._stream(export_id, archive=archive) as response:
                total = int(response.headers["Content-Length"]) if "Content-Length" in response.headers else None
                progress(0, total)
                async for chunk in response.aiter_bytes(256 * 1024):
                    if cancelled():
                        raise DownloadCancelled
                    await blocking(handle.write, chunk)
                    done += len(chunk)
                    progress(done, total)
            await blocking(handle.close)
            await blocking(partial.replace, target)
        except BaseException:
            await blocking(handle.close)
            await blocking(partial.unlink, missing_ok=True)
            raise
        return done

    async def preview(self, export_id: int, *,
                      limit_bytes: int = PREVIEW_BYTES) -> tuple[list[str], list[list[str]], bool]:
        """Header and rows of the CSV, read up to ``limit_bytes``; the flag says whether it was cut short."""
        received = bytearray()
        truncated = False
        async with self._stream(export_id) as response:
            async for chunk in response.aiter_bytes():
                received += chunk
                if len(received) >= limit_bytes:
                    truncated = True
                    break
        text = received.decode("utf-8", errors="replace")
        if truncated:
            text = text[: text.rfind("\n") + 1]  # drop the incomplete last line
        rows = list(csv.reader(io.StringIO(text, newline="")))
        return (rows[0] if rows else []), rows[1:], truncated

    def _stream(self, export_id: int, *, archive: bool = False):
        return _StreamedDownload(self.client, f"{ARCHIVE_EXPORTS if archive else EXPORTS}/{export_id}/download")


class _StreamedDownload:
    """``async with``: an open streamed GET whose errors become ApiError subclasses."""

    def __init__(self, client: ApiClient, path: str) -> None:
        self.client = client
        self.path = path
        self._context: AbstractAsyncContextManager[httpx.Response] | None = None

    async def __aenter__(self) -> httpx.Response:
        # ApiClient has no streaming call; this uses its connection pool and headers directly.
        self._context = context = self.client._http.stream("GET", self.path, timeout=httpx.Timeout(60, read=300))
        try:
            response = await context.__aenter__()
        except (httpx.TransportError, httpx.InvalidURL) as exc:
            raise error_from_transport(exc, url=self.client.base_url) from exc
        if response.is_error:
            await response.aread()
            await context.__aexit__(None, None, None)
            raise error_from_response(response, url=self.client.base_url)
        return response

    async def __aexit__(self, *exc_info) -> None:
        if self._context is not None:
            await self._context.__aexit__(*exc_info)
