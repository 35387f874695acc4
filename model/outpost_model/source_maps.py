"""Sentry's JSON for releases, release files and artifact bundles, as /api/0 renders them for sentry-cli and
the console's Source maps page (Sentry's api/serializers/models)."""

from __future__ import annotations

from typing import Any

from outpost_model.base import UNSET, Entity, Text, Time, UnsetType


class ReleaseProject(Entity):
    id: str
    name: str
    slug: str
    platform: Text
    newGroups: int


class Release(Entity):
    id: int
    version: str
    shortVersion: str
    status: str
    ref: Text
    url: Text
    data: dict[str, Any]
    dateCreated: Time
    dateReleased: Time
    firstEvent: Time
    lastEvent: Time
    newGroups: int
    owner: Any
    commitCount: int
    lastCommit: dict[str, Any] | None
    deployCount: int
    lastDeploy: dict[str, Any] | None
    authors: list[Any]
    projects: list[ReleaseProject]


class ReleaseFile(Entity):
    id: str
    name: str
    dist: Text
    headers: dict[str, Any]
    size: int
    sha1: str
    dateCreated: Time


class BundleAssociation(Entity):
    release: str
    dist: Text


class ArtifactBundle(Entity):
    """ArtifactBundlesSerializer, with Outpost's size and last use."""

    bundleId: str
    associations: list[BundleAssociation]
    fileCount: int
    date: Time
    dateModified: Time
    size: int | UnsetType = UNSET
    lastUsed: Time | UnsetType = UNSET


class BundleFile(Entity):
    # The file's path in the bundle, URL-safe base64.
    id: str
    filePath: Text
    fileSize: int
    # Sentry's SourceFileType: 1 source, 2 minified source, 3 source map, 4 indexed RAM bundle, 0 other.
    fileType: int
    debugId: Text
    sourcemap: Text


class ArtifactBundleFiles(Entity):
    """ArtifactBundleFilesSerializer."""

    bundleId: str
    release: Text
    dist: Text
    fileCount: int
    files: list[BundleFile]
