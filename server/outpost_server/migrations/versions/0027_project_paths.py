"""Accounts: every project's full path is its namespace's full path and its own path, as GitLab's routes are.

Migration 0007 gave a user whose name a top-level group already had a personal namespace with a number
(`ops1`), but left the user's projects under the old path (`ops/notes`), where the group's own projects
live: the group could then not make a project of that name. Such projects move under their namespace's
path (`ops1/notes`); one whose new full path is taken gets the lowest free number, as 0022 names them.
Each move is logged as a warning.

Revision ID: 0027_project_paths
Revises: 0023_monitors
"""
import logging

import sqlalchemy as sa
from alembic import op

revision = "0027_project_paths"
down_revision = "0023_monitors"
branch_labels = None
depends_on = None

log = logging.getLogger("outpost_server.migrations")


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT p.id, p.path, p.full_path, n.full_path AS namespace_path FROM projects p "
        "JOIN namespaces n ON n.id = p.namespace_id ORDER BY p.id")).all()
    taken = {row.full_path.lower() for row in rows}
    for row in rows:
        wanted = f"{row.namespace_path}/{row.path}"
        if row.full_path == wanted:
            continue
        taken.discard(row.full_path.lower())
        path, number = row.path, 0
        while f"{row.namespace_path}/{path}".lower() in taken:
            number += 1
            path = f"{row.path}{number}"
        full_path = f"{row.namespace_path}/{path}"
        taken.add(full_path.lower())
        bind.execute(sa.text("UPDATE projects SET path = :path, full_path = :full WHERE id = :id"),
                     {"path": path, "full": full_path, "id": row.id})
        log.warning("project %d: %r was not under its namespace %r; it is now %r", row.id, row.full_path,
                    row.namespace_path, full_path)


def downgrade() -> None:
    """Nothing to undo: the old paths were the defect."""
