"""SMTP settings (like GitLab's `smtp_*` settings) and sending one message with the standard library."""

from __future__ import annotations

import smtplib
import ssl
import uuid
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate

from outpost_server.config import ServerConfig

SECURITY_MODES = ("none", "starttls", "tls")


class MailError(Exception):
    """Sending failed; the text names the server and the reason, never the credentials."""


@dataclass(frozen=True)
class MailSettings:
    host: str
    port: int
    username: str
    password: str
    security: str
    sender: str
    timeout: float

    @classmethod
    def from_config(cls, config: ServerConfig) -> MailSettings | None:
        """The settings, or None when no SMTP host is configured (mail is then off)."""
        if not config.smtp_host:
            return None
        security = config.smtp_security.lower()
        if security not in SECURITY_MODES:
            raise ValueError(f"OUTPOST_SMTP_SECURITY must be one of {', '.join(SECURITY_MODES)}")
        port = config.smtp_port or {"tls": 465, "starttls": 587}.get(security, 25)
        return cls(host=config.smtp_host, port=port, username=config.smtp_username,
                   password=config.smtp_password, security=security, sender=config.mail_from,
                   timeout=config.smtp_timeout)

    def __repr__(self) -> str:  # the dataclass default would print the password
        return f"MailSettings(host={self.host!r}, port={self.port}, security={self.security!r})"


def build_message(*, sender: str, to: list[str], subject: str, text: str, html: str | None = None,
                  headers: dict[str, str] | None = None) -> EmailMessage:
    """A plain-text message with an optional HTML alternative, a Date and a unique Message-ID."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = ", ".join(to)
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=False)
    domain = sender.rpartition("@")[2] or "localhost"
    message["Message-ID"] = f"<{uuid.uuid4().hex}@{domain}>"
    for name, value in (headers or {}).items():
        if name in message:
            del message[name]
        message[name] = value
    message.set_content(text)
    if html is not None:
        message.add_alternative(html, subtype="html")
    return message


def send_message(settings: MailSettings, message: EmailMessage) -> None:
    """Deliver one message; raises MailError with a readable reason."""
    try:
        if settings.security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(settings.host, settings.port, timeout=settings.timeout,
                                                    context=ssl.create_default_context())
        else:
            client = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
        with client:
            if settings.security == "starttls":
                client.starttls(context=ssl.create_default_context())
            if settings.username:
                client.login(settings.username, settings.password)
            client.send_message(message)
    except smtplib.SMTPAuthenticationError as error:
        raise MailError(f"{settings.host}:{settings.port} refused the credentials ({error.smtp_code})") from None
    except smtplib.SMTPRecipientsRefused as error:
        raise MailError(f"{settings.host}:{settings.port} refused the recipients "
                        f"{', '.join(sorted(error.recipients))}") from None
    except smtplib.SMTPException as error:
        raise MailError(f"{settings.host}:{settings.port}: {type(error).__name__}: {error}") from None
    except (OSError, ssl.SSLError) as error:
        raise MailError(f"cannot reach {settings.host}:{settings.port}: {error}") from None
