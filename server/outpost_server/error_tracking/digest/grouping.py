"""Which error an event belongs to: its exceptions and frames, and the fingerprint that groups it.

The fingerprint is the SHA-1 of the client's fingerprint (with `{{ default }}` expanded) or of the
default grouping: the raised exception's type and in-app frames, its value when it has no frames, or
the message template.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from outpost_server.error_tracking.digest.event_messages import message_template
from outpost_server.error_tracking.digest.shapes import as_dict, as_list, as_str

_DEFAULT_MARKERS = {"{{ default }}", "{{default}}"}


def exception_values(event: dict[str, Any]) -> list[dict[str, Any]]:
    """`exception` as `{values: [...]}` or a bare list (Go, raven-node); only dict entries."""
    exception = event.get("exception")
    if exception is None:
        exception = event.get("sentry.interfaces.Exception")
    if isinstance(exception, dict):
        exception = exception.get("values")
    return [value for value in as_list(exception) if isinstance(value, dict)]


def frames_of(exception: dict[str, Any]) -> list[dict[str, Any]]:
    stacktrace = as_dict(exception.get("stacktrace"))
    return [frame for frame in as_list(stacktrace.get("frames")) if isinstance(frame, dict)]


def in_app_frames(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Frames marked in_app; all frames when the SDK marked none (raven-python omits the flag)."""
    marked = [frame for frame in frames if frame.get("in_app") is True]
    return marked or frames


def default_grouping(event: dict[str, Any]) -> list[str]:
    """The default fingerprint components (what `{{ default }}` expands to)."""
    values = exception_values(event)
    if values:
        raised = values[-1]
        exc_type = as_str(raised.get("type")) or "Error"
        frames = in_app_frames(frames_of(raised))
        if frames:
            parts = ["exception", exc_type]
            for frame in frames:
                where = (as_str(frame.get("module")) or as_str(frame.get("filename"))
                         or as_str(frame.get("abs_path")) or "")
                parts.append(f"{where}:{as_str(frame.get('function')) or ''}")
            return parts
        return ["exception", exc_type, as_str(raised.get("value")) or ""]
    template = message_template(event)
    return ["message", template or ""]


def fingerprint_of(event: dict[str, Any]) -> str:
    """SHA-1 of the client fingerprint (with `{{ default }}` expanded) or of the default grouping."""
    client = event.get("fingerprint")
    parts: list[str] = []
    if isinstance(client, list) and client:
        parts.append("custom")
        for part in client:
            text = part if isinstance(part, str) else json.dumps(part, sort_keys=True, default=str)
            if text.strip() in _DEFAULT_MARKERS:
                parts.extend(default_grouping(event))
            else:
                parts.append(text)
    else:
        parts = default_grouping(event)
    return hashlib.sha1(json.dumps(parts).encode()).hexdigest()
