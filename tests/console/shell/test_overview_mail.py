"""The overview's Email box against real servers: administrators see whether mail is configured and send a
test email (received by a real SMTP server); other users and GitLab servers do not see the box."""

from __future__ import annotations

from console.operations import Op
from console.overview.mail_status import NOT_CONFIGURED
from tests.console.shell.conftest import open_overview
from tests.server.alerts.receivers import MailBox, eventually, mailbox  # noqa: F401
from tests.support import ApiHelper, start_server

WAIT = 20_000


def test_administrators_send_a_test_email(qtbot, qloop_running, context, tmp_path, mailbox: MailBox):  # noqa: F811
    env = {"OUTPOST_SMTP_HOST": "127.0.0.1", "OUTPOST_SMTP_PORT": str(mailbox.port),
           "OUTPOST_MAIL_FROM": "alerts@outpost.example.com"}
    with start_server(tmp_path / "server", extra_env=env) as server:
        tab = open_overview(qtbot, context, server.url, server.root_token, tmp_path)
        box = tab.mail_box
        qtbot.waitUntil(lambda: box.isVisible() and box.test_button.isEnabled(), timeout=WAIT)
        assert box.status_label.text() == (
            f"Email is sent through 127.0.0.1:{mailbox.port} (unencrypted) from alerts@outpost.example.com.")
        box.test_button.click()
        qtbot.waitUntil(lambda: box.result.text().startswith("Sent to "), timeout=WAIT)
        [message] = eventually(lambda: [m for m in mailbox.received if "Test email" in str(m["Subject"])],
                               what="the test email")
        assert box.result.text() == f"Sent to {message['To']}."


def test_without_smtp_the_box_says_so_and_non_administrators_do_not_see_it(qtbot, qloop_running, context, tmp_path,
                                                                            server):
    tab = open_overview(qtbot, context, server.url, server.root_token, tmp_path)
    qtbot.waitUntil(lambda: tab.mail_box.isVisible(), timeout=WAIT)
    assert tab.mail_box.status_label.text() == NOT_CONFIGURED and not tab.mail_box.test_button.isEnabled()
    _, token = ApiHelper(server).user()
    Op(context, context.connect_to(server.url, token), description="Connecting").run()
    qtbot.waitUntil(lambda: context.user is not None and not context.is_admin, timeout=WAIT)
    qtbot.waitUntil(lambda: not tab.mail_box.isVisible(), timeout=WAIT)
