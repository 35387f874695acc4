"""One finding with a very long location or identifier no longer fails a whole PDF export: a row cannot
split across pages, so long cells wrap inside words and end in an ellipsis."""

import json

from tests.server.exports.helpers import REPORTS
from tests.server.exports.test_pdf_exports import pdf_export

LONG_FILE = "src/" + "deeply_nested_directory/" * 210 + "module.py"  # about 5,000 characters, few spaces
LONG_IDENTIFIER = "CWE-" + "9" * 5_000


def test_a_long_location_and_identifier_are_cut_and_the_report_finishes(server, api):
    project, tokens = api.project_with_roles({"developer": 30})
    report = json.loads((REPORTS / "gl-sast-report.json").read_text())
    report["vulnerabilities"][0]["location"]["file"] = LONG_FILE
    report["vulnerabilities"][0]["identifiers"][0]["name"] = LONG_IDENTIFIER
    with server.client() as root:
        imported = root.post(f"/projects/{project['id']}/security/reports", json=report)
        assert imported.status_code == 201, imported.text
    with server.client(tokens["developer"]) as client:
        pages, _ = pdf_export(client, f"/security/projects/{project['id']}/vulnerability_exports")
    text = "".join(pages)
    assert "src/deeply_nested_directory/" in text and "\u2026" in text
    assert LONG_IDENTIFIER not in text.replace("\n", "")
    # The group's and the instance's exports read the same rows: they finish too.
    with server.client() as root:
        pdf_export(root, "/security/vulnerability_exports")
