"""Turn a decoded Sentry event or session payload into the fields the server stores.

SDKs disagree on shapes (see the protocol reference §6): this module accepts every variant
and never raises on odd types; a field of the wrong type is treated as missing. Which error an event
belongs to is grouping.py's job, its message text event_messages.py's.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from outpost_server.error_tracking.digest.event_messages import message_text
from outpost_server.error_tracking.digest.event_tags import event_tags
from outpost_server.error_tracking.digest.grouping import exception_values, fingerprint_of, frames_of, in_app_frames
from outpost_server.error_tracking.digest.scrubbing import scrub_event
from outpost_server.error_tracking.digest.shapes import as_dict, as_str, clip, first_line
from outpost_server.error_tracking.ingest.protocol import normalize_event_id

MAX_TITLE = 255
MAX_CULPRIT = 255
MAX_VALUE = 1024
MAX_MESSAGE = 8192
MAX_SHORT = 255
DEFAULT_MESSAGE_TITLE = 100

_LEVEL_NAMES = {"fatal", "error", "warning", "info", "debug"}
_LEVEL_ALIASES = {"warn": "warning", "log": "info", "critical": "fatal", "err": "error"}
_PYTHON_LEVELS: dict[float, str] = {10: "debug", 20: "info", 30: "warning", 40: "error", 50: "fatal"}


# --- scalar fields --------------------------------------------------------------------------


def normalize_level(value: Any) -> str:
    """String, Python logging int (raven sends 40) or missing; defaults to `error`."""
    if isinstance(value, bool):
        return "error"
    if isinstance(value, (int, float)):
        return _PYTHON_LEVELS.get(value, "error")
    if isinstance(value, str):
        name = value.strip().lower()
        if name.isdecimal():
            return _PYTHON_LEVELS.get(int(name), "error")
        name = _LEVEL_ALIASES.get(name, name)
        if name in _LEVEL_NAMES:
            return name
    return "error"


_FRACTION = re.compile(r"(\.\d{1,6})\d*")


def parse_timestamp(value: Any) -> dt.datetime | None:
    """Epoch seconds (float, int or numeric string) or ISO 8601 with or without a zone (UTC)."""
    try:
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            seconds = float(value)
        elif isinstance(value, str):
            text = value.strip()
            try:
                seconds = float(text)
            except ValueError:
                try:
                    parsed = dt.datetime.fromisoformat(text)
                except ValueError:
                    # Go sends nanoseconds: keep microseconds for fromisoformat.
                    parsed = dt.datetime.fromisoformat(_FRACTION.sub(r"\1", text.replace("z", "Z"), count=1))
                if parsed.tzinfo is None:
                    parsed = parsed.replace(tzinfo=dt.timezone.utc)
                return parsed.astimezone(dt.timezone.utc)
        else:
            return None
        if seconds != seconds:  # NaN
            return None
        if seconds > 1e11:  # milliseconds
            seconds /= 1000.0
        return dt.datetime.fromtimestamp(seconds, dt.timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None


def _crash_frame(frames: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last in-app frame with a function, else the last frame with a function."""
    for want_in_app in (True, False):
        for frame in reversed(frames):
            if as_str(frame.get("function")) and (frame.get("in_app") is True or not want_in_app):
                return frame
    return frames[-1] if frames else None


def _frame_location(frame: dict[str, Any], platform: str | None) -> str | None:
    function = as_str(frame.get("function"))
    where = as_str(frame.get("module")) or as_str(frame.get("filename")) or as_str(frame.get("abs_path"))
    if platform in ("javascript", "node"):
        return f"{function or '?'}({where})" if where else function
    if platform in ("native", "cocoa"):
        return function
    if where:
        return f"{where} in {function or '?'}"
    return function


# --- the normalised event -------------------------------------------------------------------


@dataclass
class NormalizedEvent:
    event_id: str
    occurred_at: dt.datetime
    level: str
    platform: str | None
    kind: str  # "error" or "default"
    title: str
    culprit: str | None
    exception_type: str | None
    message: str | None
    fingerprint: str
    release: str | None
    environment: str | None
    user_key: str | None
    # The event JSON exactly as received (re-serialised only when scrubbing or symbolication changed it);
    # what is stored. The decoded dict is not kept: a decode process would only send it back for nothing.
    raw_payload: bytes | None = None
    tags: list[tuple[str, str]] = field(default_factory=list)


def _user_key(user: dict[str, Any], client_ip: str | None) -> str | None:
    """Distinct-user identity: id, else email, else username, else IP address."""
    for name in ("id", "email", "username"):
        value = as_str(user.get(name))
        if value:
            return f"{name}:{value}"[:MAX_SHORT]
    ip = as_str(user.get("ip_address"))
    if ip == "{{auto}}":
        ip = client_ip
    return f"ip:{ip}"[:MAX_SHORT] if ip else None



def normalize_event(
    event: dict[str, Any],
    *,
    received_at: dt.datetime,
    envelope_event_id: str | None = None,
    client_ip: str | None = None,
    raw_payload: bytes | None = None,
    symbolicate: Callable[[dict[str, Any]], bool] | None = None,
) -> NormalizedEvent:
    """Derive title, culprit, type and fingerprint the way Sentry and GlitchTip do (reference §6.5), once.

    In Sentry's order: sensitive values are filtered first (scrubbing.py), then `symbolicate` maps the
    frames in place and says whether it changed anything, and only then is anything derived, so nothing
    derived or stored carries a filtered value and titles, culprits and fingerprints follow the original
    code. (Sentry scrubs again after its stacktrace processing for the user names it may put in file
    paths; source maps add paths, positions, names and source lines, which scrubbing leaves alone.)
    """
    changed = scrub_event(event)
    if symbolicate is not None and symbolicate(event):
        changed = True
    if changed or raw_payload is None:
        raw_payload = json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()
    event_id = envelope_event_id or normalize_event_id(event.get("event_id")) or uuid.uuid4().hex
    occurred_at = parse_timestamp(event.get("timestamp")) or received_at
    platform = clip(as_str(event.get("platform")), MAX_SHORT)
    values = exception_values(event)
    exception_type = None
    if values:
        raised = values[-1]
        synthetic = as_dict(raised.get("mechanism")).get("synthetic") is True
        exception_type = None if synthetic else as_str(raised.get("type"))
        value = as_str(raised.get("value"))
        frames = frames_of(raised)
        crash = _crash_frame(frames)
        if exception_type:
            title = f"{exception_type}: {first_line(value)}" if value and first_line(value) else exception_type
        else:
            title = (crash and as_str(crash.get("function"))) or (value and first_line(value)) or "<unknown>"
        kind = "error"
        culprit_frames = in_app_frames(frames)
        generated = _frame_location(culprit_frames[-1], platform) if culprit_frames else None
        # A message sent with a synthetic exception (a stack, no type) is read by its message text.
        detail = clip((not exception_type and message_text(event)) or value, MAX_VALUE)
    else:
        message = message_text(event)
        title = clip(first_line(message or ""), DEFAULT_MESSAGE_TITLE) or "<unlabeled event>"
        kind = "default"
        generated = None
        detail = clip(message, MAX_MESSAGE)
    culprit = (
        as_str(event.get("culprit"))
        or as_str(event.get("transaction"))
        or generated
        or as_str(as_dict(event.get("request")).get("url"))
    )
    level = normalize_level(event.get("level"))
    release = clip(as_str(event.get("release")), MAX_SHORT)
    environment = clip(as_str(event.get("environment")), MAX_SHORT)
    user_key = _user_key(as_dict(event.get("user")), client_ip)
    return NormalizedEvent(
        event_id=event_id,
        occurred_at=occurred_at,
        level=level,
        platform=platform,
        kind=kind,
        title=clip(title, MAX_TITLE) or "<unknown>",
        culprit=clip(culprit, MAX_CULPRIT),
        exception_type=clip(exception_type, MAX_SHORT),
        message=detail,
        fingerprint=fingerprint_of(event),
        release=release,
        environment=environment,
        user_key=user_key,
        raw_payload=raw_payload,
        tags=event_tags(event, level=level, release=release, environment=environment, user_key=user_key),
    )
