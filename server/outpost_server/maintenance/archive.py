"""The backup file: one gzip'd tar stream, written and read front to back, so memory stays flat at any size.

Its members, in order: `manifest.json` (what the backup holds, readable with `tar -xzOf FILE manifest.json`);
`key.json` when the secret key was sealed with a passphrase; each table's rows as `tables/NAME/N.jsonl`
parts of at most PART_BYTES; the spool's undigested entries as `spool/N.jsonl`; and `checksums.json` last,
the SHA-256 of every member before it. Restoring reads the whole file once to check it before it writes
anything, so a damaged or cut file is refused with the target untouched.

Rows are JSON arrays in the order of the table's columns (named in the manifest). Values JSON has no
type for are tagged: bytes {"$b": base64}, times {"$t": ISO in UTC}, dates {"$d": ISO}, and a JSON
column's object {"$j": object}, so an object can never be mistaken for a tag.
"""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import hashlib
import io
import json
import os
import tarfile
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

FORMAT = 1
MANIFEST = "manifest.json"
KEY = "key.json"
CHECKSUMS = "checksums.json"
TABLES = "tables/"
SPOOL = "spool/"
# A part is held in memory while it is written and while it is read back.
PART_BYTES = 4 * 1024 * 1024


class DamagedBackup(Exception):
    """The file is not a whole Outpost backup: cut short, altered, or something else."""


def encode_value(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$b": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return {"$t": value.isoformat()}
    if isinstance(value, dt.date):
        return {"$d": value.isoformat()}
    if isinstance(value, dict):
        return {"$j": value}
    return value


def decode_value(value: Any) -> Any:
    """The value as written; times come back aware, in UTC."""
    if isinstance(value, dict):
        if "$b" in value:
            return base64.b64decode(value["$b"])
        if "$t" in value:
            return dt.datetime.fromisoformat(value["$t"]).replace(tzinfo=dt.timezone.utc)
        if "$d" in value:
            return dt.date.fromisoformat(value["$d"])
        return value["$j"]
    return value


def encode_row(values: Any) -> bytes:
    return json.dumps([encode_value(value) for value in values], separators=(",", ":"),
                      ensure_ascii=False).encode() + b"\n"


def decode_rows(part: bytes) -> Iterator[list[Any]]:
    for line in part.splitlines():
        yield [decode_value(value) for value in json.loads(line)]


class BackupWriter:
    """Writes the members into `path`'s partial file; `close()` puts the finished file in place."""

    def __init__(self, path: Path):
        self.path = path
        self._partial = path.with_name(path.name + ".partial")
        self._file: BinaryIO = open(self._partial, "wb")
        # Level 1: the rows are mostly JSON text, which gzip shrinks well even at its fastest.
        self._gzip = gzip.GzipFile(fileobj=self._file, mode="wb", compresslevel=1, mtime=0)
        self._tar = tarfile.open(fileobj=self._gzip, mode="w|", format=tarfile.PAX_FORMAT)
        self._checksums: dict[str, str] = {}

    def add(self, name: str, data: bytes) -> None:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        info.mtime = int(time.time())
        info.mode = 0o600
        self._tar.addfile(info, io.BytesIO(data))
        self._checksums[name] = hashlib.sha256(data).hexdigest()

    def add_json(self, name: str, value: Any) -> None:
        self.add(name, json.dumps(value, indent=1, sort_keys=True).encode())

    def parts(self, prefix: str) -> PartWriter:
        return PartWriter(self, prefix)

    def close(self) -> None:
        self.add_json(CHECKSUMS, self._checksums)
        self._tar.close()
        self._gzip.close()
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self._partial, self.path)

    def abort(self) -> None:
        self._file.close()
        self._partial.unlink(missing_ok=True)


class PartWriter:
    """Collects encoded lines and writes them as numbered parts of at most PART_BYTES."""

    def __init__(self, writer: BackupWriter, prefix: str):
        self._writer, self._prefix = writer, prefix
        self._buffer = bytearray()
        self._number = 0

    def write(self, line: bytes) -> None:
        if self._buffer and len(self._buffer) + len(line) > PART_BYTES:
            self.flush()
        self._buffer += line

    def flush(self) -> None:
        if self._buffer:
            self._number += 1
            self._writer.add(f"{self._prefix}{self._number:06d}.jsonl", bytes(self._buffer))
            self._buffer.clear()


def members(path: Path) -> Iterator[tuple[str, bytes]]:
    """Every member's name and content, in order; DamagedBackup where the file cannot be read as one."""
    try:
        with open(path, "rb") as file, gzip.GzipFile(fileobj=file, mode="rb") as unzipped, \
                tarfile.open(fileobj=unzipped, mode="r|") as tar:
            for info in tar:
                if not info.isfile():
                    raise DamagedBackup(f"{info.name} is not a file")
                extracted = tar.extractfile(info)
                assert extracted is not None
                yield info.name, extracted.read()
    except (OSError, EOFError, zlib.error, tarfile.TarError) as error:
        raise DamagedBackup(f"it cannot be read ({error or type(error).__name__})") from None


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest alone, read from the start of the file (the rest is checked by `verify`)."""
    for name, data in members(path):
        if name != MANIFEST:
            break
        return _json(name, data)
    raise DamagedBackup("it does not start with an Outpost backup's manifest")


def verify(path: Path) -> dict[str, Any]:
    """Reads the whole file once: every member whole and as it was written, the rows as many as the manifest
    counts. Returns the manifest."""
    manifest: dict[str, Any] | None = None
    seen: dict[str, str] = {}
    rows: dict[str, int] = {}
    checksums: dict[str, str] | None = None
    for name, data in members(path):
        if checksums is not None:
            raise DamagedBackup(f"{name} follows the checksums")
        if name == CHECKSUMS:
            checksums = _json(name, data)
            continue
        if manifest is None:
            if name != MANIFEST:
                raise DamagedBackup("it does not start with an Outpost backup's manifest")
            manifest = _json(name, data)
        seen[name] = hashlib.sha256(data).hexdigest()
        if name.startswith((TABLES, SPOOL)):
            rows[part_owner(name)] = rows.get(part_owner(name), 0) + data.count(b"\n")
    if manifest is None or checksums is None:
        raise DamagedBackup("it is cut short: its end is missing")
    if checksums != seen:
        wrong = sorted(name for name in set(seen) | set(checksums) if seen.get(name) != checksums.get(name))
        raise DamagedBackup(f"{len(wrong)} of its parts do not match their checksums, the first {wrong[0]}")
    expected = {f"{TABLES}{name}/": count for name, count in manifest.get("tables", {}).items() if count}
    if manifest.get("spool_entries"):
        expected[SPOOL] = manifest["spool_entries"]
    if rows != expected:
        raise DamagedBackup("its rows are not those its manifest counts")
    return manifest


def part_owner(name: str) -> str:
    """`tables/NAME/` for a table's part, `spool/` for the spool's."""
    return name.rsplit("/", 1)[0] + "/" if name.startswith(TABLES) else SPOOL


def _json(name: str, data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        raise DamagedBackup(f"its {name} is not JSON") from None
