"""Reading and validating a rule as the API receives it: GlitchTip's ProjectAlertIn plus Outpost's extensions.

Keys are accepted in camelCase (GlitchTip's API) or snake_case. Every problem is collected into
field -> messages, so one 400 names all of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .models import LEVELS

# GlitchTip's "webhook" is its Slack-compatible webhook (Slack and Mattermost accept it).
# "assignee": an email to the member the error is assigned to (Sentry's "Issue Owners" target).
CHANNELS = ("email", "webhook", "discord", "json_webhook", "gitlab", "assignee")
URL_CHANNELS = ("webhook", "discord", "json_webhook", "gitlab")
MAX_TIMESPAN_MINUTES = 7 * 24 * 60
MAX_COOLDOWN_MINUTES = 7 * 24 * 60
MAX_HOURLY_CAP = 10_000
MAX_ADDRESSES = 50
DEFAULT_COOLDOWN_MINUTES = 60
DEFAULT_HOURLY_CAP = 30
_EMAIL = re.compile(r"\A[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+\Z")


class RuleInvalid(Exception):
    def __init__(self, messages: dict[str, list[str]]):
        super().__init__("; ".join(f"{name}: {', '.join(texts)}" for name, texts in messages.items()))
        self.messages = messages


@dataclass
class RecipientInput:
    recipient_type: str
    url: str = ""
    addresses: list[str] = field(default_factory=list)
    # GitLab's authorization key as given (None: keep the stored one, if any).
    authorization_key: str | None = None


@dataclass
class RuleInput:
    """Only the fields the request named (`fields`) are applied on update, as GlitchTip's `exclude_unset`."""

    fields: dict[str, Any]
    recipients: list[RecipientInput] | None


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


class _Reader:
    def __init__(self, body: dict[str, Any]):
        self.body = body
        self.errors: dict[str, list[str]] = {}

    def has(self, name: str) -> bool:
        return name in self.body or _camel(name) in self.body

    def raw(self, name: str) -> Any:
        return self.body[_camel(name)] if _camel(name) in self.body else self.body.get(name)

    def fail(self, name: str, message: str) -> None:
        self.errors.setdefault(_camel(name), []).append(message)

    def integer(self, name: str, *, low: int, high: int) -> int | None:
        value = self.raw(name)
        if value is None or value == "":
            return None
        if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).strip().isdecimal() \
                or len(str(value).strip()) > 9:
            self.fail(name, "A valid integer is required." if not str(value).strip().isdecimal()
                      else f"Ensure this value is between {low} and {high}.")
            return None
        number = int(value)
        if not low <= number <= high:
            self.fail(name, f"Ensure this value is between {low} and {high}.")
            return None
        return number

    def boolean(self, name: str) -> bool:
        value = self.raw(name)
        if value in (None, ""):
            return False
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        self.fail(name, "Must be a valid boolean.")
        return False

    def text(self, name: str, *, limit: int = 255) -> str | None:
        value = self.raw(name)
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(name, "Not a valid string.")
            return None
        if len(value) > limit:
            self.fail(name, f"Ensure this field has no more than {limit} characters.")
        return value.strip()


def read_rule(body: Any, *, partial: bool) -> RuleInput:
    """Validates a request body; raises RuleInvalid. `partial`: an update, where absent fields stay as they are."""
    if not isinstance(body, dict):
        raise RuleInvalid({"non_field_errors": ["Invalid data. Expected a dictionary."]})
    if _has_nul(body):  # PostgreSQL text cannot hold it
        raise RuleInvalid({"non_field_errors": ["Null characters are not allowed."]})
    reader = _Reader(body)
    fields: dict[str, Any] = {}
    if reader.has("name"):
        fields["name"] = reader.text("name") or ""
    for name, high in (("timespan_minutes", MAX_TIMESPAN_MINUTES), ("quantity", 1_000_000), ("users", 1_000_000)):
        if reader.has(name):
            fields[name] = reader.integer(name, low=1, high=high)
    for name in ("on_new_error", "on_regression", "on_monitor_failure"):
        if reader.has(name):
            fields[name] = reader.boolean(name)
    if reader.has("monitor_slug"):
        fields["monitor_slug"] = reader.text("monitor_slug", limit=50) or None
    if reader.has("uptime") and reader.boolean("uptime"):
        reader.fail("uptime", "Outpost has no uptime monitors; only false is accepted.")
    _read_filters(reader, fields)
    if reader.has("cooldown_minutes"):
        cooldown = reader.integer("cooldown_minutes", low=0, high=MAX_COOLDOWN_MINUTES)
        fields["cooldown_minutes"] = DEFAULT_COOLDOWN_MINUTES if cooldown is None else cooldown
    if reader.has("hourly_cap"):
        fields["hourly_cap"] = reader.integer("hourly_cap", low=1, high=MAX_HOURLY_CAP) or DEFAULT_HOURLY_CAP
    recipients = _read_recipients(reader) if reader.has("alert_recipients") else None
    if reader.errors:
        raise RuleInvalid(reader.errors)
    return RuleInput(fields=fields, recipients=recipients)


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(key) or _has_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    return False


def _read_filters(reader: _Reader, fields: dict[str, Any]) -> None:
    environments: list[str] | None = None
    if reader.has("environments"):
        value = reader.raw("environments")
        items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else None
        if items is None or not all(isinstance(item, str) for item in items):
            reader.fail("environments", "Expected a list of environment names.")
        else:
            environments = [item.strip() for item in items if item.strip()]
    elif reader.has("environment"):  # GlitchTip's single environment ("" matches all)
        single = reader.text("environment")
        environments = [single] if single else []
    if environments is not None:
        if any(len(name) > 255 for name in environments):
            reader.fail("environments", "Ensure each name has no more than 255 characters.")
        fields["environments"] = sorted(set(environments))
    if reader.has("min_level"):
        level = (reader.text("min_level") or "").lower() or None
        if level is not None and level not in LEVELS:
            reader.fail("min_level", f'"{level}" is not a valid choice; one of {", ".join(LEVELS)}.')
        fields["min_level"] = level
    if reader.has("release"):
        fields["release"] = reader.text("release") or None


def _read_recipients(reader: _Reader) -> list[RecipientInput]:
    value = reader.raw("alert_recipients")
    if value is None:
        return []
    if not isinstance(value, list):
        reader.fail("alert_recipients", "Expected a list of items.")
        return []
    recipients = []
    for index, item in enumerate(value):
        problems: list[str] = []
        recipient = _read_recipient(item, problems)
        for problem in problems:
            reader.fail("alert_recipients", f"{index}: {problem}")
        if recipient is not None:
            recipients.append(recipient)
    seen = set()
    for recipient in recipients:
        key = (recipient.recipient_type, recipient.url, tuple(recipient.addresses))
        if key in seen:
            reader.fail("alert_recipients", f"{recipient.recipient_type} {recipient.url} is listed twice.")
        seen.add(key)
    return recipients


def _read_recipient(item: Any, problems: list[str]) -> RecipientInput | None:
    if not isinstance(item, dict):
        problems.append("Expected an object.")
        return None
    kind = item.get("recipientType", item.get("recipient_type"))
    if kind not in CHANNELS:
        problems.append(f"recipientType {kind!r} is not supported; one of {', '.join(CHANNELS)}.")
        return None
    url = item.get("url") or ""
    if not isinstance(url, str) or len(url) > 2000:
        problems.append("url must be a string of at most 2000 characters.")
        return None
    recipient = RecipientInput(kind, url.strip())
    if kind in URL_CHANNELS:
        if not recipient.url.lower().startswith(("http://", "https://")):
            problems.append(f"{kind} needs an http(s) url.")
    elif recipient.url:
        problems.append("email takes addresses, not a url." if kind == "email" else f"{kind} takes no url.")
    addresses = item.get("addresses") or []
    if kind == "email":
        if not isinstance(addresses, list) or not all(isinstance(a, str) for a in addresses):
            problems.append("addresses must be a list of email addresses.")
            return None
        recipient.addresses = sorted({address.strip() for address in addresses if address.strip()})
        bad = [address for address in recipient.addresses if not _EMAIL.match(address)]
        if bad:
            problems.append(f"not an email address: {', '.join(bad)}")
        if len(recipient.addresses) > MAX_ADDRESSES:
            problems.append(f"at most {MAX_ADDRESSES} addresses.")
    elif addresses:
        problems.append(f"{kind} takes a url, not addresses." if kind in URL_CHANNELS
                        else f"{kind} takes no addresses.")
    key = item.get("authorizationKey", item.get("authorization_key"))
    if kind == "gitlab":
        if key is not None and (not isinstance(key, str) or not key.strip() or len(key) > 255):
            problems.append("authorizationKey must be GitLab's authorization key of the HTTP endpoint.")
        else:
            recipient.authorization_key = key.strip() if isinstance(key, str) else None
    elif key is not None:
        problems.append(f"{kind} takes no authorizationKey.")
    return recipient


def check_complete(values: dict[str, Any]) -> dict[str, list[str]]:
    """The rule as it will be saved: a condition, and the window its counting conditions need."""
    messages: dict[str, list[str]] = {}
    counting = [name for name in ("quantity", "users") if values.get(name)]
    if counting and not values.get("timespan_minutes"):
        messages["timespanMinutes"] = [f"Required with {' and '.join(counting)}."]
    if values.get("timespan_minutes") and not counting:
        messages["quantity"] = ["Required with timespanMinutes (or give users)."]
    if not (counting or values.get("on_new_error") or values.get("on_regression") or values.get("on_monitor_failure")):
        messages.setdefault("non_field_errors", []).append(
            "A rule needs a condition: quantity and timespanMinutes, users and timespanMinutes, onNewError, "
            "onRegression or onMonitorFailure.")
    return messages
