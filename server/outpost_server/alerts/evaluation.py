"""Evaluating the rules against what a stored batch did, inside the batch's transaction; and against cron
monitors that turned failing or recovered, inside the turn's.

Called once per batch with each touched error's activity (batch_outcome). The rules are cached per process
and reloaded only when the one-row rules version moves, so a batch of a project without rules costs one
primary-key read. For the errors a rule matches, one read of their counting windows and cooldowns, one
upsert of the hourly count per firing rule and the outbox rows: no per-event queries. Two writers of one
error are serialized by the error row's lock (batch_store), so a trigger is counted and written once.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import and_, bindparam, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from outpost_server.db import utcnow
from outpost_server.error_tracking.digest.batch_outcome import ErrorActivity, EventFacts
from outpost_server.monitors.state import MonitorTurn

from .models import (
    LEVELS,
    AlertDelivery,
    AlertErrorState,
    AlertHourlyCount,
    AlertRecipient,
    AlertRule,
    AlertRulesVersion,
)

RULES = AlertRule.__table__
# A window's distinct users are counted up to this many (the stored list is bounded).
USERS_COUNTED = 100
RECIPIENTS = AlertRecipient.__table__
STATES = AlertErrorState.__table__
VERSION = AlertRulesVersion.__table__


@dataclass(frozen=True)
class CachedRecipient:
    id: int
    channel: str
    target: str


@dataclass(frozen=True)
class CachedRule:
    id: int
    project_id: int
    timespan_minutes: int | None
    quantity: int | None
    users: int | None
    on_new_error: bool
    on_regression: bool
    on_monitor_failure: bool
    monitor_slug: str | None
    environments: frozenset[str]
    min_level: int
    release: str | None
    cooldown: dt.timedelta
    hourly_cap: int
    recipients: tuple[CachedRecipient, ...]

    def matches(self, event: EventFacts) -> bool:
        if self.environments and event.environment not in self.environments:
            return False
        if self.release is not None and event.release != self.release:
            return False
        return level_rank(event.level) >= self.min_level

    @property
    def counts(self) -> bool:
        return bool(self.timespan_minutes and (self.quantity or self.users))


def level_rank(level: str | None) -> int:
    # Levels outside Sentry's five (e.g. "critical") count as errors.
    return LEVELS.index(level) if level in LEVELS else LEVELS.index("error")


class _RuleCache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version: int | None = None
        self._by_project: dict[int, list[CachedRule]] = {}

    def rules(self, connection: Connection) -> dict[int, list[CachedRule]]:
        version = connection.execute(select(VERSION.c.version).where(VERSION.c.id == 1)).scalar()
        with self._lock:
            if version != self._version:
                self._by_project = _load_rules(connection)
                self._version = version
            return self._by_project


def _load_rules(connection: Connection) -> dict[int, list[CachedRule]]:
    recipients: dict[int, list[CachedRecipient]] = defaultdict(list)
    for row in connection.execute(select(RECIPIENTS).order_by(RECIPIENTS.c.id)).mappings():
        recipients[row["rule_id"]].append(CachedRecipient(row["id"], row["recipient_type"], row["target"]))
    rules: dict[int, list[CachedRule]] = defaultdict(list)
    for row in connection.execute(select(RULES).order_by(RULES.c.id)).mappings():
        if not recipients[row["id"]]:
            continue
        rules[row["project_id"]].append(CachedRule(
            id=row["id"], project_id=row["project_id"], timespan_minutes=row["timespan_minutes"],
            quantity=row["quantity"], users=row["users"], on_new_error=row["on_new_error"],
            on_regression=row["on_regression"], on_monitor_failure=row["on_monitor_failure"],
            monitor_slug=row["monitor_slug"], environments=frozenset(row["environments"] or ()),
            min_level=level_rank(row["min_level"]) if row["min_level"] else 0, release=row["release"],
            cooldown=dt.timedelta(minutes=row["cooldown_minutes"]), hourly_cap=row["hourly_cap"],
            recipients=tuple(recipients[row["id"]])))
    return dict(rules)


_cache = _RuleCache()


@dataclass
class _State:
    window_started_at: dt.datetime | None = None
    window_events: int = 0
    window_users: tuple[str, ...] = ()
    last_fired_at: dt.datetime | None = None
    held_back: int = 0


def evaluate_batch(connection: Connection, activity: list[ErrorActivity]) -> None:
    by_project = _cache.rules(connection)
    pairs = [(rule, item, matched) for item in activity for rule in by_project.get(item.project_id, ())
             if (matched := [event for event in item.events if rule.matches(event)])]
    if not pairs:
        return
    now = utcnow()
    states = _read_states(connection, {(rule.id, item.error_id) for rule, item, _ in pairs})
    fired: dict[int, list[tuple[CachedRule, ErrorActivity, str, dict]]] = defaultdict(list)
    new_states: dict[tuple[int, int], _State] = {}
    for rule, item, matched in pairs:
        key = (rule.id, item.error_id)
        state = states.get(key) or _State()
        trigger, details = _decide(rule, item, matched, state, now)
        if trigger is not None:
            state.last_fired_at = now
            fired[rule.id].append((rule, item, trigger, details))
        if trigger is not None or rule.counts or state.held_back:
            new_states[key] = state
    _write_states(connection, states, new_states)
    for firings in fired.values():
        _write_outbox(connection, firings, now, _allowed_by_cap(connection, firings[0][0], len(firings), now))


def evaluate_monitor_turns(session: Session, turns: list[MonitorTurn]) -> None:
    """"A monitor fails": an outbox row per recipient of each matching rule, in the turn's transaction (the
    environment's row lock makes a turn happen once, so it is notified once). No cooldown: a monitor only
    turns failing again after it recovered."""
    connection = session.connection()
    by_project = _cache.rules(connection)
    now = utcnow()
    rows = [_delivery(rule, recipient, None, f"monitor_{'failure' if turn.kind == 'failing' else 'recovery'}",
                      {"monitor": turn.monitor_slug, "title": turn.monitor_name, "environment": turn.environment,
                       "status": turn.check_in_status}, now)
            for turn in turns for rule in by_project.get(turn.project_id, ())
            if rule.on_monitor_failure and rule.monitor_slug in (None, turn.monitor_slug)
            and (not rule.environments or turn.environment in rule.environments)
            for recipient in rule.recipients]
    if rows:
        connection.execute(insert(AlertDelivery), rows)


def _decide(rule: CachedRule, item: ErrorActivity, matched: list[EventFacts], state: _State, now: dt.datetime
            ) -> tuple[str | None, dict]:
    """The trigger this batch fires for the rule and error (at most one), updating the counting window.

    Every trigger's details carry the documented figures: `events` and `users` (distinct) of the batch, or of
    the window for a counting rule, and `window_minutes` (None without a window)."""
    latest = matched[-1]
    users = [event.user_key for event in matched if event.user_key]
    details: dict = {"title": item.title, "environment": latest.environment, "level": latest.level,
                     "release": latest.release, "events": len(matched), "users": len(set(users)),
                     "window_minutes": rule.timespan_minutes if rule.counts else None}
    candidates = []
    if rule.on_new_error and item.new:
        candidates.append("new_error")
    if rule.on_regression and item.regressed:
        candidates.append("regression")
    if rule.counts:
        window = dt.timedelta(minutes=rule.timespan_minutes or 0)
        if state.window_started_at is None or now - state.window_started_at > window:
            state.window_started_at, state.window_events, state.window_users = now, 0, ()
        state.window_events += len(matched)
        # Distinct users are remembered up to what the condition needs, and USERS_COUNTED for the figure.
        state.window_users = tuple(dict.fromkeys(state.window_users + tuple(users)))[
            : max(rule.users or 0, USERS_COUNTED)]
        if rule.quantity and state.window_events >= rule.quantity:
            candidates.append("frequency")
        elif rule.users and len(state.window_users) >= rule.users:
            candidates.append("users")
        details |= {"window_minutes": rule.timespan_minutes, "events": state.window_events,
                    "users": len(state.window_users)}
    if not candidates:
        return None, details
    if state.last_fired_at is not None and now - state.last_fired_at < rule.cooldown:
        state.held_back += 1
        return None, details
    if rule.counts:  # the next notification needs a window of its own
        state.window_started_at, state.window_events, state.window_users = None, 0, ()
    details["suppressed"], state.held_back = state.held_back, 0
    return candidates[0], details


def _read_states(connection: Connection, keys: set[tuple[int, int]]) -> dict[tuple[int, int], _State]:
    rule_ids = sorted({rule_id for rule_id, _ in keys})
    error_ids = sorted({error_id for _, error_id in keys})
    rows = connection.execute(select(STATES).where(STATES.c.rule_id.in_(rule_ids), STATES.c.error_id.in_(error_ids)))
    return {(row.rule_id, row.error_id): _State(row.window_started_at, row.window_events, tuple(row.window_users),
                                                row.last_fired_at, row.held_back)
            for row in rows if (row.rule_id, row.error_id) in keys}


def _write_states(connection: Connection, before: dict[tuple[int, int], _State],
                  after: dict[tuple[int, int], _State]) -> None:
    def values(state: _State) -> dict:
        return {"window_started_at": state.window_started_at, "window_events": state.window_events,
                "window_users": list(state.window_users), "last_fired_at": state.last_fired_at,
                "held_back": state.held_back}

    changed = [{"b_rule": key[0], "b_error": key[1], **values(state)}
               for key, state in sorted(after.items()) if key in before]
    added = [{"rule_id": key[0], "error_id": key[1], **values(state)}
             for key, state in sorted(after.items()) if key not in before]
    if changed:
        connection.execute(
            update(AlertErrorState).where(and_(AlertErrorState.rule_id == bindparam("b_rule"),
                                               AlertErrorState.error_id == bindparam("b_error")))
            .values({name: bindparam(name) for name in ("window_started_at", "window_events", "window_users",
                                                          "last_fired_at", "held_back")}), changed)
    if added:
        connection.execute(insert(AlertErrorState), added)


def _allowed_by_cap(connection: Connection, rule: CachedRule, count: int, now: dt.datetime) -> int:
    """How many of `count` new notifications fit under the rule's hourly cap (the count is kept atomically)."""
    hour = now.replace(minute=0, second=0, microsecond=0)
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(AlertHourlyCount).values(rule_id=rule.id, hour=hour, triggered=count)
    total = connection.execute(statement.on_conflict_do_update(
        index_elements=["rule_id", "hour"], set_={"triggered": AlertHourlyCount.triggered + count}
    ).returning(AlertHourlyCount.triggered)).scalar_one()
    before = total - count
    allowed = max(0, min(count, rule.hourly_cap - before))
    if allowed < count and before <= rule.hourly_cap:
        # The first notification held back this hour schedules the hour's one summary, sent when it ends.
        summary_at = hour + dt.timedelta(hours=1)
        connection.execute(insert(AlertDelivery), [
            _delivery(rule, recipient, None, "summary", {"hour": hour.isoformat()}, now, next_attempt_at=summary_at)
            for recipient in rule.recipients])
    return allowed


def _write_outbox(connection: Connection, firings: list[tuple[CachedRule, ErrorActivity, str, dict]],
                  now: dt.datetime, allowed: int) -> None:
    rows = [_delivery(rule, recipient, item.error_id, trigger, details, now)
            for rule, item, trigger, details in firings[:allowed] for recipient in rule.recipients]
    if rows:
        connection.execute(insert(AlertDelivery), rows)


def _delivery(rule: CachedRule, recipient: CachedRecipient, error_id: int | None, trigger: str, details: dict,
              now: dt.datetime, *, next_attempt_at: dt.datetime | None = None) -> dict:
    return {"rule_id": rule.id, "recipient_id": recipient.id, "project_id": rule.project_id, "error_id": error_id,
            "trigger": trigger, "channel": recipient.channel, "target": recipient.target, "details": details,
            "status": "pending", "attempts": 0, "next_attempt_at": next_attempt_at or now, "created_at": now}

