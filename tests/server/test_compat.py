"""The Rails and GitLab renderings in outpost_server.compat, checked against the examples of their docs.

(The Ruby renderings are checked cell by cell with the export CSV in exports/test_export_csv_format.py;
Date.parse against the real `ruby` here.)
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess

from outpost_server.compat.gitlab_time import iso, iso_date
from outpost_server.compat.rails_text import humanize, parameterize, titleize
from outpost_server.compat.ruby_date import parse_date
from tests.server.error_tracking.toolchains import require_tool

# Dates as people write them, with their traps: two-digit years, the day first, times and zones after the
# date, days that do not exist, text without a date, years Python's dates cannot hold.
WRITTEN_DATES = [
    "2026-01-31", "31/01/2026", "20260131", "2026-01-31T00:00:00", "2026-01-31T10:00:00+02:00", "2026-01-31Z",
    "01/02/2026", "5/1/2026", "2026/01/31", "2026/1/5 10:00", "31.01.2026", "2026.01.31", "31-01-2026",
    "Jan 31 2026", "31 Jan 2026", "January 31, 2026", "31 January 2026", "Sat, 31 Jan 2026", "Jan 31, 26",
    "2026-1-5", "26-01-31", "69-01-01", "68-01-01", "31/01/26", "1/2/3", "1/1/1", "1/2/69", "260131",
    " 2026-01-31 ", "2026-01-31x", "x2026-01-31", "2024-02-29", "2100-02-29", "2000-02-29",
    "0001-01-01", "9999-12-31", "-0001-01-01", "10000-01-01", "0000-01-01", "00000101",
    "2026-02-30", "2026-13-01", "12/31/2026", "", "abc", "2026", "2026-01", "January", "31 Jan", "Jan 31",
]


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


def test_dates_read_as_rubys_date_parse_reads_them():
    # Ruby says which year it takes for a date without one: a run across New Year compares like with like.
    script = ("year = Date.today.year; dates = JSON.parse(STDIN.read).map { |text| d = Date.parse(text) rescue nil; "
              "d && [d.year, d.mon, d.mday] }; puts([year, dates].to_json)")
    ruby = subprocess.run([require_tool("ruby", "ruby"), "-rdate", "-rjson", "-e", script], check=True,
                          input=json.dumps(WRITTEN_DATES), capture_output=True, text=True, timeout=60)
    rubys_year, read_by_ruby = json.loads(ruby.stdout)
    assert any(read_by_ruby) and None in read_by_ruby  # the list holds both kinds
    ours = []
    for text in WRITTEN_DATES:
        try:
            ours.append(list(parse_date(text, this_year=rubys_year)))
        except ValueError:
            ours.append(None)
    assert dict(zip(WRITTEN_DATES, ours, strict=True)) == dict(zip(WRITTEN_DATES, read_by_ruby, strict=True))
