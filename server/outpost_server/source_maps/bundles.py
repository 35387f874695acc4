"""Artifact bundles: storing an assembled bundle for its projects, listing, deleting, usage and pruning.

As Sentry's ArtifactBundlePostAssembler: the request's release and dist win over the manifest's, the
bundle id is the manifest's debug_id (else derived from the checksum), an empty bundle is discarded,
and a bundle with neither debug ids nor a release is refused. Re-uploading a bundle id replaces it.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Sequence
from typing import BinaryIO

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.db import utcnow

from .archive import Bundle, BundleTooLarge, ExpansionLimits, InvalidBundle, read_bundle
from .models import ArtifactBundle, BundleFile, ReleaseFile
from .uploads import AssembleError, bundle_id_from_checksum

# Bundles deleted per pruning transaction.
BATCH = 500
# The longest release and dist names kept (Sentry's Release.version and Distribution.name columns).
MAX_RELEASE_LENGTH = 250
MAX_DIST_LENGTH = 64


def valid_release(version: str) -> bool:
    """Sentry's Release.is_valid_version, within the column: no '/', no NUL, not empty, '.' or '..'."""
    return ("/" not in version and "\x00" not in version and version.strip() not in ("", ".", "..")
            and len(version) <= MAX_RELEASE_LENGTH)


def check_release_and_dist(release: str, dist: str) -> None:
    """A bundle's release (when it has one) and dist, as the releases API would take them."""
    if release and not valid_release(release):
        raise AssembleError("the bundle's release is not a valid release name")
    if len(dist) > MAX_DIST_LENGTH or "\x00" in dist:
        raise AssembleError(f"the bundle's dist is not a valid dist name (at most {MAX_DIST_LENGTH} characters)")


def project_usage(session: Session, project_id: int) -> int:
    """Bytes of artifacts the project stores: its bundles and its release files."""
    bundles = session.scalar(select(func.coalesce(func.sum(ArtifactBundle.size), 0)).where(
        ArtifactBundle.project_id == project_id))
    files = session.scalar(select(func.coalesce(func.sum(ReleaseFile.size), 0)).where(
        ReleaseFile.project_id == project_id))
    return int(bundles or 0) + int(files or 0)


def check_budget(session: Session, project_id: int, adding: int, budget: int, *, replacing: int = 0) -> None:
    if budget > 0 and project_usage(session, project_id) - replacing + adding > budget:
        raise AssembleError(f"the project's artifact storage budget of {budget} bytes is exhausted")


def parse(source: BinaryIO, limits: ExpansionLimits) -> Bundle:
    try:
        return read_bundle(source, limits)
    except BundleTooLarge as refused:
        raise AssembleError(str(refused)) from None
    except InvalidBundle:
        raise AssembleError("the bundle is invalid") from None


def store_bundle(session: Session, *, projects: Sequence[Project], source: BinaryIO, checksum: str,
                 release: str | None, dist: str | None, budget: int, limits: ExpansionLimits) -> None:
    """Stores the bundle in `source` for each project; the bundle is read into memory once, when a project
    needs it stored."""
    bundle = parse(source, limits)
    if not bundle.files:
        return
    size = source.seek(0, io.SEEK_END)
    data: bytes | None = None
    release = release or bundle.attributes.get("release") or ""
    dist = dist or bundle.attributes.get("dist") or ""
    if not bundle.has_debug_ids() and not release:
        raise AssembleError("uploading a bundle without debug ids or release is prohibited")
    check_release_and_dist(release, dist)
    bundle_id = bundle.debug_id or bundle_id_from_checksum(checksum)
    now = utcnow()
    for project in projects:
        existing = session.scalar(select(ArtifactBundle).where(
            ArtifactBundle.project_id == project.id, ArtifactBundle.bundle_id == bundle_id))
        if existing is not None and existing.checksum == checksum:
            existing.release, existing.dist = release, dist
            existing.created_at = existing.last_used_at = now
            continue
        check_budget(session, project.id, size, budget, replacing=existing.size if existing else 0)
        if existing is not None:
            session.delete(existing)
            session.flush()
        if data is None:
            source.seek(0)
            data = source.read()
        row = ArtifactBundle(project_id=project.id, bundle_id=bundle_id, checksum=checksum, release=release,
                             dist=dist, file_count=len(bundle.files), size=size, data=data,
                             created_at=now, last_used_at=now)
        session.add(row)
        session.flush()
        session.add_all(BundleFile(bundle_id=row.id, project_id=project.id, path=file.path, url=file.url[:2048],
                                   file_type=file.file_type, debug_id=file.debug_id, sourcemap=file.sourcemap,
                                   size=file.size) for file in bundle.files)


def project_bundles(session: Session, project_id: int) -> list[tuple[ArtifactBundle, list[BundleFile]]]:
    bundles = list(session.scalars(select(ArtifactBundle).where(ArtifactBundle.project_id == project_id)
                                   .order_by(ArtifactBundle.created_at.desc(), ArtifactBundle.id.desc())))
    files: dict[int, list[BundleFile]] = {bundle.id: [] for bundle in bundles}
    if bundles:
        for file in session.scalars(select(BundleFile).where(BundleFile.bundle_id.in_(list(files)))
                                    .order_by(BundleFile.url)):
            files[file.bundle_id].append(file)
    return [(bundle, files[bundle.id]) for bundle in bundles]


def find_bundle(session: Session, project_id: int, bundle_id: str) -> ArtifactBundle | None:
    return session.scalar(select(ArtifactBundle).where(
        ArtifactBundle.project_id == project_id, ArtifactBundle.bundle_id == bundle_id))


def delete_bundle(session: Session, bundle: ArtifactBundle) -> None:
    session.execute(delete(BundleFile).where(BundleFile.bundle_id == bundle.id))
    session.delete(bundle)


def prune_unused(session: Session, now: dt.datetime, unused_days: int) -> int:
    """Deletes bundles no event used (and not uploaded again) for `unused_days`; how many."""
    if unused_days <= 0:
        return 0
    stale = list(session.scalars(select(ArtifactBundle.id).where(
        ArtifactBundle.last_used_at < now - dt.timedelta(days=unused_days)).limit(BATCH)))
    if stale:
        session.execute(delete(BundleFile).where(BundleFile.bundle_id.in_(stale)))
        session.execute(delete(ArtifactBundle).where(ArtifactBundle.id.in_(stale)))
    return len(stale)
