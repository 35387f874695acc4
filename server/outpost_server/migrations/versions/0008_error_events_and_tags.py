"""Error tracking: the events of an error in time order, each event's tags, and tag value counts per error.

Events stored before this revision are counted in the tags their rows know (level, release, environment,
user), and the payloads they kept are scrubbed by Sentry's default rules, as new events were when this
revision was written. Those rules are written out here (not imported from the digest), so what this revision
does never changes with later scrubbing.

Revision ID: 0008_error_events_and_tags
Revises: 0007_error_tracking_retention
"""
import json
import time
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import sqlalchemy as sa
from alembic import context, op

from outpost_server.db import UTCDateTime

revision = "0008_error_events_and_tags"
down_revision = "0007_error_tracking_retention"
branch_labels = None
depends_on = None


def _error_id(primary_key: bool = False) -> sa.Column:
    return sa.Column("error_id", sa.Integer, sa.ForeignKey("error_tracking_errors.id", ondelete="CASCADE"),
                     nullable=False, primary_key=primary_key)


def upgrade() -> None:
    op.create_index("ix_error_tracking_error_events_timeline", "error_tracking_error_events",
                    ["error_id", "occurred_at", "id"])
    op.create_table(
        "error_tracking_event_tags",
        sa.Column("id", sa.Integer, primary_key=True),
        _error_id(),
        sa.Column("event_id", sa.String(32), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("value", sa.String(200), nullable=False),
    )
    op.create_index("ix_error_tracking_event_tags_lookup", "error_tracking_event_tags",
                    ["error_id", "key", "value", "event_id"])
    op.create_index("ix_error_tracking_event_tags_event", "error_tracking_event_tags", ["event_id", "error_id"])
    op.create_table(
        "error_tracking_error_tag_values",
        _error_id(primary_key=True),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("value", sa.String(200), primary_key=True),
        sa.Column("times_seen", sa.Integer, nullable=False),
        sa.Column("first_seen_at", UTCDateTime, nullable=False),
        sa.Column("last_seen_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_error_tracking_error_tag_values_top", "error_tracking_error_tag_values",
                    ["error_id", "key", "times_seen"])
    connection = op.get_bind()
    _tags_from_event_rows(connection)
    _scrub_kept_payloads(connection)


MAX_TAG = 200
SCRUB_BATCH = 500
PROGRESS_SECONDS = 5.0


def _tags_from_event_rows(connection: sa.Connection) -> None:
    """Counts of the tags the event rows hold as columns (they are not repeated as tag rows)."""
    events = sa.table("error_tracking_error_events", *(sa.column(name) for name in (
        "error_id", "occurred_at", "level", "release", "environment", "user_key")))
    counts = sa.table("error_tracking_error_tag_values", *(sa.column(name) for name in (
        "error_id", "key", "value", "times_seen", "first_seen_at", "last_seen_at")))
    for key, column in (("level", events.c.level), ("release", events.c.release),
                        ("environment", events.c.environment), ("user", events.c.user_key)):
        value = sa.func.substr(column, 1, MAX_TAG)
        connection.execute(counts.insert().from_select(
            ["error_id", "key", "value", "times_seen", "first_seen_at", "last_seen_at"],
            sa.select(events.c.error_id, sa.literal(key, sa.String), value, sa.func.count(),
                      sa.func.min(events.c.occurred_at), sa.func.max(events.c.occurred_at))
            .where(column.is_not(None)).group_by(events.c.error_id, value)))


def _scrub_kept_payloads(connection: sa.Connection) -> None:
    payloads = sa.table("error_tracking_event_payloads", sa.column("id"), sa.column("payload", sa.LargeBinary))
    report = context.config.attributes.get("report") or (lambda line: None)
    total = connection.execute(sa.select(sa.func.count()).select_from(payloads)).scalar_one()
    last_id, done, said_at = 0, 0, time.monotonic()
    while True:
        rows = connection.execute(sa.select(payloads.c.id, payloads.c.payload).where(payloads.c.id > last_id)
                                  .order_by(payloads.c.id).limit(SCRUB_BATCH)).all()
        if not rows:
            return
        done += len(rows)
        if time.monotonic() - said_at >= PROGRESS_SECONDS:
            report(f"Migration 0008: {done:,} of {total:,} stored payloads scrubbed")
            said_at = time.monotonic()
        for row_id, blob in rows:
            last_id = row_id
            try:
                document = json.loads(blob)
            except ValueError:
                continue
            if isinstance(document, dict) and scrub_event(document):
                scrubbed = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
                connection.execute(payloads.update().where(payloads.c.id == row_id).values(payload=scrubbed))


FILTERED = "[Filtered]"
SENSITIVE_WORDS = ("password", "secret", "passwd", "api_key", "apikey", "access_token", "auth", "credentials",
                   "mysql_pwd", "privatekey", "private_key", "token", "session", "csrftoken", "sessionid")
SENSITIVE_HEADERS = frozenset({"authorization", "cookie", "set_cookie", "x_api_key"})
SOURCE_LINES = frozenset({"pre_context", "post_context", "context_line"})


def _sensitive(name: Any) -> bool:
    if not isinstance(name, str):
        return False
    folded = name.lower().replace("-", "_")
    return folded in SENSITIVE_HEADERS or any(word in folded for word in SENSITIVE_WORDS)


class _Scrub:
    """Sentry's default scrubbing: values under sensitive names (keys at any depth, [name, value] pairs,
    name=value text of query strings, form bodies, cookies and URLs' queries) become [Filtered]."""

    def __init__(self) -> None:
        self.changed = False

    def filtered(self, value: Any) -> Any:
        if value is None or value == FILTERED:
            return value
        self.changed = True
        return FILTERED

    def walk(self, value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if _sensitive(key):
                    value[key] = self.filtered(item)
                elif isinstance(item, (dict, list)) and key not in SOURCE_LINES:
                    self.walk(item)
                elif key == "url" and isinstance(item, str) and "?" in item:
                    value[key] = self.url(item)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, list) and len(item) == 2 and _sensitive(item[0]):
                    item[1] = self.filtered(item[1])
                elif isinstance(item, (dict, list)):
                    self.walk(item)

    def pairs(self, text: str, separator: str) -> str:
        parts = text.split(separator)
        for index, part in enumerate(parts):
            name, equals, value = part.partition("=")
            if equals and value and value != FILTERED and _sensitive(name.strip()):
                parts[index] = f"{name}={FILTERED}"
                self.changed = True
        return separator.join(parts)

    def url(self, url: str) -> str:
        try:
            parts = urlsplit(url)
            pairs = parse_qsl(parts.query, keep_blank_values=True)
        except ValueError:
            return url
        if not any(_sensitive(name) and value not in ("", FILTERED) for name, value in pairs):
            return url
        self.changed = True
        cleaned = [(name, FILTERED if _sensitive(name) and value else value) for name, value in pairs]
        return urlunsplit(parts._replace(query=urlencode(cleaned, safe="[]")))

    def request(self, request: dict[str, Any]) -> None:
        for name in ("query_string", "data"):
            if isinstance(request.get(name), str):
                request[name] = self.pairs(request[name], "&")
        if isinstance(request.get("cookies"), str):
            request["cookies"] = self.pairs(request["cookies"], ";")
        if isinstance(request.get("url"), str):
            request["url"] = self.url(request["url"])


def scrub_event(event: dict[str, Any]) -> bool:
    scrub = _Scrub()
    for key in ("request", "sentry.interfaces.Http"):
        if isinstance(event.get(key), dict):
            scrub.request(event[key])
    scrub.walk(event)
    return scrub.changed


def downgrade() -> None:
    op.drop_table("error_tracking_error_tag_values")
    op.drop_table("error_tracking_event_tags")
    op.drop_index("ix_error_tracking_error_events_timeline", "error_tracking_error_events")
