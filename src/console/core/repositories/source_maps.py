"""A project's uploaded source maps (artifact bundles and releases with their files), as the server last said
them; no Qt here.

The Source maps page reads, deletes and renders through :class:`SourceMapsRepository`; a deletion is followed by
a read of what is left (the server decides what a deleted bundle took with it), and the page shown again reads
once more when what it holds is no longer fresh.
"""

from __future__ import annotations

from typing import NamedTuple

from console.core.api.source_maps import BundleListing, ReleaseListing, SourceMapsApi
from console.core.repositories.base import Repository
from console.core.store import Kind

ALL = ""  # the store's id of a project's one value


class SourceMaps(NamedTuple):
    bundles: tuple[BundleListing, ...]
    releases: tuple[ReleaseListing, ...]

    @property
    def empty(self) -> bool:
        return not self.bundles and not any(listing.files for listing in self.releases)


SOURCE_MAPS: Kind[SourceMaps] = Kind("source_maps")


class SourceMapsRepository(Repository):
    kind = SOURCE_MAPS

    def held(self, project: str) -> SourceMaps | None:
        """What the project has uploaded; None when not read on this connection."""
        return self.store.get(SOURCE_MAPS, project, ALL)

    async def fetch(self, api: SourceMapsApi, project: str) -> SourceMaps:
        current = self.scope_guard()
        found = SourceMaps(tuple(await api.bundles()), tuple(await api.releases()))
        if current():
            self.store.put(SOURCE_MAPS, project, ALL, found)
            self.read_now(project)
        return found

    async def delete_bundle(self, api: SourceMapsApi, project: str, bundle_id: str) -> SourceMaps:
        await api.delete_bundle(bundle_id)
        return await self.fetch(api, project)

    async def delete_release_file(self, api: SourceMapsApi, project: str, version: str, file_id: str) -> SourceMaps:
        await api.delete_release_file(version, file_id)
        return await self.fetch(api, project)
