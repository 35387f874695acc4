"""Reading a source bundle: the zip sentry-cli builds with symbolic's SourceBundleWriter.

The zip (after symbolic's 8-byte `SYSB` header, which zipfile skips) holds the files and a
`manifest.json`: `{"files": {path: {"type", "url", "headers": {"debug-id", "sourcemap"}}},
"attributes": {"debug_id", "org", "project", "release", "dist"}}`.
"""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from dataclasses import dataclass

MANIFEST = "manifest.json"
# Zip members beyond this many, or expanding beyond this many bytes, make a bundle invalid (a zip bomb).
MAX_FILES = 20_000
MAX_EXPANDED_BYTES = 2 * 1024**3
# The longest file type the database keeps (Sentry's are "source", "minified_source", "source_map", ...).
MAX_FILE_TYPE_LENGTH = 32


class InvalidBundle(Exception):
    """The upload is not a readable source bundle."""


@dataclass(frozen=True)
class ManifestFile:
    path: str
    url: str
    file_type: str
    debug_id: str | None
    sourcemap: str | None
    size: int
    headers: dict[str, str]


@dataclass(frozen=True)
class Bundle:
    attributes: dict[str, str]
    files: list[ManifestFile]

    @property
    def debug_id(self) -> str | None:
        return normalize_debug_id(self.attributes.get("debug_id"))

    def has_debug_ids(self) -> bool:
        return any(file.debug_id for file in self.files)


def normalize_debug_id(value: object) -> str | None:
    """A debug id as Sentry indexes it: the UUID part, lowercase and hyphenated; None if it is not one."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().lower()
    for candidate in (text[:36], text[:32]):
        try:
            return str(uuid.UUID(candidate))
        except ValueError:
            continue
    return None


def read_bundle(data: bytes) -> Bundle:
    """The bundle's manifest, checked against its members; InvalidBundle when it cannot be read."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = {info.filename: info for info in archive.infolist()}
        if len(members) > MAX_FILES or sum(info.file_size for info in members.values()) > MAX_EXPANDED_BYTES:
            raise InvalidBundle("too large")
        manifest = json.loads(archive.read(MANIFEST))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError) as error:
        raise InvalidBundle(str(error)) from error
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files", {}), dict):
        raise InvalidBundle("manifest")
    if _holds_nul(manifest):  # neither database keeps it in text
        raise InvalidBundle("manifest holds a NUL character")
    attributes = manifest.get("attributes") or {}
    if not isinstance(attributes, dict):
        raise InvalidBundle("attributes")
    # Release bundles of older sentry-cli versions carry these at the manifest's top level.
    attributes = {key: manifest[key] for key in ("org", "release", "dist", "project")
                  if isinstance(manifest.get(key), str)} | attributes
    files = []
    for path, entry in manifest.get("files", {}).items():
        if not isinstance(entry, dict) or path not in members:
            raise InvalidBundle(f"manifest names a missing file: {path}")
        raw_headers = entry.get("headers") or {}
        headers = {str(key).lower(): str(value) for key, value in raw_headers.items()} \
            if isinstance(raw_headers, dict) else {}
        file_type = str(entry.get("type") or "")
        if len(file_type) > MAX_FILE_TYPE_LENGTH:
            raise InvalidBundle(f"unknown file type of {path}")
        files.append(ManifestFile(path=path, url=str(entry.get("url") or path), file_type=file_type,
                                  debug_id=normalize_debug_id(headers.get("debug-id")),
                                  sourcemap=headers.get("sourcemap") or headers.get("x-sourcemap"),
                                  size=members[path].file_size, headers=headers))
    return Bundle({str(key): str(value) for key, value in attributes.items()}, files)


def _holds_nul(value: object) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(key) or _holds_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_holds_nul(item) for item in value)
    return False


def read_member(data: bytes, path: str) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.read(path)
