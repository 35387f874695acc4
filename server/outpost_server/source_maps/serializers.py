"""Sentry's JSON for releases, release files and artifact bundles (its api/serializers/models)."""

from __future__ import annotations

import base64
import json

from outpost_model import source_maps as entities
from outpost_server.accounts.models import Project
from outpost_server.compat.gitlab_time import iso
from outpost_server.sentry_api.serializers import project_reference

from .models import ArtifactBundle, BundleFile, Release, ReleaseFile

# Sentry's SourceFileType values, as artifact bundle file lists give them.
FILE_TYPES = {"source": 1, "minified_source": 2, "source_map": 3, "indexed_ram_bundle": 4}


def release_json(release: Release, project: Project) -> entities.Release:
    return entities.Release(
        id=release.id, version=release.version, shortVersion=release.version, status="open", ref=None,
        url=release.url, data={}, dateCreated=iso(release.created_at), dateReleased=iso(release.date_released),
        firstEvent=None, lastEvent=None, newGroups=0, owner=None, commitCount=0, lastCommit=None, deployCount=0,
        lastDeploy=None, authors=[], projects=[entities.ReleaseProject(**project_reference(project), newGroups=0)])


def release_file_json(file: ReleaseFile) -> entities.ReleaseFile:
    return entities.ReleaseFile(id=str(file.id), name=file.name, dist=file.dist or None,
                                headers=json.loads(file.headers), size=file.size, sha1=file.sha1,
                                dateCreated=iso(file.created_at))


def bundle_json(bundle: ArtifactBundle) -> entities.ArtifactBundle:
    """ArtifactBundlesSerializer, plus Outpost's size and last use."""
    associations = [entities.BundleAssociation(release=bundle.release, dist=bundle.dist or None)] \
        if bundle.release else []
    return entities.ArtifactBundle(bundleId=bundle.bundle_id, associations=associations, fileCount=bundle.file_count,
                                   date=iso(bundle.created_at), dateModified=iso(bundle.created_at), size=bundle.size,
                                   lastUsed=iso(bundle.last_used_at))


def bundle_files_json(bundle: ArtifactBundle, files: list[BundleFile]) -> entities.ArtifactBundleFiles:
    """ArtifactBundleFilesSerializer."""
    return entities.ArtifactBundleFiles(
        bundleId=bundle.bundle_id, release=bundle.release or None, dist=bundle.dist or None,
        fileCount=bundle.file_count,
        files=[entities.BundleFile(id=base64.urlsafe_b64encode(file.path.encode()).decode(), filePath=file.url,
                                   fileSize=file.size, fileType=FILE_TYPES.get(file.file_type, 0),
                                   debugId=file.debug_id, sourcemap=file.sourcemap) for file in files])
