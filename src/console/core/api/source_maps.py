"""A project's source maps on an Outpost server, through Sentry's web API (``/api/0``): its artifact bundles
(``files/artifact-bundles/``, each bundle's ``files/``) and its releases with their release files.

Answers are read into outpost_model's entities (a bundle or a release beside its files), so the page never
reads Sentry's JSON.
"""

from __future__ import annotations

from typing import NamedTuple, TypeVar
from urllib.parse import quote

from console.core.api.client import ApiClient
from console.core.api.sentry_events import sentry_project_path
from outpost_model import decode
from outpost_model.source_maps import ArtifactBundle, ArtifactBundleFiles, BundleFile, Release, ReleaseFile

E = TypeVar("E")

# Sentry's SourceFileType numbers in a bundle's file list.
FILE_TYPES = {1: "source", 2: "minified source", 3: "source map", 4: "RAM bundle"}


class BundleListing(NamedTuple):
    """An artifact bundle and its files, as two answers say them."""

    bundle: ArtifactBundle
    files: list[BundleFile]


class ReleaseListing(NamedTuple):
    """A release and its release files, as two answers say them."""

    release: Release
    files: list[ReleaseFile]


def file_kind(file: BundleFile) -> str:
    return FILE_TYPES.get(file.fileType, "file")


def bundle_release(bundle: ArtifactBundle) -> tuple[str | None, str | None]:
    """The (release, dist) the bundle was uploaded for; (None, None) when it has no association."""
    first = bundle.associations[0] if bundle.associations else None
    return (first.release, first.dist) if first is not None else (None, None)


def release_file_debug_id(file: ReleaseFile) -> str | None:
    """The debug id sentry-cli stored among the file's headers (``debug-id``), when it did."""
    value = file.headers.get("debug-id")
    return str(value) if value else None


class SourceMapsApi:
    def __init__(self, client: ApiClient, project_path: str) -> None:
        self.client = client
        self._project = sentry_project_path(project_path)

    @property
    def available(self) -> bool:
        return self.client.server is not None and self.client.server.is_outpost

    async def _get(self, path: str, kind: type[E]) -> E:
        return decode((await self.client.sentry_request(self._project + path)).content, kind)

    async def bundles(self) -> list[BundleListing]:
        found = []
        for bundle in await self._get("files/artifact-bundles/", list[ArtifactBundle]):
            listing = await self._get(f"artifact-bundles/{quote(bundle.bundleId, safe='')}/files/",
                                      ArtifactBundleFiles)
            found.append(BundleListing(bundle, listing.files))
        return found

    async def releases(self) -> list[ReleaseListing]:
        found = []
        for release in await self._get("releases/", list[Release]):
            files = await self._get(f"releases/{quote(release.version, safe='')}/files/", list[ReleaseFile])
            found.append(ReleaseListing(release, files))
        return found

    async def delete_bundle(self, bundle_id: str) -> None:
        await self.client.sentry_request(self._project + "files/artifact-bundles/", params={"bundleId": bundle_id},
                                         method="DELETE")

    async def delete_release_file(self, version: str, file_id: str) -> None:
        await self.client.sentry_request(
            self._project + f"releases/{quote(version, safe='')}/files/{quote(file_id, safe='')}/", method="DELETE")
