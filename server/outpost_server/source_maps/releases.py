"""Releases and release files: the legacy flow (`sentry-cli releases files … upload-sourcemaps`).

A release belongs to a project here (Sentry's belongs to an organization and lists projects): the
organization endpoints create or read it in each project named. Release files are unique per release,
name and dist, as Sentry's ReleaseFile.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Sequence
from typing import BinaryIO

from sqlalchemy import select
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project

from .archive import ExpansionLimits, read_members
from .bundles import MAX_DIST_LENGTH, check_budget, check_release_and_dist, parse
from .models import Release, ReleaseFile
from .uploads import AssembleError

# project_release_files.py: names and header values must not hold these.
SPECIAL_WHITESPACE = re.compile(r"[\n\t\r\f\v\\]")
# Outpost's own, beyond Sentry's basename check: a name is the URL or path a frame is matched by, so a
# control character anywhere (C0, DEL, C1, the bidirectional overrides) or a `.`/`..` segment can only be
# a forgery; absolute paths stay, as Node's frames name their files by them.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
DOT_SEGMENT = re.compile(r"(?:^|[/\\])\.{1,2}(?:[/\\]|$)")
ERR_RELATIVE_SEGMENT = "File name must not contain relative path segments"
ERR_FILE_EXISTS = "A file matching this name already exists for the given release"


class ReleaseFileRefused(Exception):
    """Answered {"detail": message} with `status`."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def find_release(session: Session, project_id: int, version: str) -> Release | None:
    return session.scalar(select(Release).where(Release.project_id == project_id, Release.version == version))


def ensure_release(session: Session, project: Project, version: str, url: str | None = None) -> tuple[Release, bool]:
    """The release, created when missing; True when created."""
    release = find_release(session, project.id, version)
    if release is not None:
        return release, False
    release = Release(project_id=project.id, version=version, url=url)
    session.add(release)
    session.flush()
    return release, True


def project_releases(session: Session, project_id: int) -> list[Release]:
    return list(session.scalars(select(Release).where(Release.project_id == project_id)
                                .order_by(Release.created_at.desc(), Release.id.desc())))


def release_files(session: Session, release: Release) -> list[ReleaseFile]:
    return list(session.scalars(select(ReleaseFile).where(ReleaseFile.release_id == release.id)
                                .order_by(ReleaseFile.name)))


def find_release_file(session: Session, release: Release, file_id: int) -> ReleaseFile | None:
    return session.scalar(select(ReleaseFile).where(ReleaseFile.release_id == release.id, ReleaseFile.id == file_id))


def parse_headers(values: Sequence[str], content_type: str | None) -> dict[str, str]:
    headers = {"Content-Type": content_type} if content_type else {}
    for value in values:
        key, separator, text = value.partition(":")
        if not separator:
            raise ReleaseFileRefused(400, "header value was not formatted correctly")
        if SPECIAL_WHITESPACE.search(text):
            raise ReleaseFileRefused(400, "header value must not contain special whitespace characters")
        headers[key] = text.strip()
    return headers


def file_name_refusal(name: str) -> str | None:
    """Why a release file may not have this name, in Sentry's words where Sentry refuses it too."""
    if SPECIAL_WHITESPACE.search(name.rsplit("/", 1)[-1]) or CONTROL_CHARACTERS.search(name):
        return "File name must not contain special whitespace characters"
    if DOT_SEGMENT.search(name.split("?", 1)[0]):
        return ERR_RELATIVE_SEGMENT
    return None


def add_release_file(session: Session, release: Release, *, name: str, dist: str, data: bytes,
                     headers: dict[str, str], budget: int) -> ReleaseFile:
    """A new file of the release; 409 when the name (and dist) is taken, as Sentry answers."""
    if any("\x00" in text for text in (name, dist, *headers, *headers.values())):
        raise ReleaseFileRefused(400, "Null characters are not allowed.")
    refusal = file_name_refusal(name)
    if refusal:
        raise ReleaseFileRefused(400, refusal)
    if len(dist) > MAX_DIST_LENGTH:
        raise ReleaseFileRefused(400, f"Dist must be at most {MAX_DIST_LENGTH} characters")
    taken = session.scalar(select(ReleaseFile.id).where(
        ReleaseFile.release_id == release.id, ReleaseFile.name == name, ReleaseFile.dist == dist))
    if taken is not None:
        raise ReleaseFileRefused(409, ERR_FILE_EXISTS)
    try:
        check_budget(session, release.project_id, len(data), budget)
    except AssembleError as error:
        raise ReleaseFileRefused(400, str(error)) from None
    row = ReleaseFile(release_id=release.id, project_id=release.project_id, name=name[:2048], dist=dist,
                      headers=json.dumps(headers), size=len(data), sha1=hashlib.sha1(data).hexdigest(), data=data)
    session.add(row)
    session.flush()
    return row


def store_release_bundle(session: Session, *, organization: str, releases: Sequence[Release], source: BinaryIO,
                         budget: int, limits: ExpansionLimits) -> None:
    """The legacy release assemble: the bundle's files become release files of the release (upserted),
    after Sentry's checks of the manifest's org and release (ReleaseBundlePostAssembler). Files are read
    one at a time (each at most `limits.member_bytes`)."""
    bundle = parse(source, limits)
    if not bundle.files:
        return
    if bundle.attributes.get("org") != organization:
        raise AssembleError("organization does not match uploaded bundle")
    version = releases[0].version
    if bundle.attributes.get("release") != version:
        raise AssembleError("release does not match uploaded bundle")
    dist = bundle.attributes.get("dist") or ""
    check_release_and_dist(version, dist)
    for file in bundle.files:
        refusal = file_name_refusal(file.url)
        if refusal:
            raise AssembleError(refusal)
    size = source.seek(0, io.SEEK_END)
    for release in releases:
        check_budget(session, release.project_id, size, budget)
        for file, content in zip(bundle.files, read_members(source, [file.path for file in bundle.files]),
                                 strict=True):
            existing = session.scalar(select(ReleaseFile).where(
                ReleaseFile.release_id == release.id, ReleaseFile.name == file.url, ReleaseFile.dist == dist))
            if existing is not None:
                session.delete(existing)
                session.flush()
            row = ReleaseFile(release_id=release.id, project_id=release.project_id, name=file.url[:2048],
                              dist=dist, headers=json.dumps(file.headers), size=len(content),
                              sha1=hashlib.sha1(content).hexdigest(), data=content)
            session.add(row)
            session.flush()
            # Written: the session need not keep the content (one file in memory at a time).
            session.expunge(row)
