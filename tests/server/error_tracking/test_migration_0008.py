"""Revision 0008 on a database holding events from before it: tags from the event rows, scrubbed payloads."""

from __future__ import annotations

import json

from alembic import command
from sqlalchemy import text

from outpost_server.db import make_engine
from outpost_server.migrations import alembic_config, upgrade_database

OLD_PAYLOAD = {"request": {"headers": {"Authorization": "Bearer OLD-SECRET"}}, "extra": {"password": "OLD-PW"}}


def test_events_from_before_get_tags_and_scrubbed_payloads(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    command.upgrade(alembic_config(engine), "0007_error_tracking_retention")
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO users (id, username, name, email, state, is_admin, created_at) "
                                "VALUES (1, 'u', 'U', 'u@example.com', 'active', 0, '2024-01-01 00:00:00')"))
        connection.execute(text(
            "INSERT INTO projects (id, name, path, full_path, description, visibility, creator_id, default_branch, "
            "monitor_access_level, created_at) VALUES (1, 'p', 'p', 'u/p', '', 'private', 1, 'main', 'enabled', "
            "'2024-01-01 00:00:00')"))
        connection.execute(text(
            "INSERT INTO error_tracking_errors (id, project_id, fingerprint, title, kind, level, count, users_count, "
            "first_seen_at, last_seen_at, status, regressed, stored_events, created_at, updated_at) VALUES (1, 1, "
            "'f', 'E', 'error', 'error', 2, 1, '2024-01-01 00:00:00', '2024-01-02 00:00:00', 'unresolved', 0, 1, "
            "'2024-01-01 00:00:00', '2024-01-02 00:00:00')"))
        for number, moment in ((1, "2024-01-01 00:00:00"), (2, "2024-01-02 00:00:00")):
            connection.execute(text(
                "INSERT INTO error_tracking_error_events (project_id, error_id, event_id, occurred_at, received_at, "
                "level, release, environment, user_key) VALUES (1, 1, :event_id, :moment, :moment, 'error', "
                "'web@1', NULL, 'id:ada')"), {"event_id": f"{number:032x}", "moment": moment})
        connection.execute(text("INSERT INTO error_tracking_event_payloads (error_id, event_id, payload) "
                                "VALUES (1, :event_id, :payload)"),
                           {"event_id": f"{2:032x}", "payload": json.dumps(OLD_PAYLOAD).encode()})
    upgrade_database(engine)
    with engine.connect() as connection:
        counts = connection.execute(text("SELECT key, value, times_seen FROM error_tracking_error_tag_values "
                                         "ORDER BY key")).all()
        payload = json.loads(connection.execute(text("SELECT payload FROM error_tracking_event_payloads")).scalar())
    engine.dispose()
    assert counts == [("level", "error", 2), ("release", "web@1", 2), ("user", "id:ada", 2)]
    assert payload == {"request": {"headers": {"Authorization": "[Filtered]"}}, "extra": {"password": "[Filtered]"}}
