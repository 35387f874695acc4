"""The Rails and GitLab renderings in outpost_server.compat, checked against the examples of their docs.

(The Ruby renderings are checked cell by cell with the export CSV in exports/test_export_csv_format.py.)
"""

from __future__ import annotations

import datetime as dt

from outpost_server.compat.gitlab_time import iso, iso_date
from outpost_server.compat.rails_text import humanize, parameterize, titleize


def test_parameterize_follows_active_supports_examples():
    assert parameterize("Donald E. Knuth") == "donald-e-knuth"
    assert parameterize("^très|Jolie-- ") == "tres-jolie"


def test_parameterize_turns_a_namespace_path_into_a_file_name_part():
    assert parameterize("acme/platform/api-gateway") == "acme-platform-api-gateway"
    assert parameterize("Gitlab.org/under_score") == "gitlab-org-under_score"


def test_humanize_writes_snake_case_values_as_a_sentence_start():
    assert humanize("false_positive") == "False positive"
    assert humanize("used_in_tests") == "Used in tests"


def test_titleize_turns_a_slug_into_a_display_name():
    assert titleize("storefront") == "Storefront"
    assert titleize("acme-web_shop") == "Acme Web Shop"


def test_gitlab_times_are_utc_with_milliseconds():
    moment = dt.datetime(2026, 3, 4, 5, 6, 7, 891_234, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert iso(moment) == "2026-03-04T03:06:07.891Z"
    assert iso(None) is None
    assert iso_date(dt.date(2026, 3, 4)) == "2026-03-04"
    assert iso_date(None) is None
