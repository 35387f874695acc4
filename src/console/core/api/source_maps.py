"""A project's source maps on an Outpost server, through Sentry's web API (``/api/0``): its artifact bundles
(``files/artifact-bundles/``, each bundle's ``files/``) and its releases with their release files.

Answers become the console's records here, so the page never reads Sentry's JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from console.core.api.client import ApiClient
from console.core.api.sentry_events import sentry_project_path

# Sentry's SourceFileType numbers in a bundle's file list.
FILE_TYPES = {1: "source", 2: "minified source", 3: "source map", 4: "RAM bundle"}


@dataclass(frozen=True)
class StoredFile:
    name: str
    kind: str
    size: int
    debug_id: str | None = None
    # A release file's id (deleting one needs it); None for a bundle's file.
    id: str | None = None


@dataclass(frozen=True)
class Bundle:
    bundle_id: str
    release: str | None
    dist: str | None
    size: int
    uploaded: str | None
    last_used: str | None
    files: tuple[StoredFile, ...]


@dataclass(frozen=True)
class ReleaseArtifacts:
    version: str
    created: str | None
    files: tuple[StoredFile, ...]


class SourceMapsApi:
    def __init__(self, client: ApiClient, project_path: str) -> None:
        self.client = client
        self._project = sentry_project_path(project_path)

    @property
    def available(self) -> bool:
        return self.client.server is not None and self.client.server.is_outpost

    async def _get(self, path: str) -> Any:
        return (await self.client.sentry_request(self._project + path)).json()

    async def bundles(self) -> list[Bundle]:
        found = []
        for body in await self._get("files/artifact-bundles/"):
            bundle_id = str(body.get("bundleId"))
            listing = await self._get(f"artifact-bundles/{quote(bundle_id, safe='')}/files/")
            files = tuple(StoredFile(name=str(file.get("filePath")), kind=FILE_TYPES.get(file.get("fileType"), "file"),
                                     size=int(file.get("fileSize") or 0), debug_id=file.get("debugId"))
                          for file in listing.get("files") or [])
            association = (body.get("associations") or [{}])[0]
            found.append(Bundle(bundle_id=bundle_id, release=association.get("release"), dist=association.get("dist"),
                                size=int(body.get("size") or 0), uploaded=body.get("date"),
                                last_used=body.get("lastUsed"), files=files))
        return found

    async def releases(self) -> list[ReleaseArtifacts]:
        found = []
        for body in await self._get("releases/"):
            version = str(body.get("version"))
            files = tuple(StoredFile(name=str(file.get("name")), kind="release file", size=int(file.get("size") or 0),
                                     debug_id=(file.get("headers") or {}).get("debug-id"), id=str(file.get("id")))
                          for file in await self._get(f"releases/{quote(version, safe='')}/files/"))
            found.append(ReleaseArtifacts(version=version, created=body.get("dateCreated"), files=files))
        return found

    async def delete_bundle(self, bundle_id: str) -> None:
        await self.client.sentry_request(self._project + "files/artifact-bundles/", params={"bundleId": bundle_id},
                                         method="DELETE")

    async def delete_release_file(self, version: str, file_id: str) -> None:
        await self.client.sentry_request(
            self._project + f"releases/{quote(version, safe='')}/files/{quote(file_id, safe='')}/", method="DELETE")
