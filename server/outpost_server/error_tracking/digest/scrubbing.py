"""Sentry's default data scrubbing, applied to every event before anything of it is stored.

A value is replaced by `[Filtered]` when its field name contains one of Sentry's default sensitive
words (`password`, `token`, `auth`, ... matched case-insensitively and as a substring, as Sentry does,
so `author` is filtered too), and the request headers `Authorization`, `Cookie`, `Set-Cookie` and
`X-Api-Key` are always filtered. Names are looked for wherever events carry them: object keys at any
depth (frame variables, extra, contexts, breadcrumb data, user data), `[name, value]` pairs (headers,
tags, query strings as lists) and `name=value` strings (query strings, form bodies, cookies, and the query
of a URL: the request's, and any value named `url` at any depth, such as a breadcrumb's `data.url` of an
HTTP request the app made).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

FILTERED = "[Filtered]"
SENSITIVE_WORDS = ("password", "secret", "passwd", "api_key", "apikey", "access_token", "auth", "credentials",
                   "mysql_pwd", "privatekey", "private_key", "token", "session", "csrftoken", "sessionid")
SENSITIVE_HEADERS = frozenset({"authorization", "cookie", "set_cookie", "x_api_key"})
# A frame's source lines: text, never names with values (Sentry's scrubbing leaves them alone too), and
# the bulk of most events, so the walk does not go through them.
_SOURCE_LINES = frozenset({"pre_context", "post_context", "context_line"})
# Request fields that hold `name=value` text.
_QUERY_FIELDS = ("query_string", "data")


# Events repeat the same few hundred field names; remembering the answers makes the walk cheap.
_ANSWERS: dict[str, bool] = {}
_MAX_ANSWERS = 4096


def is_sensitive(name: Any) -> bool:
    if type(name) is not str:
        return isinstance(name, str) and _classify(str(name))
    answer = _ANSWERS.get(name)
    return _classify(name) if answer is None else answer


def _classify(name: str) -> bool:
    folded = name.lower().replace("-", "_")
    answer = folded in SENSITIVE_HEADERS or any(word in folded for word in SENSITIVE_WORDS)
    if len(_ANSWERS) >= _MAX_ANSWERS:
        _ANSWERS.clear()
    _ANSWERS[name] = answer
    return answer


class _Scrubber:
    def __init__(self) -> None:
        self.changed = False

    def filtered(self, value: Any) -> Any:
        if value is None or value == FILTERED:
            return value
        self.changed = True
        return FILTERED

    def walk(self, value: dict | list) -> None:
        # Scalars are never descended into (no call per leaf): most of an event is text, and this walk
        # runs for every event.
        answers = _ANSWERS
        if type(value) is dict:
            for key, item in value.items():
                sensitive = answers.get(key)
                if sensitive is None:
                    sensitive = is_sensitive(key)
                if sensitive:
                    value[key] = self.filtered(item)
                elif (type(item) is dict or type(item) is list) and key not in _SOURCE_LINES:
                    self.walk(item)
                elif key == "url" and type(item) is str and "?" in item:
                    value[key] = self.url(item)
        else:
            for item in value:
                kind = type(item)
                if kind is list:
                    if len(item) == 2 and is_sensitive(item[0]):
                        item[1] = self.filtered(item[1])
                    else:
                        self.walk(item)
                elif kind is dict:
                    self.walk(item)

    def pairs_text(self, text: str, separator: str) -> str:
        """`a=1&token=x` (or `a=1; session=x` for cookies) with the sensitive values filtered."""
        parts = text.split(separator)
        for index, part in enumerate(parts):
            name, equals, value = part.partition("=")
            if equals and value and value != FILTERED and is_sensitive(name.strip()):
                parts[index] = f"{name}={FILTERED}"
                self.changed = True
        return separator.join(parts)

    def url(self, url: str) -> str:
        try:
            parts = urlsplit(url)
            pairs = parse_qsl(parts.query, keep_blank_values=True)
        except ValueError:
            return url
        if not any(is_sensitive(name) and value not in ("", FILTERED) for name, value in pairs):
            return url
        self.changed = True
        cleaned = [(name, FILTERED if is_sensitive(name) and value else value) for name, value in pairs]
        return urlunsplit(parts._replace(query=urlencode(cleaned, safe="[]")))

    def request(self, request: dict[str, Any]) -> None:
        for name in _QUERY_FIELDS:
            if isinstance(request.get(name), str):
                request[name] = self.pairs_text(request[name], "&")
        if isinstance(request.get("cookies"), str):
            request["cookies"] = self.pairs_text(request["cookies"], ";")
        if isinstance(request.get("url"), str):
            request["url"] = self.url(request["url"])


def scrub_event(event: dict[str, Any]) -> bool:
    """Filters the event's sensitive values in place; True when anything was filtered."""
    scrubber = _Scrubber()
    for key in ("request", "sentry.interfaces.Http"):
        if isinstance(event.get(key), dict):
            scrubber.request(event[key])
    scrubber.walk(event)
    return scrubber.changed
