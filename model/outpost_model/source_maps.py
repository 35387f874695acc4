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


class ChunkUploadOptions(Entity):
    """What GET chunk-upload/ tells sentry-cli about uploading (Sentry's ChunkUploadEndpoint)."""

    url: str
    chunkSize: int
    chunksPerRequest: int
    maxFileSize: int
    maxRequestSize: int
    concurrency: int
    hashAlgorithm: str
    compression: list[str]
    # The upload kinds accepted, e.g. "artifact_bundles".
    accept: list[str]


# kw_only again (msgspec does not inherit it), so the optional `detail` keeps Sentry's place.
class AssembleState(Entity, kw_only=True):
    """An assemble request's answer (artifact bundles and release files alike)."""

    # Sentry's ChunkFileState: "not_found", "created", "assembling", "ok" or "error".
    state: str
    # Once the state is known: null, or why assembling failed.
    detail: Text | UnsetType = UNSET
    # The chunks the server lacks, to upload before asking again.
    missingChunks: list[str]
