"""An error's details as the console holds them (GraphQL's SentryDetailedError, and Outpost's extras), for tests of
the store's rules that need no server."""

from __future__ import annotations

from typing import Any

from console.core.api.error_tracking import ErrorDetails
from outpost_model.error_graphql import SentryDetailedError, SentryErrorTags
from outpost_model.error_tracking import ErrorDetail


def details(error_id: str, *, status: str = "UNRESOLVED", count: int = 1, user_count: int = 1,
            title: str = "ValueError: x", extras: ErrorDetail | None = None) -> ErrorDetails:
    return ErrorDetails(SentryDetailedError(
        id=f"gid://gitlab/Gitlab::ErrorTracking::DetailedError/{error_id}", sentryId=error_id, title=title,
        type="error", count=count, userCount=user_count, firstSeen="2026-01-01T00:00:00Z",
        lastSeen="2026-01-01T00:00:00Z", status=status, culprit="shop.checkout", message="x",
        externalUrl=f"http://outpost.test/acme/shop/-/error_tracking/{error_id}/details", frequency=[],
        externalBaseUrl="http://outpost.test", firstReleaseShortVersion=None, lastReleaseShortVersion=None,
        tags=SentryErrorTags(level="error", logger=None)), extras)


def extras(error_id: str, *, exception_type: str = "ValueError", **outpost: Any) -> ErrorDetail:
    """What Outpost's details route adds; ``outpost`` sets its own fields (environment, release_health, ...)."""
    return ErrorDetail(
        id=error_id, title="ValueError: x", type="error", user_count=1, count=1, first_seen=None, last_seen=None,
        message="x", culprit="shop.checkout", external_url="", project_id=1, project_name="shop",
        project_slug="shop", short_id=None, status="unresolved", frequency=[], external_base_url="",
        first_release_last_commit=None, first_release_short_version=None, first_release_version=None,
        last_release_last_commit=None, last_release_short_version=None, last_release_version=None,
        gitlab_issue=None, integrated=True, exception_type=exception_type, tags={"level": "error"},
        frequency_30d=[], **outpost)
