from alembic import context

engine = context.config.attributes["engine"]

with engine.begin() as connection:
    context.configure(connection=connection, render_as_batch=engine.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()
