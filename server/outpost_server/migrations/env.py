from alembic import context

engine = context.config.attributes["engine"]
sqlite = engine.dialect.name == "sqlite"

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
            context.configure(connection=connection, render_as_batch=sqlite)
            with context.begin_transaction():
                context.run_migrations()
        if sqlite:
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
            connection.commit()
            if broken:
                raise RuntimeError(f"the migration left rows whose foreign keys point nowhere: {broken[:5]}")
    finally:
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()
