"""Alerts: a recipient's webhook URL encrypted at rest, as its signing secret is.

Slack and Discord webhook URLs, and many others, carry their token in the path. `url` becomes
`encrypted_url` (encrypted with the server's SecretBox, so this revision needs the server's secret key
when there are URLs to encrypt; `outpost-server serve` and `migrate` pass it), and `target` keeps what
the delivery log may show (the addresses, or the URL's scheme and host), so the digest's rule cache never
needs the key.

Revision ID: 0024_alert_url_encryption
Revises: 0017_alerts_autoincrement
"""
import base64
import hashlib
from urllib.parse import urlsplit

import sqlalchemy as sa
from alembic import context, op
from cryptography.fernet import Fernet, InvalidToken

revision = "0024_alert_url_encryption"
down_revision = "0017_alerts_autoincrement"
branch_labels = None
depends_on = None
# SQLite rebuilds the table to drop a column: the new one keeps AUTOINCREMENT (migration 0017).
KEEP_AUTOINCREMENT = {"sqlite_autoincrement": True}


class SecretBox:
    """The server's sealing of stored secrets as it was when this revision was written (security.SecretBox
    today): Fernet under a key derived from the secret key. Written out so this revision never changes."""

    def __init__(self, secret_key: str):
        key = hashlib.sha256(("outpost-secret-box:" + secret_key).encode()).digest()
        self._fernet = Fernet(base64.urlsafe_b64encode(key))

    def encrypt(self, plaintext: str) -> str:
        return self._fernet.encrypt(plaintext.encode()).decode()

    def decrypt(self, ciphertext: str) -> str | None:
        try:
            return self._fernet.decrypt(ciphertext.encode()).decode()
        except InvalidToken:
            return None


def _target(kind: str, url: str, addresses: list[str]) -> str:
    if kind == "email":
        return ", ".join(addresses) or "project members"
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


def upgrade() -> None:
    bind = op.get_bind()
    table = sa.table("alert_recipients", sa.column("id"), sa.column("recipient_type"), sa.column("url"),
                     sa.column("addresses", sa.JSON()), sa.column("encrypted_url"), sa.column("target"))
    rows = bind.execute(sa.select(table.c.id, table.c.recipient_type, table.c.url, table.c.addresses)).all()
    secret_key = context.config.attributes.get("secret_key")
    # Before any change: SQLite's driver commits each ALTER TABLE at once, so a later failure would leave
    # the table half changed.
    if any(row.url for row in rows) and not secret_key:
        raise RuntimeError("encrypting the alert webhook URLs needs the server's secret key: "
                           "run `outpost-server migrate` with the server's configuration")
    box = SecretBox(secret_key) if secret_key else None
    with op.batch_alter_table("alert_recipients") as batch:
        batch.add_column(sa.Column("encrypted_url", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("target", sa.Text(), nullable=False, server_default=""))
    for row in rows:
        encrypted = box.encrypt(row.url) if box is not None and row.url else ""
        bind.execute(table.update().where(table.c.id == row.id).values(
            encrypted_url=encrypted, target=_target(row.recipient_type, row.url or "", list(row.addresses or []))))
    with op.batch_alter_table("alert_recipients", table_kwargs=KEEP_AUTOINCREMENT) as batch:
        batch.drop_column("url")


def downgrade() -> None:
    with op.batch_alter_table("alert_recipients") as batch:
        batch.add_column(sa.Column("url", sa.String(2000), nullable=False, server_default=""))
    bind = op.get_bind()
    table = sa.table("alert_recipients", sa.column("id"), sa.column("url"), sa.column("encrypted_url"))
    secret_key = context.config.attributes.get("secret_key")
    for row in bind.execute(sa.select(table.c.id, table.c.encrypted_url)).all():
        if row.encrypted_url:
            url = SecretBox(secret_key).decrypt(row.encrypted_url) if secret_key else None
            if url is None:
                raise RuntimeError("decrypting the alert webhook URLs needs the server's secret key")
            bind.execute(table.update().where(table.c.id == row.id).values(url=url))
    with op.batch_alter_table("alert_recipients", table_kwargs=KEEP_AUTOINCREMENT) as batch:
        batch.drop_column("encrypted_url")
        batch.drop_column("target")
