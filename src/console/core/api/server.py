"""Which server the console talks to, and what it can do there (detection.py asks it).

``GET /version`` tells GitLab from Outpost: Outpost answers GitLab's body with a revision of the form
``outpost-<version>``; GitLab's revision is a commit id. The GraphQL schema tells whether error
tracking can be read through ``Project.sentryErrors`` (introspection is on, on GitLab as on Outpost).

What only Outpost offers to a token holder (GitLab serves these web routes to browser sessions only,
``Projects::ErrorTrackingController`` and its siblings authenticate no personal access tokens):
changing an error's status (``PUT /:project/-/error_tracking/:id.json``), the status filter and
search keys of the list, listing an external Sentry's projects (``…/error_tracking/projects.json``),
and the richer detail (environment, all tags, release health, chained exceptions).
"""

from __future__ import annotations

from dataclasses import dataclass

from outpost_model.instance import Version

OUTPOST_REVISION_PREFIX = "outpost-"


@dataclass(frozen=True)
class ServerInfo:
    """The server's ``/version`` answer (None before it was read) and what the schema offers."""

    version: Version | None = None
    graphql_error_tracking: bool = False

    @property
    def is_outpost(self) -> bool:
        return self.version is not None and self.version.revision.startswith(OUTPOST_REVISION_PREFIX)

    @property
    def version_text(self) -> str:
        """The version the server names ("17.5.0-ee"); "unknown" before it was read."""
        return self.version.version if self.version is not None else "unknown"

    @property
    def product(self) -> str:
        return "Outpost" if self.is_outpost else "GitLab"

    @property
    def web_routes_take_tokens(self) -> bool:
        """Whether the project's web JSON routes (status changes, Sentry project list) accept the token."""
        return self.is_outpost

