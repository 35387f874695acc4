"""Source map storage: uploaded chunks, assembled artifact bundles and their files, releases and release files.

Everything lives in the main database, so replicas sharing it see the same uploads. Sentry's optional
"no dist" is stored as "" (Sentry's NULL_STRING) so that unique constraints hold on every engine.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from outpost_server.db import Base, UTCDateTime, utcnow


class UploadChunk(Base):
    """One chunk sent to chunk-upload, named by its SHA-1 and owned by an organization (as Sentry's
    FileBlobOwner); kept until the pruner removes chunks older than a day."""

    __tablename__ = "source_map_chunks"
    __table_args__ = (UniqueConstraint("organization", "checksum"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    organization: Mapped[str] = mapped_column(String(255))
    checksum: Mapped[str] = mapped_column(String(40))
    size: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)


class AssembleStatus(Base):
    """The state sentry-cli polls for an assemble request (Sentry keeps it in its cache)."""

    __tablename__ = "source_map_assemble_status"
    __table_args__ = (UniqueConstraint("organization", "task", "checksum"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    organization: Mapped[str] = mapped_column(String(255))
    # "artifact_bundle", or "release:<version>" for the legacy release assemble.
    task: Mapped[str] = mapped_column(String(300))
    checksum: Mapped[str] = mapped_column(String(40))
    state: Mapped[str] = mapped_column(String(16))
    detail: Mapped[str | None] = mapped_column(Text)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)


class ArtifactBundle(Base):
    """An assembled source bundle (the zip sentry-cli builds), stored whole for one project."""

    __tablename__ = "source_map_bundles"
    # Row ids are never reused: the digest caches parsed maps by them (lookup.py).
    __table_args__ = (UniqueConstraint("project_id", "bundle_id"),
                      Index("ix_source_map_bundles_release", "project_id", "release", "dist"),
                      {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    # The manifest's debug_id attribute (36 characters), or one derived from the checksum.
    bundle_id: Mapped[str] = mapped_column(String(36))
    checksum: Mapped[str] = mapped_column(String(40))
    release: Mapped[str] = mapped_column(String(250), default="")
    dist: Mapped[str] = mapped_column(String(64), default="")
    file_count: Mapped[int] = mapped_column(Integer)
    size: Mapped[int] = mapped_column(BigInteger)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Set when symbolication uses the bundle (at most daily); the pruner deletes long-unused bundles.
    last_used_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class BundleFile(Base):
    """One file of a bundle's manifest: its URL, type and debug id, for lookups without opening the zip."""

    __tablename__ = "source_map_bundle_files"
    __table_args__ = (Index("ix_source_map_bundle_files_debug_id", "project_id", "debug_id"),
                      Index("ix_source_map_bundle_files_url", "project_id", "url"))

    id: Mapped[int] = mapped_column(primary_key=True)
    bundle_id: Mapped[int] = mapped_column(ForeignKey("source_map_bundles.id", ondelete="CASCADE"), index=True)
    project_id: Mapped[int] = mapped_column(Integer)
    # The file's path inside the zip.
    path: Mapped[str] = mapped_column(Text)
    url: Mapped[str] = mapped_column(String(2048))
    # symbolic's SourceFileType: source, minified_source, source_map, indexed_ram_bundle.
    file_type: Mapped[str] = mapped_column(String(32))
    debug_id: Mapped[str | None] = mapped_column(String(36))
    # The `Sourcemap` header: the map a minified file names.
    sourcemap: Mapped[str | None] = mapped_column(Text)
    size: Mapped[int] = mapped_column(BigInteger)


class Release(Base):
    """A release of a project, as created by `sentry-cli releases new` (Sentry's Release, per project)."""

    __tablename__ = "source_map_releases"
    # Ids are never reused (SQLite AUTOINCREMENT).
    __table_args__ = (UniqueConstraint("project_id", "version"), {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    version: Mapped[str] = mapped_column(String(250))
    url: Mapped[str | None] = mapped_column(Text)
    date_released: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class ReleaseFile(Base):
    """A file of a release (the legacy flow), named by its URL, e.g. `~/static/app.min.js`."""

    __tablename__ = "source_map_release_files"
    __table_args__ = (UniqueConstraint("release_id", "name", "dist"),
                      Index("ix_source_map_release_files_name", "project_id", "name"),
                      {"sqlite_autoincrement": True})  # ids are never reused

    id: Mapped[int] = mapped_column(primary_key=True)
    release_id: Mapped[int] = mapped_column(ForeignKey("source_map_releases.id", ondelete="CASCADE"))
    project_id: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(2048))
    dist: Mapped[str] = mapped_column(String(64), default="")
    # JSON object of the file's headers (Content-Type, Sourcemap, debug-id).
    headers: Mapped[str] = mapped_column(Text, default="{}")
    size: Mapped[int] = mapped_column(BigInteger)
    sha1: Mapped[str] = mapped_column(String(40))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
