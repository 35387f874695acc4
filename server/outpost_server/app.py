"""The ASGI application factory."""

from __future__ import annotations

import gc
import importlib
import logging
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from outpost_server import __version__, errors
from outpost_server.config import Settings, get_settings
from outpost_server.db import make_engine, make_sessionmaker, session_scope
from outpost_server.error_tracking.ingest import IngestWriter
from outpost_server.error_tracking.rate_limit import SharedRateLimit
from outpost_server.middleware import RequestMiddleware
from outpost_server.migrations import upgrade_database

API_PREFIX = "/api/v4"

# (module holding `router`, URL prefix). Each domain registers its router here.
ROUTERS = [
    ("outpost_server.accounts.router", API_PREFIX),
    ("outpost_server.variables.router", API_PREFIX),
    ("outpost_server.vulnerabilities.router", API_PREFIX),
    ("outpost_server.exports.router", API_PREFIX),
    ("outpost_server.error_tracking.router", API_PREFIX),
    ("outpost_server.error_tracking.retention_router", API_PREFIX),
    ("outpost_server.error_tracking.external.application_settings", API_PREFIX),
    # GitLab's GraphQL API at /api/graphql (not part of the REST OpenAPI document).
    ("outpost_server.graphql.router", ""),
    # Sentry's web API over the integrated error tracking backend.
    ("outpost_server.sentry_api.router", "/api/0"),
    # Web (non-API) JSON endpoints under /<namespace>/<project>/-/error_tracking.
    ("outpost_server.error_tracking.web.views", ""),
]

log = logging.getLogger("outpost.app")
# Allocations minus deallocations between young-generation collections (CPython's default: 700).
GC_THRESHOLD = 10_000


def create_app(settings: Settings | None = None, *, demo: bool = False, database_ready: bool = False) -> FastAPI:
    """The application; `database_ready` means `prepare_database` already ran (worker processes)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        open_database(app, settings, demo=demo, database_ready=database_ready)
        # The collector's batch writer and shared rate limit: requests wait on them, so they run as
        # long as the app serves.
        writer = IngestWriter(app.state.engine)
        writer.start()
        app.state.error_tracking_writer = writer
        limit = settings.error_tracking_rate_limit_per_minute
        rate_limit = SharedRateLimit(app.state.engine, limit_per_minute=limit) if limit > 0 else None
        if rate_limit is not None:
            rate_limit.start()
        app.state.error_tracking_rate_limit = rate_limit
        try:
            for hook in app.state.startup_hooks:
                await hook(app)
            _settle_garbage_collector()
            yield
        finally:
            for hook in reversed(app.state.shutdown_hooks):
                await hook(app)
            await writer.stop()
            if rate_limit is not None:
                await rate_limit.stop()
            app.state.engine.dispose()

    app = FastAPI(title="Outpost", version=__version__, lifespan=lifespan,
                  openapi_url=f"{API_PREFIX}/openapi.json", docs_url=None, redoc_url=None)
    app.state.settings = settings
    # Domains append coroutines taking the app (background workers, batch writers).
    app.state.startup_hooks = []
    app.state.shutdown_hooks = []
    for module_name, prefix in ROUTERS:
        module = importlib.import_module(module_name)
        app.include_router(module.router, prefix=prefix)
        if hasattr(module, "install"):
            module.install(app)
    _install_error_handlers(app)
    app.add_middleware(RequestMiddleware)
    return app


def _settle_garbage_collector() -> None:
    """Keeps the cyclic garbage collector off the long-lived start-up objects.

    Each ingested event allocates hundreds of containers (its decoded JSON), so collections run
    often; a full one used to walk every module, route and mapper object too, which cost about a
    fifth of the server's CPU under load. Frozen objects are never traversed; the larger first
    threshold lets short-lived request data die by reference counting before a collection runs.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])


def open_database(app: FastAPI, settings: Settings, *, demo: bool, database_ready: bool) -> None:
    """Opens the database for this process; unless `database_ready`, prepares it first (see below)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    app.state.secret_key = settings.resolved_secret_key()
    engine = make_engine(settings.sqlalchemy_url())
    if not database_ready:
        _initialize(engine, settings, secret_key=app.state.secret_key, demo=demo)
    app.state.engine = engine
    app.state.sessionmaker = make_sessionmaker(engine)


def prepare_database(settings: Settings, *, demo: bool) -> None:
    """Applies migrations, ensures the root user and loads demo data, then closes every connection.

    Run once before worker processes are forked, so they neither migrate concurrently nor inherit
    a connection.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = make_engine(settings.sqlalchemy_url())
    try:
        _initialize(engine, settings, secret_key=settings.resolved_secret_key(), demo=demo)
    finally:
        engine.dispose()


def _initialize(engine, settings: Settings, *, secret_key: str, demo: bool) -> None:
    from outpost_server.accounts.users import ensure_root
    from outpost_server.demo import seed_demo_once

    upgrade_database(engine)
    factory = make_sessionmaker(engine)
    with session_scope(factory) as session:
        if settings.root_token:
            ensure_root(session, token=settings.root_token, secret_key=secret_key)
    if demo:
        with session_scope(factory) as session:
            seed_demo_once(session, settings=settings, secret_key=secret_key)


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(errors.ApiError)
    async def api_error(_request: Request, exc: errors.ApiError):
        return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException):
        # GitLab's catch-all route answers any unknown path or method with this body.
        if exc.status_code in (404, 405):
            exc = errors.route_not_found()
            return JSONResponse(exc.body, status_code=exc.status)
        return JSONResponse({"message": f"{exc.status_code} {exc.detail}"}, status_code=exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError):
        names = []
        for error in exc.errors():
            location = [str(part) for part in error.get("loc", ()) if part not in ("path", "query", "body", "header")]
            name = location[-1] if location else "parameter"
            if name not in names:
                names.append(name)
        return JSONResponse({"error": ", ".join(f"{name} is invalid" for name in names)}, status_code=400)
