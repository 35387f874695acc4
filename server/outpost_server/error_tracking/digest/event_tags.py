"""The tags of an event, as Sentry derives them: its own tags plus the ones it promotes from the payload.

Promoted: level, release, environment, dist, server_name, logger, transaction, url (without its
query), user (`id:…`, `email:…`, `username:…` or `ip:…`), browser, os, runtime and device from the
contexts (each with its `.name`), handled and mechanism from the raised exception. Keys and values are
at most 200 characters; values with line breaks are dropped, as Sentry drops them.
"""

from __future__ import annotations

from typing import Any

MAX_TAG = 200


def tag_text(value: str) -> str:
    """A searched value as the counts hold it: stripped and cut to the length tags keep."""
    return value.strip()[:MAX_TAG]


def _text(value: Any) -> str | None:
    if type(value) is str:  # the common case first: this runs dozens of times per event
        stripped = value.strip()
        return stripped[:MAX_TAG] if stripped and "\n" not in value else None
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str) and value.strip() and "\n" not in value:
        return value.strip()[:MAX_TAG]
    return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _named(context: dict[str, Any], *, version_key: str = "version") -> tuple[str | None, str | None]:
    """(`Name Version`, `Name`) of a browser, os or runtime context."""
    name = _text(context.get("name"))
    version = _text(context.get(version_key))
    if name is None:
        return None, None
    return (f"{name} {version}"[:MAX_TAG] if version else name), name


def _custom_tags(event: dict[str, Any]) -> list[tuple[Any, Any]]:
    tags = event.get("tags")
    if isinstance(tags, dict):
        return list(tags.items())
    if isinstance(tags, list):
        return [tuple(pair) for pair in tags if isinstance(pair, list) and len(pair) == 2]
    return []


def _exception_tags(event: dict[str, Any]) -> list[tuple[str, str | None]]:
    exception = event.get("exception")
    values = exception.get("values") if isinstance(exception, dict) else exception
    raised = [value for value in values if isinstance(value, dict)][-1:] if isinstance(values, list) else []
    if not raised:
        return []
    mechanism = _dict(raised[0].get("mechanism"))
    handled = mechanism.get("handled")
    return [("handled", None if not isinstance(handled, bool) else ("yes" if handled else "no")),
            ("mechanism", _text(mechanism.get("type")))]


def event_tags(event: dict[str, Any], *, level: str, release: str | None, environment: str | None,
               user_key: str | None) -> list[tuple[str, str]]:
    """(key, value) pairs, each key once; the promoted tags first, then the event's own."""
    contexts = _dict(event.get("contexts"))
    browser, browser_name = _named(_dict(contexts.get("browser")))
    os_full, os_name = _named(_dict(contexts.get("os")))
    runtime, runtime_name = _named(_dict(contexts.get("runtime")))
    device = _dict(contexts.get("device"))
    url = _text(_dict(event.get("request")).get("url"))
    candidates: list[tuple[Any, Any]] = [
        ("level", level), ("release", release), ("environment", environment), ("dist", _text(event.get("dist"))),
        ("server_name", _text(event.get("server_name"))), ("logger", _text(event.get("logger"))),
        ("transaction", _text(event.get("transaction"))),
        ("url", url.split("?", 1)[0].split("#", 1)[0] if url else None), ("user", user_key),
        ("browser", browser), ("browser.name", browser_name), ("os", os_full), ("os.name", os_name),
        ("runtime", runtime), ("runtime.name", runtime_name),
        ("device", _text(device.get("model"))), ("device.family", _text(device.get("family"))),
        *_exception_tags(event),
        *_custom_tags(event),
    ]
    tags: dict[str, str] = {}
    for key, value in candidates:
        if value is None:
            continue
        key_text, value_text = _text(key), _text(value)
        if key_text and value_text and key_text not in tags:
            tags[key_text] = value_text
    return list(tags.items())
