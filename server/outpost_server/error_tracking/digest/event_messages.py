"""An event's message: its template (what parameterised logging groups by) and its display text, with
`%` and `{}` placeholders interpolated from the params the way the SDKs' logging does, never failing."""

from __future__ import annotations

import re
from typing import Any

from outpost_server.error_tracking.digest.shapes import as_dict, as_str

_PERCENT_SPEC = re.compile(r"%(?:\(([^)]*)\))?([#0\- +]*)(\d{0,3})(\.\d{0,3})?([diouxXeEfFgGcrsa%])")
_BRACE_SPEC = re.compile(r"\{([A-Za-z_0-9]*)\}")


def format_message(template: str, params: Any) -> str:
    """Interpolate `%` or `{}` placeholders with the event's params, never failing.

    Written by hand rather than with `template % params`: widths like `%999999999d` from an
    untrusted payload must not allocate gigabytes.
    """
    if isinstance(params, list):
        positional = iter(params)

        def percent(match: re.Match[str]) -> str:
            if match.group(5) == "%":
                return "%"
            try:
                value = next(positional)
            except StopIteration:
                return match.group(0)
            return _render_spec(match, value)

        out = _PERCENT_SPEC.sub(percent, template)
        if out == template and "{" in template:
            values = iter(params)

            def brace(match: re.Match[str]) -> str:
                key = match.group(1)
                if key.isdigit():
                    index = int(key)
                    return str(params[index]) if index < len(params) else match.group(0)
                return str(next(values, match.group(0)))

            out = _BRACE_SPEC.sub(brace, template)
        return out
    if isinstance(params, dict):

        def named(match: re.Match[str]) -> str:
            if match.group(5) == "%":
                return "%"
            key = match.group(1)
            if key is None or key not in params:
                return match.group(0)
            return _render_spec(match, params[key])

        out = _PERCENT_SPEC.sub(named, template)
        return _BRACE_SPEC.sub(lambda m: str(params.get(m.group(1), m.group(0))), out)
    return template


def _render_spec(match: re.Match[str], value: Any) -> str:
    spec = "%" + match.group(2) + match.group(3) + (match.group(4) or "") + match.group(5)
    try:
        return spec % (value,)
    except (TypeError, ValueError, OverflowError):
        return str(value)


def message_template(event: dict[str, Any]) -> str | None:
    """The message without its parameters: what parameterised logging groups by."""
    for key in ("logentry", "sentry.interfaces.Message"):
        entry = as_dict(event.get(key))
        template = as_str(entry.get("message")) or as_str(entry.get("formatted"))
        if template:
            return template
    message = event.get("message")
    if isinstance(message, dict):
        return as_str(message.get("message")) or as_str(message.get("formatted"))
    return as_str(message)


def message_text(event: dict[str, Any]) -> str | None:
    """Display text: formatted log entry, then the template formatted with its params, then `message`."""
    for key in ("logentry", "sentry.interfaces.Message"):
        entry = as_dict(event.get(key))
        formatted = as_str(entry.get("formatted"))
        if formatted:
            return formatted
        template = as_str(entry.get("message"))
        if template:
            return format_message(template, entry.get("params"))
    message = event.get("message")
    if isinstance(message, dict):
        formatted = as_str(message.get("formatted"))
        if formatted:
            return formatted
        template = as_str(message.get("message"))
        return format_message(template, message.get("params")) if template else None
    return as_str(message)
