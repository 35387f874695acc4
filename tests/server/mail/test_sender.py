"""The mail sender against a real SMTP server (aiosmtpd) on 127.0.0.1."""

from __future__ import annotations

import email
import email.policy
import socket

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Message

from outpost_server.config import ServerConfig
from outpost_server.mail import MailError, MailSettings, build_message, send_message


class _Collect(Message):
    def __init__(self):
        super().__init__(message_class=lambda: email.message.EmailMessage(policy=email.policy.default))
        self.received: list[email.message.EmailMessage] = []

    def handle_message(self, message):
        self.received.append(message)


@pytest.fixture
def smtp_server():
    handler = _Collect()
    port = _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_no_host_means_mail_is_off():
    assert MailSettings.from_config(ServerConfig(smtp_host="")) is None


def test_default_ports_follow_the_security_mode():
    ports = {mode: MailSettings.from_config(ServerConfig(smtp_host="mail", smtp_security=mode)).port
             for mode in ("none", "starttls", "tls")}
    assert ports == {"none": 25, "starttls": 587, "tls": 465}


def test_unknown_security_mode_is_refused():
    with pytest.raises(ValueError, match="OUTPOST_SMTP_SECURITY"):
        MailSettings.from_config(ServerConfig(smtp_host="mail", smtp_security="ssl3"))


def test_the_password_is_not_in_the_settings_repr():
    settings = MailSettings.from_config(ServerConfig(smtp_host="mail", smtp_password="hunter2-secret"))
    assert "hunter2-secret" not in repr(settings)


def test_a_message_with_both_parts_arrives(smtp_server):
    handler, port = smtp_server
    settings = MailSettings.from_config(ServerConfig(smtp_host="127.0.0.1", smtp_port=port,
                                                     mail_from="outpost@example.com"))
    message = build_message(sender=settings.sender, to=["ada@example.com"], subject="[Outpost] Hello",
                            text="plain body", html="<p>html body</p>",
                            headers={"List-Unsubscribe": "<https://outpost.example.com/x>"})
    send_message(settings, message)
    [received] = handler.received
    assert received["Subject"] == "[Outpost] Hello"
    assert received["To"] == "ada@example.com"
    assert received["List-Unsubscribe"] == "<https://outpost.example.com/x>"
    assert received["Message-ID"].endswith("@example.com>")
    assert received.get_body(("plain",)).get_content().strip() == "plain body"
    assert received.get_body(("html",)).get_content().strip() == "<p>html body</p>"


def test_an_unreachable_server_is_a_mail_error():
    settings = MailSettings.from_config(ServerConfig(smtp_host="127.0.0.1", smtp_port=_free_port(),
                                                     smtp_timeout=2))
    message = build_message(sender="a@example.com", to=["b@example.com"], subject="s", text="t")
    with pytest.raises(MailError, match="cannot reach 127.0.0.1"):
        send_message(settings, message)
