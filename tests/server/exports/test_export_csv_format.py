"""Byte-level checks of the CSV cell formats against GitLab's exporter rules."""

from datetime import datetime, timezone
from typing import Any

from outpost_server.compat.rails_text import humanize
from outpost_server.compat.ruby import ruby_inspect, ruby_time
from outpost_server.exports.csv_format import (
    HEADERS,
    ExportNote,
    ExportVulnerability,
    format_row,
    header_row,
    notes_summary,
    repeated_string_cell,
    ruby_csv_line,
    string_cell,
)

DETECTED = datetime(2022, 10, 7, 13, 34, 41, tzinfo=timezone.utc)


def make(**overrides) -> ExportVulnerability:
    values: dict[str, Any] = dict(
        id=5,
        group_name="Gitlab.org",
        project_name="Defend",
        project_full_path="gitlab-org/defend",
        report_type="sast",
        scanner_name="Brakeman",
        state="detected",
        title="Possible SQL injection",
        description=None,
        severity="medium",
        identifiers=({"type": "cwe", "name": "CWE-89"},
                     {"type": "brakeman_warning_code", "name": "Brakeman Warning Code 0"}),
        detected_at=DETECTED,
        location={"start_line": 3, "file": "app/controllers/users_controller.rb", "method": "index",
                  "class": "UsersController"},
        resolved_on_default_branch=True,
    )
    values.update(overrides)
    return ExportVulnerability(**values)


def test_header_row_has_the_19_columns_in_order():
    assert header_row() == (
        "Group Name,Project Name,Tool,Scanner Name,Status,Vulnerability,Details,Additional Info,Severity,"
        "CVE,CWE,Other Identifiers,Detected At,Location,Activity,Comments,Full Path,CVSS Vectors,Dismissal Reason\n"
    )
    assert len(HEADERS) == 19


def test_sast_row_matches_gitlab_bytes():
    assert format_row(make()) == (
        'Gitlab.org,Defend,sast,Brakeman,detected,Possible SQL injection,,,medium,,CWE-89,'
        '"""Brakeman Warning Code 0""",2022-10-07 13:34:41 UTC,'
        '"{""file""=>""app/controllers/users_controller.rb"", ""class""=>""UsersController"", '
        '""method""=>""index"", ""start_line""=>3}",true,"",gitlab-org/defend/5,"",\n'
    )


def test_container_location_nested_hash_in_jsonb_key_order():
    location = {
        "operating_system": "alpine 3.9.2",
        "image": "python:3.4-alpine",
        "dependency": {"version": "1.1.20-r4", "package": {"name": "musl-utils"}},
    }
    assert ruby_inspect(location) == (
        '{"image"=>"python:3.4-alpine", "dependency"=>{"package"=>{"name"=>"musl-utils"}, '
        '"version"=>"1.1.20-r4"}, "operating_system"=>"alpine 3.9.2"}'
    )


def test_ruby_string_inspect_escapes():
    assert ruby_inspect('a"b\\c\nd\te#{x} #y é\x00\x7f') == '"a\\"b\\\\c\\nd\\te\\#{x} #y é\\u0000\\u007F"'
    assert ruby_inspect({"n": None, "t": True, "list": [1, "x"]}) == '{"n"=>nil, "t"=>true, "list"=>[1, "x"]}'
    assert ruby_inspect({}) == "{}"


def test_detected_at_format_converts_to_utc():
    from datetime import timedelta

    local = datetime(2022, 10, 7, 15, 34, 41, tzinfo=timezone(timedelta(hours=2)))
    assert ruby_time(local) == "2022-10-07 13:34:41 UTC"


def test_identifier_and_cvss_lists_use_ruby_csv_quoting():
    assert ruby_csv_line(["GHSA-wq4h-7r42-5hrr", "Gemnasium-20a2"], "; ") == "GHSA-wq4h-7r42-5hrr; Gemnasium-20a2"
    assert ruby_csv_line(["a;b", 'say "hi"', "x y", ""], "; ") == '"a;b"; "say ""hi"""; "x y"; ""'
    assert ruby_csv_line([], "; ") == ""
    vector = {"vendor": "GitLab", "vector": "CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:L/I:L/A:N"}
    row = format_row(make(cvss_vectors=(vector,)))
    assert row.endswith(",GitLab=CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:L/I:L/A:N,\n")


def test_comments_summary_status_and_quoting():
    notes = (
        ExportNote(datetime(2022, 10, 7, 13, 41, 8, tzinfo=timezone.utc), "root",
                   "changed vulnerability status to resolved"),
        ExportNote(datetime(2022, 10, 7, 13, 42, 0, tzinfo=timezone.utc), "alice", 'pipe | and "quote"'),
    )
    assert notes_summary(notes) == (
        "2022-10-07 13:41:08 UTC|root|resolved|changed vulnerability status to resolved; "
        '2022-10-07 13:42:00 UTC|alice||"pipe | and ""quote"""'
    )


def test_hostile_text_is_neutralised_and_newlines_literal():
    note = ExportNote(DETECTED, "root", "a\nb")
    row = format_row(
        make(
            group_name="=cmd|' /C calc'!A0",
            project_name="+plus, comma",
            title='-minus "quoted"',
            description="@at\nsecond line",
            scanner_name=";semi",
            notes=(note,),
        )
    )
    assert row == (
        "'=cmd|' /C calc'!A0,\"'+plus, comma\",sast,';semi,detected,\"'-minus \"\"quoted\"\"\",'@at\\nsecond line,,"
        'medium,,CWE-89,"""Brakeman Warning Code 0""",2022-10-07 13:34:41 UTC,'
        '"{""file""=>""app/controllers/users_controller.rb"", ""class""=>""UsersController"", '
        '""method""=>""index"", ""start_line""=>3}",true,'
        '"2022-10-07 13:34:41 UTC|root||""a\\nb""",gitlab-org/defend/5,"",\n'
    )


def test_dismissal_reason_only_for_dismissed():
    dismissed = format_row(make(state="dismissed", dismissal_reason="not_applicable", resolved_on_default_branch=False))
    assert dismissed.endswith(',false,"",gitlab-org/defend/5,"",Not applicable\n')
    confirmed = format_row(make(state="confirmed", dismissal_reason="not_applicable"))
    assert confirmed.endswith(',"",gitlab-org/defend/5,"",\n')
    assert [humanize(r) for r in ("acceptable_risk", "false_positive", "mitigating_control", "used_in_tests")] == [
        "Acceptable risk", "False positive", "Mitigating control", "Used in tests"
    ]


def test_non_ascii_passes_through_untouched():
    row = format_row(make(title="Überprüfung — 検出", group_name=None))
    assert row.startswith(",Defend,sast,Brakeman,detected,Überprüfung — 検出,")



def test_repeated_string_cell_is_string_cell():
    for value in (None, "", "Defend", "=sum", "a,b", "line\nbreak", "a,b"):
        assert repeated_string_cell(value) == string_cell(value), value
