"""Applying source maps to a scrubbed event's JavaScript frames: the digest's Symbolicate, called before
anything is derived from the frames and before the batch's write transaction opens.

Each frame with a line and column is mapped to its original file, line and column (symbolic's
SourceMapView, Sentry's own library) and named as Sentry names it (naming.py), with five lines of context
either side from the map's sourcesContent, and marked in-app by its original path. The exception keeps its
minified frames as `raw_stacktrace`, as Sentry does; a frame that cannot be mapped stays minified and says why in its
`data.unmapped_reason`.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any
from urllib.parse import urljoin

from sqlalchemy.engine import Connection

from . import lookup, naming
from .archive import normalize_debug_id
from .lookup import ParsedMap, Unmapped

JS_PLATFORMS = ("javascript", "node")
CONTEXT_LINES = 5
# Source lines longer than this are cut around the column (minified sources in maps have huge lines).
MAX_LINE = 150
# Positions are 32-bit in symbolic's lookups.
MAX_POSITION = 2**32 - 1
NOT_APP = re.compile(r"(^|/)node_modules/|webpack/(runtime|bootstrap)")


def symbolicate(connection: Connection, project_id: int, event: dict[str, Any]) -> bool:
    """Maps the event's JavaScript exception frames in place; True when anything changed."""
    if not isinstance(event, dict) or not _is_javascript(event):
        return False
    images = _debug_images(event)
    release_value, dist_value = event.get("release"), event.get("dist")
    release = release_value if isinstance(release_value, str) else None
    dist = dist_value if isinstance(dist_value, str) else ""
    used: set[int] = set()
    found: dict[str, ParsedMap | Unmapped] = {}  # per file of this event: frames mostly share one
    changed = False
    for exception in _exceptions(event):
        stacktrace = exception.get("stacktrace")
        if not isinstance(stacktrace, dict):
            continue
        frames = stacktrace.get("frames")
        # An exception with raw_stacktrace was mapped already (a batch digested again after a failure).
        if not isinstance(frames, list) or "raw_stacktrace" in exception:
            continue
        # The frames are replaced key by key (nested values too), so copying each frame keeps the raw ones.
        raw = [dict(frame) if isinstance(frame, dict) else frame for frame in frames]
        touched = False
        # Frames run from the outermost call in; a mapped call site names the function called next.
        call_site: str | None = None
        for frame in frames:
            if not isinstance(frame, dict) or not _mappable(frame):
                call_site = None
                continue
            touched = True
            location = _location(frame) or ""
            if location not in found:
                try:
                    found[location] = _find_map(connection, project_id, frame, images, release, dist)
                except Unmapped as reason:
                    found[location] = reason
            try:
                parsed = found[location]
                if isinstance(parsed, Unmapped):
                    raise parsed
                call_site = _map_frame(frame, parsed, call_site)
                if parsed.bundle_row is not None:
                    used.add(parsed.bundle_row)
            except Unmapped as reason:
                call_site = None
                _set_data(frame, symbolicated=False, unmapped_reason=str(reason))
        if touched:
            exception["raw_stacktrace"] = {**stacktrace, "frames": raw}
            changed = True
    lookup.touch(connection, used)
    return changed


def _is_javascript(event: dict[str, Any]) -> bool:
    return event.get("platform") in JS_PLATFORMS or any(
        isinstance(frame, dict) and frame.get("platform") in JS_PLATFORMS
        for exception in _exceptions(event) for frame in _frames(exception))


def _exceptions(event: dict[str, Any]) -> list[dict[str, Any]]:
    exception = event.get("exception")
    values = exception.get("values") if isinstance(exception, dict) else exception
    return [value for value in values if isinstance(value, dict)] if isinstance(values, list) else []


def _frames(exception: dict[str, Any]) -> list[Any]:
    stacktrace = exception.get("stacktrace")
    frames = stacktrace.get("frames") if isinstance(stacktrace, dict) else None
    return frames if isinstance(frames, list) else []


def _debug_images(event: dict[str, Any]) -> dict[str, str]:
    """code_file -> debug id of the event's `sourcemap` debug images."""
    meta = event.get("debug_meta")
    images = meta.get("images") if isinstance(meta, dict) else None
    found = {}
    for image in images if isinstance(images, list) else []:
        if isinstance(image, dict) and image.get("type") == "sourcemap":
            code_file, debug_id = image.get("code_file"), normalize_debug_id(image.get("debug_id"))
            if isinstance(code_file, str) and debug_id:
                found[code_file] = debug_id
    return found


def _location(frame: dict[str, Any]) -> str | None:
    """The frame's file URL: abs_path, else filename (the Node SDK sends only an absolute filename)."""
    for key in ("abs_path", "filename"):
        if isinstance(frame.get(key), str) and frame[key]:
            return frame[key]
    return None


def _mappable(frame: dict[str, Any]) -> bool:
    abs_path = _location(frame)
    return (isinstance(frame.get("lineno"), int) and isinstance(frame.get("colno"), int)
            and isinstance(abs_path, str) and bool(abs_path) and not abs_path.startswith(("node:", "native"))
            and not (isinstance(frame.get("data"), dict) and frame["data"].get("symbolicated")))


def _set_data(frame: dict[str, Any], **values: Any) -> None:
    """A new `data` for the frame (never changed in place: the raw frame shares the old one)."""
    data = frame.get("data")
    frame["data"] = {**(data if isinstance(data, dict) else {}), **values}


def _find_map(connection: Connection, project_id: int, frame: dict[str, Any], images: dict[str, str],
              release: str | None, dist: str) -> ParsedMap:
    abs_path = _location(frame) or ""
    debug_id = images.get(abs_path)
    if debug_id:
        return lookup.by_debug_id(connection, project_id, debug_id)
    return lookup.by_release(connection, project_id, release, dist, abs_path)


def _map_frame(frame: dict[str, Any], parsed: ParsedMap, call_site: str | None) -> str | None:
    """Maps the frame in place; returns the original name at its position (it names the next frame's function)."""
    line, column = frame["lineno"] - 1, frame["colno"] - 1
    if not (0 <= line < MAX_POSITION and 0 <= column < MAX_POSITION):
        raise Unmapped(f"no mapping for line {line + 1}, column {column + 1}")
    token = parsed.view.lookup(line, column)
    if token is None or not token.src:
        raise Unmapped(f"no mapping for line {line + 1}, column {column + 1}")
    minified_name = frame.get("function") if isinstance(frame.get("function"), str) else None
    scope = parsed.scopes.lookup(line + 1, column + 1, 0) if parsed.scopes is not None else None
    filename = original_path(token.src)
    frame["abs_path"] = _resolve(_location(frame) or "", token.src)
    frame["filename"] = filename
    frame["lineno"], frame["colno"] = token.src_line + 1, token.src_col + 1
    if scope is not None:
        frame["function"] = naming.function_name(scope=scope.function_name, minified=minified_name,
                                                 call_site=call_site)
    frame.pop("module", None)
    frame["in_app"] = NOT_APP.search(filename) is None
    _add_context(frame, parsed, token.src_id, token.src_line, token.src_col)
    _set_data(frame, symbolicated=True, resolved_with=parsed.resolved_with, sourcemap=parsed.url)
    frame["data"].pop("unmapped_reason", None)
    return scope.name if scope is not None else token.name


def original_path(source: str) -> str:
    """The original file as a project path: `webpack://app/./src/a.js` and `../../src/a.js` are `src/a.js`."""
    path = re.sub(r"^[a-z][a-z0-9+.-]*://[^/]*/", "", source)
    path = posixpath.normpath(path) if path else source
    while path.startswith("../"):
        path = path[3:]
    return path.lstrip("/") or source


def _resolve(abs_path: str, source: str) -> str:
    if re.match(r"^[a-z][a-z0-9+.-]*:", source):
        return source
    if "://" in abs_path:
        return urljoin(abs_path, source)
    return posixpath.normpath(posixpath.join(posixpath.dirname(abs_path), source))


def _add_context(frame: dict[str, Any], parsed: ParsedMap, source_id: int | None, line: int, column: int) -> None:
    lines = parsed.source_lines(source_id) if source_id is not None else []
    if line >= len(lines):
        return
    frame["pre_context"] = [_trim(text, None) for text in lines[max(0, line - CONTEXT_LINES):line]]
    frame["context_line"] = _trim(lines[line], column)
    frame["post_context"] = [_trim(text, None) for text in lines[line + 1:line + 1 + CONTEXT_LINES]]


def _trim(text: str, column: int | None) -> str:
    text = text.rstrip("\r\n")
    if len(text) <= MAX_LINE:
        return text
    start = max(0, min((column or 0) - MAX_LINE // 2, len(text) - MAX_LINE))
    return ("{snip} " if start else "") + text[start:start + MAX_LINE] + " {snip}"
