"""Demo vulnerabilities: every tool and status, comments, dismissals and deliberately hostile text.

Times are fixed so the demo export is reproducible byte for byte.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from outpost_server.vulnerabilities.models import Vulnerability, VulnerabilityNote
from outpost_server.vulnerabilities.service import record_state_change, status_change_note

DETECTED_AT = dt.datetime(2024, 3, 4, 10, 15, 41, tzinfo=dt.timezone.utc)


def _at(minutes: int) -> dt.datetime:
    return DETECTED_AT + dt.timedelta(minutes=minutes)


def _cve(name: str) -> dict:
    return {"type": "cve", "name": name, "value": name, "url": f"https://nvd.nist.gov/vuln/detail/{name}"}


def _cwe(number: int) -> dict:
    return {"type": "cwe", "name": f"CWE-{number}", "value": str(number),
            "url": f"https://cwe.mitre.org/data/definitions/{number}.html"}


def _other(kind: str, name: str, value: str) -> dict:
    return {"type": kind, "name": name, "value": value, "url": None}


SEMGREP = ("sast", "semgrep", "Semgrep")
GEMNASIUM = ("dependency_scanning", "gemnasium", "Gemnasium")
TRIVY = ("container_scanning", "trivy", "Trivy")
GITLEAKS = ("secret_detection", "gitleaks", "Gitleaks")
ZAP = ("dast", "zaproxy", "OWASP Zed Attack Proxy (ZAP)")

# (project, tool, title, description, severity, state, identifiers, location, cvss, gone, reason, notes)
# notes: (username, minutes after detection, text); a status note is written for each state change.
DEMO_VULNERABILITIES = [
    ("acme/webshop", SEMGREP, "SQL injection in product search",
     "User input from the query string is concatenated into a raw SQL statement.", "high", "detected",
     [_other("semgrep_id", "python.django.security.injection.sql.sql-injection-using-raw", "sql-raw"), _cwe(89)],
     {"file": "shop/search.py", "start_line": 42, "end_line": 44, "class": "SearchView", "method": "get"},
     [], False, None, [("dave", 5, "Reproduced locally; the ORM fix is in review.")]),
    ("acme/webshop", GEMNASIUM, "Improper Neutralization of Special Elements used in an OS Command in rack",
     "Rack is vulnerable to a command injection through crafted requests to Rack::Lint.", "critical", "confirmed",
     [_other("gemnasium", "Gemnasium-20a2e4f6-1a4c-4e9e-9b1f-7b2a8f2b9a5e", "20a2e4f6"), _cve("CVE-2022-30123"),
      _other("ghsa", "GHSA-wq4h-7r42-5hrr", "GHSA-wq4h-7r42-5hrr")],
     {"file": "Gemfile.lock", "dependency": {"package": {"name": "rack"}, "version": "2.2.3"}},
     [{"vendor": "GitLab", "vector": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}], False, None,
     [("amelia", 10, "status:confirmed")]),
    ("acme/webshop", TRIVY, "CVE-2019-19242 in sqlite-libs-3.26.0-r3",
     "SQLite 3.30.1 mishandles pExpr->y.pTab, as demonstrated by the TK_COLUMN case.", "medium", "resolved",
     [_cve("CVE-2019-19242")],
     {"image": "registry.example.com/acme/webshop:1.4.2", "operating_system": "alpine 3.9.2",
      "dependency": {"package": {"name": "sqlite-libs"}, "version": "3.26.0-r3"}},
     [], True, None, [("amelia", 20, "status:resolved")]),
    ("acme/webshop", GITLEAKS, "AWS access token", "AWS access token found in a test fixture.", "critical",
     "dismissed", [_other("gitleaks_rule_id", "Gitleaks rule ID AWS", "AWS")],
     {"file": "spec/fixtures/aws.yml", "start_line": 3, "end_line": 3,
      "commit": {"sha": "4e3b1c0d9a8f7e6d5c4b3a2918273645f0e1d2c3"}},
     [], False, "used_in_tests", [("amelia", 30, "status:dismissed:It is the documented example key.")]),
    ("acme/platform/api-gateway", ZAP, "X-Content-Type-Options Header Missing",
     "The Anti-MIME-Sniffing header X-Content-Type-Options was not set to 'nosniff'.", "low", "detected",
     [_other("ZAProxy_PluginId", "X-Content-Type-Options Header Missing", "10021"), _cwe(693)],
     {"hostname": "https://gateway.example.com", "path": "/v1/health", "method": "GET", "param": ""},
     [], False, None, []),
    ("acme/platform/api-gateway", SEMGREP, "Use of weak MD5 hash", "MD5 is used for a cache key only.", "info",
     "dismissed", [_other("bandit_test_id", "Bandit Test ID B303", "B303"), _cwe(327)],
     {"file": "gateway/cache.py", "start_line": 7}, [], False, "false_positive",
     [("dave", 15, "status:dismissed:")]),
    ("acme/platform/billing", GEMNASIUM, "Regular Expression Denial of Service in nokogiri",
     None, "unknown", "dismissed", [_other("gemnasium", "Gemnasium-5b3c4a1e", "5b3c4a1e"), _cve("CVE-2022-24836")],
     {"file": "Gemfile.lock", "dependency": {"package": {"name": "nokogiri"}, "version": "1.13.3"}},
     [{"vendor": "GitLab", "vector": "CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:N/A:L"},
      {"vendor": "NVD", "vector": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H"}],
     False, "acceptable_risk", [("root", 40, "status:dismissed:Only parses trusted invoices.")]),
    ("acme/platform/billing", SEMGREP, "Cleartext transmission of card data", "An HTTP URL is used for the PSP.",
     "high", "detected", [_cwe(319)], {"file": "billing/psp.py", "start_line": 12, "end_line": 12},
     [], False, None, []),
    # Hostile text: spreadsheet formulas, quotes, commas, newlines, separators and non-ASCII.
    ("tools/scanner-lab", SEMGREP, '=HYPERLINK("http://evil.example","Click, me")',
     'Line one\nLine "two", with a comma', "high", "detected",
     [_cwe(79), _other("semgrep_id", "rule; with space", "r1"), _other("owasp", 'A03 "Injection"', "A03")],
     {"file": 'src/ünï "cødé".py', "start_line": 1, "method": "#{eval}"},
     [], False, None, [("dave", 1, '@channel look, "now"\nsecond line'), ("root", 2, "pipe | inside")]),
    ("tools/scanner-lab", GEMNASIUM, "-1+1 überlauf in naïve-lib", "+cmd|' /C calc'!A0", "medium", "dismissed",
     [_cve("CVE-2024-0001"), _other("gemnasium", "Gemnasium-;semi", "semi")],
     {"file": "package-lock.json", "dependency": {"package": {"name": "naïve-lib"}, "version": "0.0.1-β"}},
     [{"vendor": "GitLab", "vector": "CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:L/I:L/A:L"}], False, "not_applicable",
     [("amelia", 3, "status:dismissed:;DROP TABLE comments")]),
    ("tools/scanner-lab", TRIVY, "@admin — コンテナの脆弱性", "-", "low", "confirmed",
     [_cve("CVE-2024-0002")],
     {"image": "lab/tool:latest", "operating_system": "debian 12",
      "dependency": {"package": {"name": "libc6"}, "version": "2.36-9"}},
     [], False, None, [("dave", 4, "status:confirmed")]),
    ("tools/scanner-lab", GITLEAKS, ";Private key, in repo", "Tab\there and CR\rthere", "critical", "resolved",
     [_other("gitleaks_rule_id", "Gitleaks rule ID PKCS8-PK", "PKCS8-PK")],
     {"file": "keys/id_rsa", "start_line": 1, "commit": {"sha": "0" * 40}},
     [], True, None, [("root", 6, "status:resolved")]),
]


def _note_text(text: str, dismissal_reason: str | None) -> str:
    """'status:<state>[:<comment>]' stands for the system note of a status change."""
    if not text.startswith("status:"):
        return text
    _, state, *comment = text.split(":", 2)
    return status_change_note(state, dismissal_reason=dismissal_reason if state == "dismissed" else None,
                              comment=comment[0] if comment and comment[0] else None)


def seed(session, demo) -> None:
    users = {"root": demo.admin, **demo.users}
    for index, (project_path, (report_type, scanner_id, scanner_name), title, description, severity, state,
                identifiers, location, cvss, gone, reason, notes) in enumerate(DEMO_VULNERABILITIES):
        project = demo.projects[project_path]
        vulnerability = Vulnerability(
            project_id=project.id,
            fingerprint=hashlib.sha256(f"demo-{index}".encode()).hexdigest(),
            report_type=report_type, scanner_external_id=scanner_id, scanner_name=scanner_name,
            title=title, description=description, solution=None, severity=severity, state=state,
            identifiers=identifiers, location=location, cvss_vectors=cvss, resolved_on_default_branch=gone,
            dismissal_reason=reason, created_at=DETECTED_AT, updated_at=DETECTED_AT,
        )
        session.add(vulnerability)
        session.flush()
        for username, minutes, text in notes:
            author = users[username]
            when = _at(minutes)
            note_text = _note_text(text, reason)
            session.add(VulnerabilityNote(vulnerability_id=vulnerability.id, author_id=author.id, note=note_text,
                                          system=text.startswith("status:"), created_at=when, updated_at=when))
            record_state_change(vulnerability, user_id=author.id, when=when)
    session.flush()
