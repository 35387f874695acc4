"""send_email: the author of a finished export gets a link by mail (a real SMTP server, aiosmtpd), nobody
gets one when it is off, and a mail server that is away never fails the export."""

import time

import pytest

from tests.server.alerts.receivers import MailBox, eventually, free_port, mailbox  # noqa: F401
from tests.server.exports.helpers import upload_report, wait_for_status
from tests.support import ApiHelper, start_server


@pytest.fixture(scope="module")
def mailing_server(tmp_path_factory, mailbox: MailBox):  # noqa: F811
    env = {"OUTPOST_SMTP_HOST": "127.0.0.1", "OUTPOST_SMTP_PORT": str(mailbox.port),
           "OUTPOST_MAIL_FROM": "outpost@example.com", "OUTPOST_EXTERNAL_URL": "https://gitlab.example.com"}
    with start_server(tmp_path_factory.mktemp("mailing"), extra_env=env) as running:
        yield running


def messages_to(mailbox: MailBox, address: str) -> list:  # noqa: F811
    return [message for message in mailbox.received if address in message["To"]]


def two_messages_to(received: MailBox, address: str) -> list | None:
    found = messages_to(received, address)
    return found if len(found) == 2 else None


def test_author_is_mailed_a_link_when_asked(mailing_server, mailbox: MailBox):  # noqa: F811
    helper = ApiHelper(mailing_server)
    project, tokens = helper.project_with_roles({"developer": 30})
    with mailing_server.client(tokens["developer"]) as client:
        author = client.get("/user").json()
        upload_report(client, project["id"], "gl-sast-report.json")
        created = client.post(f"/security/projects/{project['id']}/vulnerability_exports",
                              json={"export_format": "pdf"}).json()
        assert created["send_email"] is True
        assert wait_for_status(client, created["id"])["status"] == "finished"
        message = eventually(lambda: messages_to(mailbox, author["email"]), what="the export email")[0]
        # report_data naming a dashboard type: the Security Dashboard's export (GitLab's ExportMailer).
        csv_export = client.post(f"/security/projects/{project['id']}/vulnerability_exports",
                                 json={"send_email": True, "report_data": {"dashboard_type": "project"}}).json()
        assert wait_for_status(client, csv_export["id"])["status"] == "finished"
        both = eventually(lambda: two_messages_to(mailbox, author["email"]), what="the second export email")
    assert message["From"] == "outpost@example.com"
    assert message["Subject"] == f"{project['name']} | Vulnerability Report export"
    assert both[1]["Subject"] == f"{project['name']} | Security Dashboard export"
    body = message.get_body(("plain",)).get_content()
    assert f"https://gitlab.example.com/api/v4/security/vulnerability_exports/{created['id']}/download" in body
    assert author["name"] in body


def test_nobody_is_mailed_when_send_email_is_off(mailing_server, mailbox: MailBox):  # noqa: F811
    helper = ApiHelper(mailing_server)
    project, tokens = helper.project_with_roles({"developer": 30})
    with mailing_server.client(tokens["developer"]) as client:
        author = client.get("/user").json()
        for body in ({}, {"export_format": "pdf", "send_email": False}):
            created = client.post(f"/security/projects/{project['id']}/vulnerability_exports", json=body).json()
            assert created["send_email"] is False
            assert wait_for_status(client, created["id"])["status"] == "finished"
        # The worker sends right after finishing: give a stray message time to arrive.
        time.sleep(1.0)
    assert messages_to(mailbox, author["email"]) == []


@pytest.mark.expected_log(r"WARNING outpost\.exports vulnerability export \d+: the email to its author was not sent")
def test_a_mail_server_that_is_away_does_not_fail_the_export(tmp_path):
    env = {"OUTPOST_SMTP_HOST": "127.0.0.1", "OUTPOST_SMTP_PORT": str(free_port()), "OUTPOST_SMTP_TIMEOUT": "2"}
    with start_server(tmp_path, extra_env=env) as server:
        with server.client() as client:
            created = client.post("/security/vulnerability_exports", json={"export_format": "pdf"}).json()
            assert wait_for_status(client, created["id"])["status"] == "finished"
            assert client.get(f"/security/vulnerability_exports/{created['id']}/download").status_code == 200
        eventually(lambda: "the email to its author was not sent" in server.log_text(), what="the logged failure")
