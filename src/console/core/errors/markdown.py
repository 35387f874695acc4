"""An error as Markdown, for pasting into an issue: title, culprit, counts, dates, releases, top frames, a link."""

from __future__ import annotations

from dataclasses import dataclass

from console.core.api.sentry_events import frame_label, issue_count
from console.core.timestamps import short_time
from outpost_model.error_graphql import SentryDetailedError
from outpost_model.error_tracking import ExceptionFrame, ExceptionValue
from outpost_model.sentry_issues import IssueDetails

TOP_FRAMES = 5


def _cell(text: str) -> str:
    """Table cell text: a pipe or a line break would end the cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{text.replace('`', '')}`"


def top_in_app_frames(exceptions: list[ExceptionValue], limit: int = TOP_FRAMES) -> list[ExceptionFrame]:
    """The raised exception's application frames, the one that raised first (all frames when none is in-app)."""
    if not exceptions:
        return []
    frames = exceptions[-1].frames
    in_app = [frame for frame in frames if frame.in_app] or frames
    return list(reversed(in_app))[:limit]


@dataclass(frozen=True)
class ErrorFacts:
    """What the Markdown says of an error, from Sentry's issue or from the details the pane read."""

    title: str
    culprit: str | None
    count: int
    user_count: int
    first_seen: str | None
    last_seen: str | None
    first_release: str | None
    last_release: str | None
    permalink: str | None

    @classmethod
    def of_issue(cls, issue: IssueDetails) -> ErrorFacts:
        """Counts of every event ever received."""
        return cls(title=issue.title, culprit=issue.culprit, count=issue_count(issue), user_count=issue.userCount,
                   first_seen=issue.firstSeen, last_seen=issue.lastSeen,
                   first_release=issue.firstRelease.version if issue.firstRelease else None,
                   last_release=issue.lastRelease.version if issue.lastRelease else None, permalink=issue.permalink)


def issue_from_detail(detail: SentryDetailedError, link: str) -> ErrorFacts:
    """The error as the detail pane read it (GraphQL's details), where Sentry's API is not there."""
    return ErrorFacts(title=detail.title, culprit=detail.culprit, count=detail.count, user_count=detail.userCount,
                      first_seen=detail.firstSeen, last_seen=detail.lastSeen,
                      first_release=detail.firstReleaseShortVersion, last_release=detail.lastReleaseShortVersion,
                      permalink=link)


def error_markdown(issue: ErrorFacts, exceptions: list[ExceptionValue], console_link: str | None = None) -> str:
    """``exceptions`` in the stack trace view's shape: the shown event's, or the error's latest; ``console_link``
    the outpost:// link that opens the error in the console (console.core.outpost_links)."""
    if issue.first_release and issue.last_release and issue.first_release != issue.last_release:
        releases = f"{issue.first_release} → {issue.last_release}"
    else:
        releases = issue.first_release or issue.last_release or "—"
    lines = [f"### {issue.title}", ""]
    if issue.culprit:
        lines += [_code(issue.culprit), ""]
    lines += ["| | |", "|---|---|",
              f"| Events | {issue.count} |",
              f"| Users affected | {issue.user_count} |",
              f"| First seen | {_cell(short_time(issue.first_seen))} |",
              f"| Last seen | {_cell(short_time(issue.last_seen))} |",
              f"| Releases | {_cell(releases)} |"]
    frames = top_in_app_frames(exceptions)
    if frames:
        lines += ["", "Top application frames (most recent call first):", ""]
        lines += [f"- {_code(frame_label(frame))}" for frame in frames]
    links = ([f"[Open in Outpost]({console_link})"] if console_link else []) + (
        [f"[API]({issue.permalink})" if console_link else f"[Open the error]({issue.permalink})"]
        if issue.permalink else [])
    if links:
        lines += ["", " · ".join(links)]
    return "\n".join(lines) + "\n"
