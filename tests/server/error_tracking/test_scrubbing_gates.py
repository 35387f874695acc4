"""Scrubbing passes most values after two cheap searches (the rules' words, two digits in a row); every value
a rule would change still reaches that rule, whatever its case or alphabet."""

from __future__ import annotations

import pytest

from outpost_server.error_tracking.digest.scrubbing import FILTERED, scrub_event


@pytest.mark.parametrize(("value", "scrubbed"), [
    ("my PASSWORD is hunter2", FILTERED),
    # Case-insensitive matching folds the long s to s; lowercasing would not, so non-ASCII text takes every rule.
    ("my paſsword is hunter2", FILTERED),
    ("KEY TOKEN=abc", FILTERED),
    ("OTP", FILTERED),
    ("/HOME/alice/app.py", f"/HOME/{FILTERED}/app.py"),
    ("C:\\USERS\\bob\\app.py", f"C:\\USERS\\{FILTERED}\\app.py"),
    ("sent BEARER abc upstream", f"sent {FILTERED} upstream"),
    ("postgres://u:pw@db/x", f"postgres://u:{FILTERED}@db/x"),
    ("card 4111-1111-1111-1111", f"card {FILTERED}"),
    ("ssn 123-45-6789", f"ssn {FILTERED}"),
    ("nothing to see here", "nothing to see here"),
    ("line 42 of the report", "line 42 of the report"),
])
def test_every_value_a_rule_changes_reaches_it(value, scrubbed):
    event = {"extra": {"note": value}}
    assert scrub_event(event) is (scrubbed != value)
    assert event["extra"]["note"] == scrubbed
