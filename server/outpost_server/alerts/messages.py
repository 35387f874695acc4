"""What a notification says, and how each channel carries it: email (text and HTML), the signed JSON webhook,
Slack/Mattermost, Discord and GitLab's HTTP alert endpoint. Plain functions of a Notice, no I/O."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

PAYLOAD_VERSION = "1"
SUBJECT_PREFIX = "[Outpost]"
# GitLab's alert severities for Sentry's levels.
GITLAB_SEVERITY = {"fatal": "critical", "error": "high", "warning": "medium", "info": "low", "debug": "info"}
LEVEL_COLOURS = {"fatal": 0xD1242F, "error": 0xE5533D, "warning": 0xE9A23B, "info": 0x2F81F7, "debug": 0x8B949E}


@dataclass
class Frame:
    filename: str | None
    function: str | None
    lineno: int | None

    def text(self) -> str:
        place = self.filename or "?"
        if self.lineno is not None:
            place += f":{self.lineno}"
        return f"{self.function or '?'} ({place})"


@dataclass
class ErrorFacts:
    id: int
    title: str
    culprit: str | None
    level: str
    status: str
    count: int
    users: int
    first_seen: str | None
    last_seen: str | None
    environment: str | None
    release: str | None
    url: str  # the error's details on the API, for scripts
    console_url: str  # the outpost:// link that opens the error in the console
    frames: list[Frame] = field(default_factory=list)


@dataclass
class Notice:
    delivery_id: int
    trigger: str
    rule_id: int
    rule_name: str
    rule_url: str
    project_id: int
    project_path: str
    project_name: str
    # The trigger's own figures: events and users in the batch or window, the window, what was held back.
    details: dict[str, Any]
    error: ErrorFacts | None
    created: str

    def headline(self) -> str:
        d = self.details
        return {
            "new_error": "New error",
            "regression": "Regression: a resolved error happened again",
            "frequency": f"{d.get('events')} events within {d.get('window_minutes')} minutes",
            "users": f"{d.get('users')} users within {d.get('window_minutes')} minutes",
            "summary": f"{d.get('suppressed')} more notifications held back by the hourly cap "
                       f"of rule \"{self.rule_name}\"",
            "monitor_failure": f"Monitor {d.get('monitor')} is failing in {d.get('environment')}: "
                               f"check-in {d.get('status')}",
            "monitor_recovery": f"Monitor {d.get('monitor')} recovered in {d.get('environment')}",
            "test": "Test notification",
        }.get(self.trigger, self.trigger)

    def title(self) -> str:
        return self.error.title if self.error else self.headline()

    def monitor_facts(self) -> list[tuple[str, str]]:
        if not self.trigger.startswith("monitor_"):
            return []
        return [("Monitor", str(self.details.get("monitor"))), ("Environment", str(self.details.get("environment"))),
                ("Check-in", str(self.details.get("status")))]

    def link(self) -> str:
        """The API's address of the error (or of the rule): http(s), for scripts and chat."""
        return self.error.url if self.error else self.rule_url

    def console_link(self) -> str | None:
        return self.error.console_url if self.error else None


def _facts(notice: Notice) -> list[tuple[str, str]]:
    facts = [("Project", notice.project_path), ("Trigger", notice.headline()), *notice.monitor_facts()]
    error = notice.error
    if error:
        facts += [("Level", error.level), ("Status", error.status), ("Events", str(error.count)),
                  ("Users", str(error.users))]
        if error.environment:
            facts.append(("Environment", error.environment))
        if error.release:
            facts.append(("Release", error.release))
        facts += [("First seen", error.first_seen or "-"), ("Last seen", error.last_seen or "-")]
    return facts


def console_error_link(base_url: str, project_path: str, error_id: int | str) -> str:
    """The ``outpost://HOST[:PORT]/GROUP/PROJECT/-/error_tracking/ID`` link that opens the error in the console,
    for the server at ``base_url`` (its public address, as in the API links). The scheme is left out (the
    console's saved profile for that address has it), and so is a default port."""
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    authority = host if parts.port in (None, {"http": 80, "https": 443}.get(parts.scheme)) else f"{host}:{parts.port}"
    return f"outpost://{authority}{parts.path.rstrip('/')}/{quote(project_path)}/-/error_tracking/{error_id}"


def _console_fact(notice: Notice) -> list[tuple[str, str]]:
    """Chat services link only http(s) in titles: the outpost:// link goes in a field, to copy."""
    console = notice.console_link()
    return [("Open in Outpost", console)] if console else []


# --- email ----------------------------------------------------------------------------------------------


def email_subject(notice: Notice) -> str:
    """A stable prefix (`[Outpost] group/project`) for filters, then what happened."""
    return f"{SUBJECT_PREFIX} {notice.project_path}: {notice.headline()}" + (
        f": {notice.error.title}" if notice.error else "")


def email_text(notice: Notice) -> str:
    lines = [notice.title(), ""]
    if notice.error and notice.error.culprit:
        lines += [notice.error.culprit, ""]
    lines += [f"{name}: {value}" for name, value in _facts(notice)]
    if notice.error and notice.error.frames:
        lines += ["", "Top application frames:"] + [f"  {frame.text()}" for frame in notice.error.frames]
    opening = [f"Open in Outpost: {console}"] if (console := notice.console_link()) else []
    lines += ["", *opening, f"API: {notice.link()}", "", f"Sent by Outpost for alert rule \"{notice.rule_name}\"."]
    return "\n".join(lines) + "\n"


def email_html(notice: Notice) -> str:
    e = html.escape
    rows = "".join(f"<tr><th align=\"left\">{e(name)}</th><td>{e(value)}</td></tr>" for name, value in _facts(notice))
    culprit = f"<p><code>{e(notice.error.culprit)}</code></p>" if notice.error and notice.error.culprit else ""
    frames = ""
    if notice.error and notice.error.frames:
        items = "".join(f"<li><code>{e(frame.text())}</code></li>" for frame in notice.error.frames)
        frames = f"<p>Top application frames:</p><ol>{items}</ol>"
    return (f"<html><body><h2>{e(notice.title())}</h2>{culprit}<table>{rows}</table>{frames}"
            f"<p>{_html_links(notice)}</p>"
            f"<p><small>Sent by Outpost for alert rule &quot;{e(notice.rule_name)}&quot;.</small></p>"
            f"</body></html>")


def _html_links(notice: Notice) -> str:
    api = f"<a href=\"{html.escape(notice.link(), quote=True)}\">API</a>"
    console = notice.console_link()
    if console is None:
        return api
    return f"<a href=\"{html.escape(console, quote=True)}\">Open in Outpost</a> ({api})"


# --- webhooks -------------------------------------------------------------------------------------------


def json_payload(notice: Notice) -> dict[str, Any]:
    """The signed webhook's body, version 1 (see the README's "Alerts" section)."""
    error = notice.error
    return {
        "version": PAYLOAD_VERSION,
        "delivery": notice.delivery_id,
        "created": notice.created,
        "rule": {"id": notice.rule_id, "name": notice.rule_name, "url": notice.rule_url},
        "trigger": {"kind": notice.trigger, "description": notice.headline(), **notice.details},
        "error": None if error is None else {
            "id": error.id, "title": error.title, "culprit": error.culprit, "level": error.level,
            "status": error.status, "count": error.count, "userCount": error.users,
            "firstSeen": error.first_seen, "lastSeen": error.last_seen, "environment": error.environment,
            "release": error.release, "url": error.url, "consoleUrl": error.console_url,
            "frames": [{"filename": f.filename, "function": f.function, "lineno": f.lineno} for f in error.frames],
        },
        "project": {"id": notice.project_id, "path": notice.project_path, "name": notice.project_name},
    }


def slack_payload(notice: Notice) -> dict[str, Any]:
    """Slack's incoming-webhook message (`text` and attachments), which Mattermost accepts as is."""
    colour = LEVEL_COLOURS.get(notice.error.level if notice.error else "info", 0x2F81F7)
    return {
        "text": f"Outpost alert: {notice.headline()}",
        "attachments": [{
            "title": notice.title()[:250], "title_link": notice.link(),
            "text": (notice.error.culprit or "") if notice.error else "",
            "color": f"#{colour:06x}", "mrkdwn_in": ["text"],
            "fields": [{"title": name, "value": value, "short": len(value) < 40}
                       for name, value in _facts(notice) + _console_fact(notice)],
        }],
    }


def discord_payload(notice: Notice) -> dict[str, Any]:
    colour = LEVEL_COLOURS.get(notice.error.level if notice.error else "info", 0x2F81F7)
    return {
        "content": f"Outpost alert: {notice.headline()}"[:2000],
        "embeds": [{
            "title": notice.title()[:256], "url": notice.link(),
            "description": ((notice.error.culprit or "") if notice.error else "")[:4096], "color": colour,
            "fields": [{"name": name, "value": value[:1024], "inline": len(value) < 40}
                       for name, value in _facts(notice) + _console_fact(notice)][:25],
        }],
    }


def gitlab_payload(notice: Notice) -> dict[str, Any]:
    """GitLab's HTTP endpoint alert: one alert per error (its fingerprint), so repeats update that alert."""
    error = notice.error
    payload: dict[str, Any] = {
        "title": notice.title()[:200],
        "description": email_text(notice),
        "start_time": notice.created,
        "severity": GITLAB_SEVERITY.get(error.level, "unknown") if error else "info",
        "fingerprint": f"outpost-error-{error.id}" if error else _fingerprint(notice),
        "monitoring_tool": "Outpost",
        "service": notice.project_path,
    }
    if error and error.environment:
        payload["gitlab_environment_name"] = error.environment
    if notice.trigger == "monitor_recovery":  # resolves the alert its failure opened
        payload["end_time"] = notice.created
    return payload


def _fingerprint(notice: Notice) -> str:
    if notice.trigger in ("monitor_failure", "monitor_recovery"):
        details = notice.details
        return f"outpost-monitor-{notice.project_id}-{details.get('monitor')}-{details.get('environment')}"
    return f"outpost-rule-{notice.rule_id}-{notice.trigger}"


def encode(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
