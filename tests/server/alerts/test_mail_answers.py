"""The mail settings and the test email's answers are outpost_model's entities, read back whole; a test email
that cannot be sent is answered 502 with GitLab's message body naming the reason."""

from __future__ import annotations

import json

import httpx

from outpost_model import decode, encode
from outpost_model.instance import MailSettings, MailTest
from tests.server.alerts.flows import mailing_server
from tests.server.alerts.receivers import MailBox, eventually, free_port, mailbox  # noqa: F401


def _entity(response: httpx.Response, kind):
    entity = decode(response.content, kind)
    assert json.loads(encode(entity)) == response.json()
    return entity


def test_the_mail_answers_are_their_entities(tmp_path, mailbox: MailBox):  # noqa: F811
    with mailing_server(tmp_path / "server", mailbox.port) as server, server.client() as client:
        shown = _entity(client.get("/application/mail"), MailSettings)
        assert (shown.configured, shown.port, shown.sender) == (True, mailbox.port, "alerts@outpost.example.com")
        sent = client.post("/application/mail/test", json={"to": "entities@example.com"})
        assert sent.status_code == 201, sent.text
        assert _entity(sent, MailTest) == MailTest(to="entities@example.com", delivered=True)
    eventually(lambda: [m for m in mailbox.received if m["To"] == "entities@example.com"], what="the test email")


def test_a_test_email_that_cannot_be_sent_is_answered_502_with_the_reason(tmp_path):
    port = free_port()  # nothing listens there
    with mailing_server(tmp_path / "server", port) as server, server.client() as client:
        refused = client.post("/application/mail/test", json={"to": "nobody@example.com"})
    assert refused.status_code == 502
    assert list(refused.json()) == ["message"]
    assert refused.json()["message"].startswith(f"cannot reach 127.0.0.1:{port}: ")
