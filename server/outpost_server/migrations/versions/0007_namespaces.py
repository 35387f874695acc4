"""Namespaces: one id space for groups and users' personal namespaces, as GitLab has it.

The groups table becomes the namespaces table (kind "group"), so every group keeps its id and
every foreign key to it follows the rename (PostgreSQL tracks tables by oid; SQLite 3.26+
rewrites references on RENAME). Each user gets a personal namespace (kind "user") with an id
from the same sequence. Projects' group_id becomes namespace_id; a project that had none lived
in its creator's personal namespace and now points at it, so every project keeps its path.

Nothing here rebuilds a table: on SQLite a rebuild drops the old table, and with foreign keys on
that would cascade into members, exports and error tracking rows.

Revision ID: 0007_namespaces
Revises: 0001_accounts
"""
import sqlalchemy as sa
from alembic import op

revision = "0007_namespaces"
down_revision = "0001_accounts"
branch_labels = None
# 0004 creates a foreign key to "groups"; it must exist under that name when 0004 runs.
depends_on = ("0004_vulnerabilities",)


def upgrade() -> None:
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    op.rename_table("groups", "namespaces")
    op.drop_index("ix_groups_parent_id", table_name="namespaces")
    op.create_index("ix_namespaces_parent_id", "namespaces", ["parent_id"])
    op.add_column("namespaces", sa.Column("kind", sa.String(16), nullable=False, server_default="group"))
    if sqlite:
        # ADD COLUMN ... REFERENCES is the one way SQLite adds a foreign key without a rebuild.
        op.execute("ALTER TABLE namespaces ADD COLUMN owner_id INTEGER REFERENCES users (id) ON DELETE CASCADE")
    else:
        op.add_column("namespaces", sa.Column("owner_id", sa.Integer))
        op.create_foreign_key("fk_namespaces_owner_id_users", "namespaces", "users", ["owner_id"], ["id"],
                              ondelete="CASCADE")
    op.create_index("ix_namespaces_owner_id", "namespaces", ["owner_id"])

    _create_personal_namespaces(bind)
    # What PUT /users can change besides name, username, email and admin.
    op.add_column("users", sa.Column("bio", sa.Text, nullable=False, server_default=""))
    op.add_column("users", sa.Column("can_create_group", sa.Boolean, nullable=False, server_default=sa.true()))
    op.add_column("users", sa.Column("projects_limit", sa.Integer, nullable=False, server_default="100000"))

    op.execute("ALTER TABLE projects RENAME COLUMN group_id TO namespace_id")
    op.drop_index("ix_projects_group_id", table_name="projects")
    op.create_index("ix_projects_namespace_id", "projects", ["namespace_id"])
    op.execute(
        "UPDATE projects SET namespace_id = (SELECT namespaces.id FROM namespaces WHERE namespaces.kind = 'user' "
        "AND namespaces.owner_id = projects.creator_id) WHERE namespace_id IS NULL"
    )
    if not sqlite:
        op.alter_column("projects", "namespace_id", existing_type=sa.Integer, nullable=False)


def _create_personal_namespaces(bind) -> None:
    users = bind.execute(sa.text("SELECT id, username, name, created_at FROM users ORDER BY id")).all()
    taken = {row[0] for row in bind.execute(sa.text("SELECT full_path FROM namespaces"))}
    namespaces = sa.table(
        "namespaces", sa.column("kind"), sa.column("name"), sa.column("path"), sa.column("full_path"),
        sa.column("full_name"), sa.column("description"), sa.column("visibility"), sa.column("owner_id"),
        sa.column("created_at"),
    )
    rows = []
    for user_id, username, name, created_at in users:
        # The old schema let a top-level group and a user share a name, which GitLab forbids. The
        # user's namespace then gets a free path (the user's projects keep theirs).
        path, suffix = username, 0
        while path.lower() in {taken_path.lower() for taken_path in taken}:
            suffix += 1
            path = f"{username}{suffix}"
        taken.add(path)
        rows.append({"kind": "user", "name": name, "path": path, "full_path": path, "full_name": name,
                     "description": "", "visibility": "public", "owner_id": user_id, "created_at": created_at})
    if rows:
        op.bulk_insert(namespaces, rows)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # owner_id is a foreign key, which SQLite can drop only by rebuilding the table (see above).
        raise NotImplementedError("0007_namespaces cannot be downgraded on SQLite; restore a backup instead")
    op.alter_column("projects", "namespace_id", existing_type=sa.Integer, nullable=True)
    op.execute("UPDATE projects SET namespace_id = NULL WHERE namespace_id IN "
               "(SELECT id FROM namespaces WHERE kind = 'user')")
    op.drop_index("ix_projects_namespace_id", table_name="projects")
    op.execute("ALTER TABLE projects RENAME COLUMN namespace_id TO group_id")
    op.create_index("ix_projects_group_id", "projects", ["group_id"])
    op.execute("DELETE FROM namespaces WHERE kind = 'user'")
    for column in ("bio", "can_create_group", "projects_limit"):
        op.drop_column("users", column)
    op.drop_index("ix_namespaces_owner_id", table_name="namespaces")
    op.drop_constraint("fk_namespaces_owner_id_users", "namespaces", type_="foreignkey")
    op.drop_column("namespaces", "owner_id")
    op.drop_column("namespaces", "kind")
    op.drop_index("ix_namespaces_parent_id", table_name="namespaces")
    op.create_index("ix_groups_parent_id", "namespaces", ["parent_id"])
    op.rename_table("namespaces", "groups")
