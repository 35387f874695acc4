"""Sentry's default data scrubbing, applied to every event before anything of it is stored.

A value is replaced by `[Filtered]` when its field name contains one of Sentry's default sensitive
words (`password`, `token`, `auth`, ... matched case-insensitively and as a substring, as Sentry does,
so `author` is filtered too), and the request headers `Authorization`, `Cookie`, `Set-Cookie` and
`X-Api-Key` are always filtered. Names are looked for wherever events carry them: object keys at any
depth (frame variables, extra, contexts, breadcrumb data, user data), `[name, value]` pairs (headers,
tags, query strings as lists) and `name=value` strings (query strings, form bodies, cookies, and the query
of a URL: the request's, and any value named `url` at any depth, such as a breadcrumb's `data.url` of an
HTTP request the app made).

Values are scrubbed too, as Relay's default rules (`@common:filter`) scrub the fields its legacy data
scrubber reaches (extra, user, request data, cookies and headers but the user agent, breadcrumb messages
and data, frame variables, log entry parameters, and contexts of a type Relay does not know: its `Other`
context is pii = true, its device, os, runtime, app, browser, gpu, trace… contexts are not): a card number
(`@creditcard`), an IBAN, a PEM key's
body, a US social security number, a URL's password (`@urlauth:legacy`: `postgres://u:[Filtered]@db`), a
user's name in a home path (`@userpath`: `/home/[Filtered]/…`) and a `Bearer` token are replaced by
`[Filtered]`, and a value holding a sensitive word or a `token…=` (`@password`'s pattern on values) is
`[Filtered]` whole. The message (Relay's `$logentry.formatted`) gets Relay's replace-only rules (`[email]`,
`[creditcard]`, `[iban]`, `[us-ssn]`, a bearer token) and, Outpost's addition, its URLs' passwords and
sensitive query values filtered. Exception values, frames' paths and source lines are left alone, as
Relay leaves them, and so are tag values (Relay's `Event.tags` is pii = maybe, which its default rules do
not reach; a tag whose name is sensitive is still filtered by the name rule above).
"""

from __future__ import annotations

import re
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


# Relay's default value rules (relay-pii's regexes.rs), each with the group it replaces (0: the match).
_CARD = re.compile(r"\b((?:3[47][0-9]|4[0-9]{3}|5[1-5][0-9]{2}|65[0-9]{2}|6011)(?:[-\s]?[0-9]){12})\b")
_IBAN = re.compile(
    r"\b(?:AT|AD|AE|AL|AZ|BA|BE|BG|BH|BR|BY|CH|CR|CY|CZ|DE|DK|DO|EE|EG|ES|FI|FO|FR|GB|GE|GI|GL|GR|GT|HR|HU|IE|IL|"
    r"IQ|IS|IT|JO|KW|KZ|LB|LC|LI|LT|LU|LV|LY|MC|MD|ME|MK|MR|MT|MU|NL|NO|PK|PL|PS|PT|QA|RO|RU|RS|SA|SC|SE|SI|SK|SM|"
    r"ST|SV|TL|TN|TR|UA|VA|VG|XK|DZ|AO|BJ|BF|BI|CV|CM|CF|TD|KM|CG|CI|DJ|GQ|GA|GW|HN|IR|MG|ML|MA|MZ|NI|NE|SN|TG)"
    r"[0-9]{2}[a-zA-Z0-9]{11,29}\b")
_PEM_KEY = re.compile(r"(?s)-----BEGIN[A-Z ]+(?:PRIVATE|PUBLIC) KEY-----[\t ]*\r?\n?(.+?)\r?\n?"
                      r"-----END[A-Z ]+(?:PRIVATE|PUBLIC) KEY-----")
_US_SSN = re.compile(r"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b")
_URL_PASSWORD = re.compile(r"\b(?:[a-z0-9]+:)?//[a-zA-Z0-9%_.-]+:([a-zA-Z0-9%_.-]+)@")
_USER_PATH = re.compile(r"(?i)(?:\b(?:[a-z]:[\\/])?(?:users|home|documents and settings|[^/\\]+[/\\]profiles)[\\/]"
                        r"|/(?:home|users)/)([^/\\\r\n\x00]+)")
_BEARER = re.compile(r"(?i)\bBearer\s+[^\s]+")
_EMAIL = re.compile(r"\b[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*\.[a-zA-Z]{2,}\b")
_PASSWORD_VALUE = re.compile(r"(?i)password|secret|passwd|api[-_]key|apikey|auth|credentials|mysql_pwd|privatekey"
                             r"|private[-_]key|token[^\s]*[:=]|^otp$|^two[-_]factor$")
# Outpost's addition for messages: `name=value` after `?` or `&`, a URL's query written in text.
_QUERY_PAIR = re.compile(r"([?&])([^=&#\s]+)=([^&#\s]*)")
# What _PASSWORD_VALUE and the value rules need, in lowercase ASCII: the words (a value without them, like
# most, is passed by one search instead of five) and two digits in a row (card numbers, IBANs, SSNs). Text
# with other characters takes every rule: their case-insensitive matching knows more than lowercasing.
_WORDS_NEEDED = re.compile(r"password|secret|passwd|api[-_]key|apikey|auth|credentials|mysql_pwd|privatekey"
                           r"|private[-_]key|token|otp|two[-_]factor|users|home|profiles|documents and settings"
                           r"|//|-----begin|bearer")
_DIGITS_NEEDED = re.compile(r"[0-9]{2}")
_VALUE_RULES = ((_CARD, 0), (_IBAN, 0), (_PEM_KEY, 1), (_URL_PASSWORD, 1), (_USER_PATH, 1), (_US_SSN, 0),
                (_BEARER, 0))
_DIGIT_RULES = (_CARD, _IBAN, _US_SSN)
# A URL's password first, so that `user:password@host` is not read as an email address.
_MESSAGE_RULES = ((_URL_PASSWORD, 1, FILTERED), (_EMAIL, 0, "[email]"), (_CARD, 0, "[creditcard]"),
                  (_IBAN, 0, "[iban]"), (_US_SSN, 0, "[us-ssn]"), (_BEARER, 0, FILTERED))
# Where the value rules apply: the fields Relay's legacy scrubber reaches (pii = true).
_VALUE_FIELDS = ("extra", "user")
_REQUEST_VALUE_FIELDS = ("data", "query_string", "cookies", "env", "headers")
_MESSAGE_KEYS = ("logentry", "sentry.interfaces.Message", "message")
# The context types Relay reads into a typed context (relay-event-schema's `Context` variants), whose
# fields its default rules leave alone; a context's type is its `type`, or else its key.
KNOWN_CONTEXT_TYPES = frozenset({"device", "os", "runtime", "app", "browser", "gpu", "trace", "monitor",
                                 "reprocessing", "response", "otel", "cloud_resource", "profile", "replay"})


def _replaced(pattern: re.Pattern[str], group: int, text: str, replacement: str) -> str:
    if group == 0:
        return pattern.sub(replacement, text)
    return pattern.sub(lambda match: match.group(0)[:match.start(group) - match.start(0)] + replacement
                       + match.group(0)[match.end(group) - match.start(0):], text)


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

    def text(self, text: str, *, whole: bool = True) -> str:
        """A value with Relay's default value rules applied; without `whole`, a sensitive word does not
        filter the whole value (`name=value` text whose sensitive pairs are filtered already)."""
        if text == FILTERED:
            return text
        words = digits = True
        if text.isascii():
            words, digits = bool(_WORDS_NEEDED.search(text.lower())), bool(_DIGITS_NEEDED.search(text))
            if not (words or digits):
                return text
        if whole and words and _PASSWORD_VALUE.search(text):
            self.changed = True
            return FILTERED
        scrubbed = text
        for pattern, group in _VALUE_RULES:
            if (digits if pattern in _DIGIT_RULES else words) and pattern.search(scrubbed):
                scrubbed = _replaced(pattern, group, scrubbed, FILTERED)
        if scrubbed != text:
            self.changed = True
        return scrubbed

    def message(self, text: str) -> str:
        scrubbed = text
        for pattern, group, replacement in _MESSAGE_RULES:
            if pattern.search(scrubbed):
                scrubbed = _replaced(pattern, group, scrubbed, replacement)
        scrubbed = _QUERY_PAIR.sub(lambda match: match.group(0) if not is_sensitive(match.group(2))
                                   or match.group(3) in ("", FILTERED)
                                   else f"{match.group(1)}{match.group(2)}={FILTERED}", scrubbed)
        if scrubbed != text:
            self.changed = True
        return scrubbed

    def values(self, value: Any) -> Any:
        """`value` with every string in it scrubbed by the value rules (containers changed in place)."""
        if type(value) is str:
            return self.text(value)
        if type(value) is dict:
            for key, item in value.items():
                # A URL's sensitive query values are filtered already (url()); its address stays.
                value[key] = self.text(item, whole=False) if key == "url" and type(item) is str else self.values(item)
        elif type(value) is list:
            for index, item in enumerate(value):
                value[index] = self.values(item)
        return value

    def event_values(self, event: dict[str, Any]) -> None:
        for name in _VALUE_FIELDS:
            if name in event:
                event[name] = self.values(event[name])
        for key in ("request", "sentry.interfaces.Http"):
            request = event.get(key)
            if type(request) is dict:
                for name in _REQUEST_VALUE_FIELDS:
                    if name == "headers" and type(request.get(name)) in (dict, list):
                        self.headers(request[name])
                    elif type(request.get(name)) is str:
                        request[name] = self.text(request[name], whole=False)
                    elif name in request:
                        request[name] = self.values(request[name])
        crumbs = event.get("breadcrumbs")
        for crumb in (crumbs.get("values") if type(crumbs) is dict else crumbs) or ():
            if type(crumb) is dict:
                for name in ("message", "data"):
                    if name in crumb:
                        crumb[name] = self.values(crumb[name])
        contexts = event.get("contexts")
        if type(contexts) is dict:
            for key, context in contexts.items():
                if type(context) is dict and context.get("type", key) not in KNOWN_CONTEXT_TYPES:
                    contexts[key] = self.values(context)
        for frame in _frames(event):
            if "vars" in frame:
                frame["vars"] = self.values(frame["vars"])
        for key in _MESSAGE_KEYS:
            entry = event.get(key)
            if type(entry) is str:
                event[key] = self.message(entry)
            elif type(entry) is dict:
                for name in ("message", "formatted"):
                    if type(entry.get(name)) is str:
                        entry[name] = self.message(entry[name])
                if "params" in entry:
                    entry["params"] = self.values(entry["params"])

    def headers(self, headers: dict | list) -> None:
        """Every header but the user agent (Relay leaves `$http.headers.user-agent` alone)."""
        if type(headers) is dict:
            for name, value in headers.items():
                if not _is_user_agent(name):
                    headers[name] = self.values(value)
            return
        for pair in headers:
            if type(pair) is list and len(pair) == 2 and not _is_user_agent(pair[0]):
                pair[1] = self.values(pair[1])

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
    scrubber.event_values(event)
    return scrubber.changed


def _is_user_agent(name: Any) -> bool:
    return isinstance(name, str) and name.lower() == "user-agent"


def _frames(event: dict[str, Any]) -> list[dict[str, Any]]:
    """Every stack frame of the event's exceptions, threads and stack trace."""
    stacks = []
    for key in ("exception", "threads"):
        holder = event.get(key)
        entries = holder.get("values") if type(holder) is dict else holder
        for entry in entries if type(entries) is list else ():
            if type(entry) is dict:
                stacks.append(entry.get("stacktrace"))
    stacks.append(event.get("stacktrace"))
    return [frame for stack in stacks if type(stack) is dict and type(stack.get("frames")) is list
            for frame in stack["frames"] if type(frame) is dict]
