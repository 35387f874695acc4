"""Accounts: usernames and full paths unique in any case, by unique indexes on lower(...) as GitLab's are.

Before these indexes, two requests racing could create `racer0` and `RACER0`. Such duplicates are renamed
first: of each set of names equal but for case, the oldest row (lowest id) keeps its name and each later
one gets the lowest number appended that makes it free (`RACER0` becomes `RACER01`), as GitLab's
Uniquify names a path that is taken; the personal namespaces of the users renamed are not counted as taken,
since they take the new names. A renamed user's personal namespace and projects follow the new
username; a renamed group takes its subgroups and projects along. Each rename is logged as a warning.
Names that break GitLab's path rules are left as they are: GitLab checks a path only when it changes.

Revision ID: 0022_lower_unique_names
Revises: 0014_accounts_autoincrement
"""
import logging

import sqlalchemy as sa
from alembic import op

revision = "0022_lower_unique_names"
down_revision = "0014_accounts_autoincrement"
branch_labels = None
depends_on = None

log = logging.getLogger("outpost_server.migrations")
INDEXES = (("ix_users__lower_username", "users", "username"),
           ("ix_namespaces__lower_full_path", "namespaces", "full_path"),
           ("ix_projects__lower_full_path", "projects", "full_path"))


def _free(name: str, taken: set[str]) -> str:
    number = 1
    while f"{name}{number}".lower() in taken:
        number += 1
    return f"{name}{number}"


def _move_below(bind, old: str, new: str) -> None:
    """Every namespace and project below the full path `old` moves below `new`."""
    for table in ("namespaces", "projects"):
        bind.execute(sa.text(f"UPDATE {table} SET full_path = :new || substr(full_path, :cut) "
                             f"WHERE substr(full_path, 1, :length) = :prefix"),
                     {"new": new, "cut": len(old) + 1, "length": len(old) + 1, "prefix": old + "/"})


def _rename_users(bind) -> None:
    rows = bind.execute(sa.text("SELECT id, username FROM users ORDER BY id")).all()
    first: set[str] = set()
    renamed = set()
    for user_id, username in rows:
        if username.lower() in first:
            renamed.add(user_id)
        first.add(username.lower())
    # The personal namespaces of the users renamed here take their new names: theirs are not taken (0007
    # named them with a number already, `RACER01`, which would have pushed the user to `RACER03`).
    personal = dict(bind.execute(sa.text("SELECT owner_id, full_path FROM namespaces WHERE kind = 'user'")).all())
    taken = {username.lower() for _, username in rows}
    taken |= {path.lower() for path, kind, owner in bind.execute(sa.text(
        "SELECT full_path, kind, owner_id FROM namespaces WHERE parent_id IS NULL"))
        if not (kind == "user" and owner in renamed)}
    seen: set[str] = set()
    for user_id, username in rows:
        if user_id not in renamed:
            seen.add(username.lower())
            continue
        new = _free(username, taken)
        taken.add(new.lower())
        seen.add(new.lower())
        bind.execute(sa.text("UPDATE users SET username = :new WHERE id = :id"), {"new": new, "id": user_id})
        bind.execute(sa.text("UPDATE namespaces SET path = :new, full_path = :new "
                             "WHERE kind = 'user' AND owner_id = :id"), {"new": new, "id": user_id})
        _move_below(bind, personal.get(user_id, username), new)
        log.warning("user %d: username %r differed from an older one only in case; it is now %r",
                    user_id, username, new)


def _rename_namespaces(bind) -> None:
    # Shallowest first, so a renamed group's subgroups are compared under its new path.
    while True:
        rows = bind.execute(sa.text("SELECT id, kind, path, full_path, owner_id FROM namespaces ORDER BY id")).all()
        seen: set[str] = set()
        duplicate = None
        for row in sorted(rows, key=lambda r: (r.full_path.count("/"), r.id)):
            if row.full_path.lower() in seen:
                duplicate = row
                break
            seen.add(row.full_path.lower())
        if duplicate is None:
            return
        taken = {row.full_path.lower() for row in rows}
        if duplicate.kind == "user":
            taken |= {name.lower() for name, in bind.execute(sa.text("SELECT username FROM users"))}
        parent = duplicate.full_path[:-len(duplicate.path)]
        new_path = _free(duplicate.path, {path[len(parent):] for path in taken if path.startswith(parent.lower())})
        new_full = parent + new_path
        bind.execute(sa.text("UPDATE namespaces SET path = :path, full_path = :full WHERE id = :id"),
                     {"path": new_path, "full": new_full, "id": duplicate.id})
        if duplicate.kind == "user":
            bind.execute(sa.text("UPDATE users SET username = :new WHERE id = :id"),
                         {"new": new_path, "id": duplicate.owner_id})
        _move_below(bind, duplicate.full_path, new_full)
        log.warning("namespace %d: path %r differed from an older one only in case; it is now %r",
                    duplicate.id, duplicate.full_path, new_full)


def _rename_projects(bind) -> None:
    rows = bind.execute(sa.text("SELECT id, path, full_path FROM projects ORDER BY id")).all()
    taken = {row.full_path.lower() for row in rows}
    seen: set[str] = set()
    for row in rows:
        if row.full_path.lower() not in seen:
            seen.add(row.full_path.lower())
            continue
        parent = row.full_path[:-len(row.path)]
        new_path = _free(row.path, {path[len(parent):] for path in taken if path.startswith(parent.lower())})
        taken.add((parent + new_path).lower())
        seen.add((parent + new_path).lower())
        bind.execute(sa.text("UPDATE projects SET path = :path, full_path = :full WHERE id = :id"),
                     {"path": new_path, "full": parent + new_path, "id": row.id})
        log.warning("project %d: path %r differed from an older one only in case; it is now %r",
                    row.id, row.full_path, parent + new_path)


def upgrade() -> None:
    bind = op.get_bind()
    _rename_users(bind)
    _rename_namespaces(bind)
    _rename_projects(bind)
    for name, table, column in INDEXES:
        op.create_index(name, table, [sa.text(f"lower({column})")], unique=True)


def downgrade() -> None:
    for name, table, _column in INDEXES:
        op.drop_index(name, table_name=table)
