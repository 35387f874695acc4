"""Outgoing mail: SMTP settings from the server configuration and one way to send a message.

Used by alert notifications and by vulnerability exports (`send_email`). Sending blocks (smtplib), so
callers run it on a worker thread. The password never appears in a log line or an exception text.
"""

from .sender import MailError, MailSettings, build_message, send_message

__all__ = ["MailError", "MailSettings", "build_message", "send_message"]
