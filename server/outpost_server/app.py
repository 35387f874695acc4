"""The ASGI application factory."""

from __future__ import annotations

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


def create_app(settings: Settings | None = None, *, demo: bool = False) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        prepare(app, settings, demo=demo)
        try:
            for hook in app.state.startup_hooks:
                await hook(app)
            yield
        finally:
            for hook in reversed(app.state.shutdown_hooks):
                await hook(app)
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


def prepare(app: FastAPI, settings: Settings, *, demo: bool) -> None:
    """Opens the database, applies migrations, ensures the root user and loads demo data."""
    from outpost_server.accounts.users import ensure_root
    from outpost_server.demo import seed_demo_once

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    app.state.secret_key = settings.resolved_secret_key()
    engine = make_engine(settings.sqlalchemy_url())
    upgrade_database(engine)
    app.state.engine = engine
    app.state.sessionmaker = make_sessionmaker(engine)
    with session_scope(app.state.sessionmaker) as session:
        if settings.root_token:
            ensure_root(session, token=settings.root_token, secret_key=app.state.secret_key)
    if demo:
        with session_scope(app.state.sessionmaker) as session:
            seed_demo_once(session, settings=settings, secret_key=app.state.secret_key)


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
