"""The email telling an export's author that the file is ready (send_email), like GitLab's
Vulnerabilities::ExportMailer.completion_email after the export finishes.

Sending never fails the export: the file is there either way, so a failure is logged and that is all.
"""

from __future__ import annotations

import logging

from sqlalchemy.orm import Session, sessionmaker

from outpost_server.accounts.models import Group, Project, User
from outpost_server.compat.ruby import ruby_time
from outpost_server.config import ServerConfig
from outpost_server.exports.models import ARCHIVE, VulnerabilityExport
from outpost_server.mail import MailError, MailSettings, build_message, send_message

log = logging.getLogger("outpost.exports")


def mail_settings(config: ServerConfig) -> MailSettings | None:
    """The SMTP settings for export emails; None (no emails, logged) when they are missing or wrong."""
    try:
        return MailSettings.from_config(config)
    except ValueError as error:
        log.warning("vulnerability export emails are off: %s", error)
        return None


def download_url(export: VulnerabilityExport) -> str:
    resource = "vulnerability_archive_exports" if export.kind == ARCHIVE else "vulnerability_exports"
    return f"{export.api_base_url or ''}/security/{resource}/{export.id}/download"


def completion_subject(session: Session, export: VulnerabilityExport) -> str:
    """GitLab's ExportMailer subject: the project's or group's name, then `Vulnerability Report export`, or
    `Security Dashboard export` when report_data names a dashboard type, joined by ` | ` as
    ApplicationMailer#subject joins its parts (an instance-level export has no name to put first)."""
    label = ("Security Dashboard export" if (export.report_data or {}).get("dashboard_type")
             else "Vulnerability Report export")
    owner = (session.get(Project, export.project_id) if export.project_id is not None
             else session.get(Group, export.group_id) if export.group_id is not None else None)
    return " | ".join(part for part in (owner.name if owner is not None else None, label) if part)


def send_completion_email(factory: sessionmaker[Session], export_id: int, mail: MailSettings | None) -> bool:
    """Mails the author a link to a finished export that asked for it; True when a message was sent."""
    with factory() as session:
        export = session.get(VulnerabilityExport, export_id)
        if export is None or not export.send_email or export.status != "finished":
            return False
        author = session.get_one(User, export.author_id)
        address, name, link = author.email, author.name, download_url(export)
        what = f"{export.format.upper()} vulnerability {'archive ' if export.kind == ARCHIVE else ''}export"
        expires = ruby_time(export.expires_at)
        subject = completion_subject(session, export)
    if mail is None:
        log.warning("vulnerability export %s asked for an email, but no SMTP server is configured", export_id)
        return False
    text = (f"Hello {name},\n\nYour {what} is ready. Download it (with your access token) from:\n\n{link}\n\n"
            f"The file is deleted at {expires}.\n")
    message = build_message(sender=mail.sender, to=[address], subject=subject, text=text)
    try:
        send_message(mail, message)
    except MailError as error:
        log.warning("vulnerability export %s: the email to its author was not sent: %s", export_id, error)
        return False
    except Exception:  # the export stays finished whatever the mail code does
        log.exception("vulnerability export %s: the email to its author was not sent", export_id)
        return False
    log.info("vulnerability export %s: emailed its author", export_id)
    return True
