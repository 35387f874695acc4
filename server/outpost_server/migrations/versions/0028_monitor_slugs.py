"""Monitors: slugs stored before check-ins slugified them are made as Sentry makes them.

Until check-ins slugified their monitor's slug (Django's `slugify`, cut to 50, as Sentry's check-in consumer
does), a check-in stored the slug as sent: spaces, capitals, control and bidi characters, `<script>`. Each
such slug becomes its slugified form, so the job's next check-in (slugified the same way) still finds its
monitor. A slug that leaves nothing becomes `monitor`; one whose new slug the project already has gets the
lowest free `-2`, `-3`… Only the slug changes: the row, its environments and check-ins stay as they were.
Each change is logged as a warning, since a changed slug changes the monitor's API path.

The slug rule is written out here, as it was when this revision was made, so that the revision does the
same whatever the application's rule becomes.

Revision ID: 0028_monitor_slugs
Revises: 0023_monitors
"""
import logging
import re
import unicodedata
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = "0028_monitor_slugs"
down_revision = "0023_monitors"
branch_labels = None
depends_on = None

log = logging.getLogger("outpost_server.migrations")

SLUG_LENGTH = 50
EMPTY_SLUG = "monitor"


def slugified(value: str) -> str:
    ascii_only = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    words = re.sub(r"[^\w\s-]", "", ascii_only.lower())
    return re.sub(r"[-\s]+", "-", words).strip("-_")[:SLUG_LENGTH].strip("-")


def _free(wanted: str, taken: set[str]) -> str:
    if wanted not in taken:
        return wanted
    number = 2
    while True:
        suffix = f"-{number}"
        candidate = wanted[:SLUG_LENGTH - len(suffix)].rstrip("-") + suffix
        if candidate not in taken:
            return candidate
        number += 1


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, project_id, slug FROM monitors ORDER BY id")).all()
    taken: dict[int, set[str]] = defaultdict(set)
    for row in rows:
        if slugified(row.slug) == row.slug:
            taken[row.project_id].add(row.slug)
    for row in rows:
        if slugified(row.slug) == row.slug:
            continue
        new = _free(slugified(row.slug) or EMPTY_SLUG, taken[row.project_id])
        taken[row.project_id].add(new)
        bind.execute(sa.text("UPDATE monitors SET slug = :slug WHERE id = :id"), {"slug": new, "id": row.id})
        log.warning("monitor %d of project %d: slug %r is now %r, as check-ins slugify it", row.id, row.project_id,
                    row.slug, new)


def downgrade() -> None:
    """The slugs as sent are not kept: nothing to undo them with."""
