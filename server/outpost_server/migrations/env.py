import time
import warnings

from alembic import context
from sqlalchemy.exc import SAWarning

given = context.config.attributes.get("connection")
engine = given.engine if given is not None else context.config.attributes["engine"]
sqlite = engine.dialect.name == "sqlite"
report = context.config.attributes.get("report")
applied_at = time.monotonic()
SAY_AFTER_SECONDS = 1.0


def say_applied(ctx, step, heads, run_args) -> None:
    """Each revision that took a while, with its time: a long upgrade shows how far it is."""
    global applied_at
    now = time.monotonic()
    if report is not None and now - applied_at >= SAY_AFTER_SECONDS:
        report(f"Migrated to {', '.join(step.up_revision_ids)} in {now - applied_at:.1f} s")
    applied_at = now


def run(connection) -> None:
    context.configure(connection=connection, render_as_batch=sqlite, on_version_apply=say_applied)
    with context.begin_transaction(), warnings.catch_warnings():
        # Batch mode reflects a SQLite table before rebuilding it; the expression indexes it cannot reflect
        # (lower(...), migration 0022's) are made again by the revisions that own them.
        warnings.filterwarnings("ignore", message="Skipped unsupported reflection of expression-based index",
                                category=SAWarning)
        context.run_migrations()


def run_on_own_connection() -> None:
    with engine.connect() as connection:
        if sqlite:
            # A revision that rebuilds a table (batch mode) drops the old one, and with foreign keys on,
            # SQLite's DROP TABLE deletes its rows first and cascades into every table referring to it.
            # SQLite's own procedure for changing a table: foreign keys off outside the transaction, the
            # change, then a foreign key check before they are turned back on.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        try:
            with connection.begin():
                if sqlite:
                    # Python's sqlite3 opens a transaction only before a row change, so a revision's DDL that
                    # comes first would be committed at once and survive a later revision's failure.
                    connection.exec_driver_sql("BEGIN")
                run(connection)
            if sqlite:
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
                connection.commit()
                if broken:
                    raise RuntimeError(f"the migration left rows whose foreign keys point nowhere: {broken[:5]}")
        finally:
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()


if given is not None:
    # A restore's schema, made inside the transaction that then loads the rows (migrations.upgrade_within).
    run(given)
else:
    run_on_own_connection()
