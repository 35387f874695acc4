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
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

MANIFEST = "manifest.json"
# A bundle of more members than this is invalid.
MAX_FILES = 20_000
# The longest file type the database keeps (Sentry's are "source", "minified_source", "source_map", ...).
MAX_FILE_TYPE_LENGTH = 32
# The manifest lists files and a few attributes: a few MB is plenty, and it is the one member read whole.
MAX_MANIFEST_BYTES = 4 * 1024**2
# A member expanding beyond RATIO_FLOOR may expand at most MAX_RATIO times its compressed size (source code
# and maps compress 3 to 10 times; a zip bomb a thousand times).
MAX_RATIO = 100
RATIO_FLOOR = 1024**2
# Members are expanded in pieces of this size, and never whole, while they are checked.
PIECE = 1024**2


@dataclass(frozen=True)
class ExpansionLimits:
    """What a bundle may expand to: each member, and all of them together."""

    member_bytes: int
    total_bytes: int


class InvalidBundle(Exception):
    """The upload is not a readable source bundle."""


class BundleTooLarge(InvalidBundle):
    """The bundle expands beyond a limit; the message says which."""


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


def read_bundle(source: BinaryIO, limits: ExpansionLimits) -> Bundle:
    """The bundle's manifest, checked against its members; InvalidBundle when it cannot be read, or expands
    beyond its limits (each member is expanded once, in pieces, and its real size counted: a member
    that expands beyond what the zip declares fails its CRC check)."""
    try:
        archive = zipfile.ZipFile(source)
        entries = archive.infolist()
        if len(entries) > MAX_FILES:
            raise BundleTooLarge(f"the bundle holds more than {MAX_FILES} files")
        members = {info.filename: info for info in entries}
        manifest_bytes = b""
        total = 0
        for info in entries:
            cap = MAX_MANIFEST_BYTES if info.filename == MANIFEST else limits.member_bytes
            _check_declared(info, cap)
            pieces = []
            for piece in _expanded(archive, info, cap):
                total += len(piece)
                if total > limits.total_bytes:
                    raise BundleTooLarge(f"the bundle expands beyond {limits.total_bytes} bytes")
                if info.filename == MANIFEST:
                    pieces.append(piece)
            if info.filename == MANIFEST:
                manifest_bytes = b"".join(pieces)
        manifest = json.loads(manifest_bytes) if MANIFEST in members else None
    except (zipfile.BadZipFile, zlib.error, ValueError, OSError, EOFError, RecursionError, RuntimeError,
            NotImplementedError) as error:
        # RuntimeError: an encrypted member; NotImplementedError: a compression zipfile does not know.
        raise InvalidBundle(str(error)) from error
    if manifest is None:
        raise InvalidBundle("the bundle has no manifest")
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
    """A member of a stored bundle (read_bundle accepted it, so its size is bounded)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.read(path)


def read_members(source: BinaryIO, paths: list[str]) -> Iterator[bytes]:
    """The members of a bundle read_bundle accepted, one at a time, in the order given."""
    with zipfile.ZipFile(source) as archive:
        for path in paths:
            yield archive.read(path)


def _check_declared(info: zipfile.ZipInfo, cap: int) -> None:
    """Refuses a member by what the zip declares, before expanding any of it."""
    what = "the bundle's manifest" if info.filename == MANIFEST else "a file of the bundle"
    if info.file_size > cap:
        raise BundleTooLarge(f"{what} expands beyond {cap} bytes")
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise BundleTooLarge(f"{what} expands more than {MAX_RATIO} times its compressed size")


def _expanded(archive: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int):
    """The member's content in pieces, counted as it expands (zipfile stops at the declared size)."""
    seen = 0
    with archive.open(info) as member:
        while piece := member.read(PIECE):
            seen += len(piece)
            if seen > cap:
                raise BundleTooLarge(f"a file of the bundle expands beyond {cap} bytes")
            yield piece
