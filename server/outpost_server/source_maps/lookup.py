"""Finding a frame's source map, as Sentry does: by the debug id of the frame's file (from the event's
`debug_meta.images`), else by the event's release (and dist) and the frame's URL, matched exactly or
with the `~/` prefix that stands for any scheme and host (sentry-cli's `--url-prefix '~/…'`), by the
symbolicator's release file candidates (candidate_urls).

Runs on the digest's connection (SQLAlchemy Core). Parsed maps are cached per bundle file, so a burst
of events from one build parses its map once; bundles are immutable (a re-upload is a new row), and a
deleted bundle's row id is never handed out again (AUTOINCREMENT on SQLite).
"""

from __future__ import annotations

import datetime as dt
import json
import posixpath
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import cast
from urllib.parse import urljoin

from sqlalchemy import Table, and_, bindparam, select, update
from sqlalchemy.engine import Connection
from symbolic.exceptions import SymbolicError
from symbolic.sourcemap import SourceMapView
from symbolic.sourcemapcache import SourceMapCache

from outpost_server.db import utcnow

from .archive import read_member
from .models import ArtifactBundle, BundleFile, Release, ReleaseFile

bundles = cast(Table, ArtifactBundle.__table__)
bundle_files = cast(Table, BundleFile.__table__)
releases = cast(Table, Release.__table__)
release_files = cast(Table, ReleaseFile.__table__)

CACHE_ENTRIES = 64
# A bundle's last use is recorded at most this often (the pruner counts days).
TOUCH_EVERY = dt.timedelta(hours=12)
SOURCE_MAPPING_URL = re.compile(rb"//[#@]\s*sourceMappingURL=(\S+)\s*$")
MINIFIED_TYPES = ("minified_source", "source")

# Why a frame could not be mapped (kept on the frame, shown by the console), naming what was looked up.
NO_BUNDLE = "no bundle for debug id {debug_id}"
NO_RELEASE = "no debug id for {url}, and the event has no release"
NOT_IN_RELEASE = "file not in release {release} (looked for {urls})"
NO_MAP_IN_BUNDLE = "no source map for debug id {debug_id} in its bundle"
NO_MAP_NAMED = "the file names no source map (no Sourcemap header or sourceMappingURL)"
NO_MAP_AT = "no source map at {url} in release {release}"
MALFORMED = "malformed source map"
BUNDLE_GONE = "the bundle was deleted while the event was mapped"


class Unmapped(Exception):
    """A frame's map cannot be had; the message says why."""


@dataclass
class ParsedMap:
    view: SourceMapView
    # The minified file's scopes named through the map (naming.py); None without the minified file.
    scopes: SourceMapCache | None
    # Where it came from, for the frame's data: "debug-id" or "release", and the map's URL.
    resolved_with: str
    url: str
    bundle_row: int | None
    # The original sources' lines, read from sourcesContent when a frame first needs them.
    lines: dict[int, list[str]] = field(default_factory=dict)

    def source_lines(self, source_id: int) -> list[str]:
        if source_id not in self.lines:
            view = self.view.get_sourceview(source_id)
            self.lines[source_id] = list(view) if view is not None else []
        return self.lines[source_id]


class MapCache:
    """The most recently used parsed maps (or the reason one failed), shared by the digest's batches."""

    def __init__(self, capacity: int = CACHE_ENTRIES):
        self._entries: OrderedDict[tuple, ParsedMap | str] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def get(self, key: tuple) -> ParsedMap | str | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: tuple, value: ParsedMap | str) -> None:
        with self._lock:
            self._entries[key] = value
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)


CACHE = MapCache()


def candidate_urls(abs_path: str) -> list[str]:
    """Sentry's release file candidates (the symbolicator's get_release_file_candidate_urls): the URL without
    its fragment, then without its query, then both relative to the host as `~/path` (a path without scheme
    and host, such as a Node frame's `/srv/app/dist/app.js`, is its own relative part)."""
    url = abs_path.split("#", 1)[0]
    relative = _strip_host(url)
    found = [url, url.split("?", 1)[0], "~" + relative, "~" + relative.split("?", 1)[0]]
    return list(dict.fromkeys(found))


def _strip_host(url: str) -> str:
    if url.startswith("~"):
        return url[1:]
    _, separator, rest = url.partition("://")
    if not separator:
        return url
    slash = rest.find("/")
    return rest[slash:] if slash >= 0 else rest


def _parse(key: tuple, load, resolved_with: str, url: str, bundle_row: int | None) -> ParsedMap:
    cached = CACHE.get(key)
    if isinstance(cached, str):
        raise Unmapped(cached)
    if cached is not None:
        return cached
    map_bytes, minified = load()
    try:
        view = SourceMapView.from_json_bytes(map_bytes)
    except Exception:
        CACHE.put(key, MALFORMED)
        raise Unmapped(MALFORMED) from None
    parsed = ParsedMap(view, _scopes(minified, map_bytes), resolved_with, url, bundle_row)
    CACHE.put(key, parsed)
    return parsed


def _scopes(minified: bytes | None, map_bytes: bytes) -> SourceMapCache | None:
    """The minified file's named scopes; None when there is no minified file or it does not parse as
    JavaScript (its frames then keep the names the map gives at their positions)."""
    if not minified:
        return None
    try:
        return SourceMapCache.from_bytes(minified, map_bytes)
    except SymbolicError:
        return None


def _bundle_data(connection: Connection, bundle_row: int) -> bytes:
    data = connection.scalar(select(bundles.c.data).where(bundles.c.id == bundle_row))
    if data is None:  # deleted since its files were read
        raise Unmapped(BUNDLE_GONE)
    return bytes(data)


def _bundle_loader(connection: Connection, bundle_row: int, map_path: str, minified_path: str | None):
    def load() -> tuple[bytes, bytes | None]:
        data = _bundle_data(connection, bundle_row)
        return read_member(data, map_path), read_member(data, minified_path) if minified_path else None
    return load


# Built once: most events of a burst cost one such query per file (statement building cost more than it).
FILES_BY_DEBUG_ID = (
    select(bundle_files.c.bundle_id, bundle_files.c.path, bundle_files.c.file_type, bundle_files.c.url)
    .join(bundles, bundles.c.id == bundle_files.c.bundle_id)
    .where(bundle_files.c.project_id == bindparam("project_id"), bundle_files.c.debug_id == bindparam("debug_id"))
    .order_by(bundles.c.created_at.desc(), bundles.c.id.desc()))


def by_debug_id(connection: Connection, project_id: int, debug_id: str) -> ParsedMap:
    rows = connection.execute(FILES_BY_DEBUG_ID, {"project_id": project_id, "debug_id": debug_id}).all()
    if not rows:
        raise Unmapped(NO_BUNDLE.format(debug_id=debug_id))
    newest = rows[0].bundle_id
    in_bundle = {row.file_type: row for row in rows if row.bundle_id == newest}
    source_map = in_bundle.get("source_map")
    if source_map is None:
        raise Unmapped(NO_MAP_IN_BUNDLE.format(debug_id=debug_id))
    minified = next((in_bundle[kind] for kind in MINIFIED_TYPES if kind in in_bundle), None)
    return _parse(("bundle", newest, source_map.path), _bundle_loader(
        connection, newest, source_map.path, minified.path if minified else None), "debug-id", source_map.url, newest)


def _map_url(file_url: str, header: str | None, content: bytes | None) -> str | None:
    reference = header
    if reference is None and content:
        found = SOURCE_MAPPING_URL.search(content.rstrip()[-2048:])
        reference = found.group(1).decode(errors="replace") if found else None
    if not reference or reference.startswith("data:"):
        return None
    if file_url.startswith("~/"):
        return "~" + posixpath.normpath(posixpath.join(posixpath.dirname(file_url[1:]), reference))
    return urljoin(file_url, reference)


def by_release(connection: Connection, project_id: int, release: str | None, dist: str, abs_path: str) -> ParsedMap:
    if not release:
        raise Unmapped(NO_RELEASE.format(url=abs_path))
    candidates = candidate_urls(abs_path)
    found = _in_release_bundles(connection, project_id, release, dist, candidates)
    if found is None:
        found = _in_release_files(connection, project_id, release, dist, candidates)
    if found is None:
        raise Unmapped(NOT_IN_RELEASE.format(release=release, urls=", ".join(candidates)))
    return found


def _no_map(map_url: str | None, release: str) -> Unmapped:
    return Unmapped(NO_MAP_AT.format(url=map_url, release=release) if map_url else NO_MAP_NAMED)


def _in_release_bundles(connection: Connection, project_id: int, release: str, dist: str,
                        candidates: list[str]) -> ParsedMap | None:
    in_release = and_(bundle_files.c.project_id == project_id, bundles.c.release == release, bundles.c.dist == dist)
    minified = connection.execute(
        select(bundle_files.c.bundle_id, bundle_files.c.path, bundle_files.c.url, bundle_files.c.sourcemap)
        .join(bundles, bundles.c.id == bundle_files.c.bundle_id)
        .where(in_release, bundle_files.c.url.in_(candidates), bundle_files.c.file_type.in_(MINIFIED_TYPES))
        .order_by(bundles.c.created_at.desc(), bundles.c.id.desc()).limit(1)).first()
    if minified is None:
        return None
    key = ("bundle", minified.bundle_id, minified.path)
    cached = CACHE.get(key)
    if isinstance(cached, ParsedMap):
        return cached
    data = _bundle_data(connection, minified.bundle_id)
    content = read_member(data, minified.path)
    map_url = _map_url(minified.url, minified.sourcemap, content)
    source_map = connection.execute(
        select(bundle_files.c.path).where(bundle_files.c.bundle_id == minified.bundle_id,
                                          bundle_files.c.url == map_url)).first() if map_url else None
    if source_map is None:
        raise _no_map(map_url, release)
    return _parse(key, lambda: (read_member(data, source_map.path), content), "release", map_url or "",
                  minified.bundle_id)


def _in_release_files(connection: Connection, project_id: int, release: str, dist: str,
                      candidates: list[str]) -> ParsedMap | None:
    owner = select(releases.c.id).where(releases.c.project_id == project_id, releases.c.version == release)
    minified = connection.execute(
        select(release_files.c.id, release_files.c.name, release_files.c.headers, release_files.c.data)
        .where(release_files.c.release_id.in_(owner.scalar_subquery()), release_files.c.dist == dist,
               release_files.c.name.in_(candidates)).order_by(release_files.c.id.desc()).limit(1)).first()
    if minified is None:
        return None
    headers = {key.lower(): value for key, value in json.loads(minified.headers).items()}
    map_url = _map_url(minified.name, headers.get("sourcemap") or headers.get("x-sourcemap"), minified.data)
    source_map = connection.execute(
        select(release_files.c.id, release_files.c.data)
        .where(release_files.c.release_id.in_(owner.scalar_subquery()), release_files.c.dist == dist,
               release_files.c.name == map_url)).first() if map_url else None
    if source_map is None:
        raise _no_map(map_url, release)
    return _parse(("release_file", source_map.id, minified.id), lambda: (source_map.data, minified.data),
                  "release", map_url or "", None)


_touched: dict[int, dt.datetime] = {}


def touch(connection: Connection, bundle_rows: set[int]) -> None:
    """Records the bundles' use, at most every TOUCH_EVERY (the pruner deletes long-unused ones); this
    process remembers what it recorded, so a burst of events writes nothing more."""
    now = utcnow()
    due = sorted(row for row in bundle_rows if _touched.get(row, dt.datetime.min.replace(tzinfo=dt.timezone.utc))
                 < now - TOUCH_EVERY)
    if not due:
        return
    connection.execute(update(bundles).where(bundles.c.id.in_(due), bundles.c.last_used_at < now - TOUCH_EVERY)
                       .values(last_used_at=now))
    _touched.update(dict.fromkeys(due, now))
