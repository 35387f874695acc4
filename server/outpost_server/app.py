"""The ASGI application factory."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException

from outpost_server import __version__, http_errors, openapi
from outpost_server.accounts.auth_failures import BanPolicy
from outpost_server.accounts.router import router as accounts_router
from outpost_server.alerts.delivery import context_of as alert_delivery_context
from outpost_server.alerts.evaluation import evaluate_batch as evaluate_alerts
from outpost_server.alerts.evaluation import evaluate_monitor_turns
from outpost_server.alerts.metrics import DeliveryFigures
from outpost_server.alerts.router import api_router as mail_router
from outpost_server.alerts.router import router as alerts_router
from outpost_server.alerts.sender import AlertSender
from outpost_server.application_settings.router import router as application_settings_router
from outpost_server.auth_bans import BanGate, BanList
from outpost_server.config import ServerConfig, load_config
from outpost_server.db import make_engine, make_sessionmaker, session_scope, taken_field
from outpost_server.deps import OutpostApp, Services
from outpost_server.domain_errors import DomainError
from outpost_server.error_tracking import router as error_tracking_api
from outpost_server.error_tracking.digest.batch_outcome import observe_batches, store_check_ins_with
from outpost_server.error_tracking.ingest.spool import Spool, spool_path
from outpost_server.error_tracking.pipeline.metrics import MetricsSources
from outpost_server.error_tracking.pipeline.router import api_router as ingestion_router
from outpost_server.error_tracking.pipeline.router import metrics_router
from outpost_server.error_tracking.pipeline.runtime import running_collector
from outpost_server.error_tracking.read.router import router as error_tracking_web_router
from outpost_server.error_tracking.retention.limits import instance_policy
from outpost_server.error_tracking.retention.pruner import Pruner
from outpost_server.exports.jobs import ExportWorker
from outpost_server.exports.metrics import ExportFigures
from outpost_server.exports.notify import mail_settings
from outpost_server.exports.router import router as exports_router
from outpost_server.graphql.router import router as graphql_router
from outpost_server.maintenance.check import run_checks
from outpost_server.middleware import DATABASE_OUTAGE, LITERAL_SECRETS, RequestMiddleware
from outpost_server.migrations import refuse_newer, upgrade_database
from outpost_server.monitors.clock import MonitorClockWorker
from outpost_server.monitors.ingest import store_check_ins
from outpost_server.monitors.router import router as monitors_router
from outpost_server.monitors.state import observe_turns
from outpost_server.request_throttle import Throttle, UnauthenticatedThrottles
from outpost_server.sentry_api.router import router as sentry_api_router
from outpost_server.source_maps.router import router as source_maps_router
from outpost_server.unauthenticated_cap import UnauthenticatedRequestCap
from outpost_server.variables.router import router as variables_router
from outpost_server.vulnerabilities.router import router as vulnerabilities_router
from outpost_server.write_gate import SqliteWriteGate

API_PREFIX = "/api/v4"

log = logging.getLogger("outpost.app")
# Alert rules are evaluated in the transaction of every stored batch, in whichever process digests it
# (workers.py forks the digester after importing this module).
observe_batches(evaluate_alerts)
# Monitor check-ins are stored in the same transactions, by the monitors package; the monitors that turn
# failing or recover are evaluated against the alert rules in the transaction that turned them.
store_check_ins_with(store_check_ins)
observe_turns(evaluate_monitor_turns)

# Allocations minus deallocations between young-generation collections (CPython's default: 700).
GC_THRESHOLD = 10_000


def create_app(config: ServerConfig | None = None, *, demo: bool = False, database_ready: bool = False,
               digest_in_process: bool = True) -> OutpostApp:
    """The application; `database_ready` means `prepare_database` already ran (worker processes), and
    without `digest_in_process` another process digests the collector's spool (workers.py)."""
    config = config or load_config()
    if not database_ready:
        _refuse_newer_database(config)

    @asynccontextmanager
    async def lifespan(app: OutpostApp) -> AsyncIterator[None]:
        app.services = open_database(config, demo=demo, database_ready=database_ready)
        try:
            async with background_workers(app.services, digest_in_process=digest_in_process):
                _settle_garbage_collector()
                yield
        finally:
            app.services.engine.dispose()

    app = OutpostApp(title="Outpost", version=__version__, lifespan=lifespan,
                     openapi_url=f"{API_PREFIX}/openapi.json", docs_url=None, redoc_url=None)
    for router in (accounts_router, variables_router, vulnerabilities_router, exports_router,
                   error_tracking_api.router, ingestion_router, application_settings_router, mail_router):
        app.include_router(router, prefix=API_PREFIX)
    # Prometheus metrics of the ingestion pipeline.
    app.include_router(metrics_router)
    # GitLab's GraphQL API at /api/graphql (not part of the REST OpenAPI document).
    app.include_router(graphql_router)
    # GlitchTip's project alerts API, Sentry's source map uploads and monitors, before the catch-all of Sentry's web
    # API over the integrated error tracking backend.
    app.include_router(alerts_router, prefix="/api/0")
    app.include_router(source_maps_router, prefix="/api/0")
    app.include_router(monitors_router, prefix="/api/0")
    app.include_router(sentry_api_router, prefix="/api/0")
    # GitLab's web (non-API) JSON endpoints under /<namespace>/<project>/-/error_tracking.
    app.include_router(error_tracking_web_router)
    error_tracking_api.install(app)
    openapi.install(app)
    _install_error_handlers(app)
    if config.sqlalchemy_url().startswith("sqlite"):
        app.add_middleware(SqliteWriteGate, concurrent=config.sqlite_concurrent_writes,
                           wait_seconds=config.database_wait_seconds)
    app.add_middleware(UnauthenticatedRequestCap, per_address=config.unauthenticated_requests_per_address)
    app.add_middleware(BanGate)
    app.add_middleware(RequestMiddleware)
    LITERAL_SECRETS.add(config.root_token)  # the request log filters it whatever it looks like
    return app


@asynccontextmanager
async def background_workers(services: Services, *, digest_in_process: bool) -> AsyncIterator[None]:
    """Every background worker of this process, each entered on one exit stack: started once the
    database is ready, stopped in reverse order before it closes. What routes and middleware use is
    registered on `services`."""
    config = services.config
    sessions = services.sessions
    async with AsyncExitStack() as workers:
        # Without OUTPOST_EXPORT_WORKER other replicas produce the files and wake() does nothing.
        export_worker = services.provide(ExportWorker(sessions, lease_seconds=config.export_lease_seconds,
                                                      mail=mail_settings(config)))
        if config.export_worker:
            await workers.enter_async_context(export_worker)
        if config.error_tracking_pruner:
            await workers.enter_async_context(Pruner(
                sessions, defaults=instance_policy(config),
                interval_seconds=config.error_tracking_prune_interval_seconds,
                unused_bundle_days=config.source_maps_unused_days))
        services.provide(await workers.enter_async_context(BanList(sessions, BanPolicy(
            max_failures=config.auth_ban_max_failures, find_seconds=config.auth_ban_window_seconds,
            ban_seconds=config.auth_ban_seconds, allowlist=BanPolicy.parse_allowlist(config.auth_ban_allowlist)))))
        services.provide(await workers.enter_async_context(UnauthenticatedThrottles(services.engine, [
            Throttle("throttle_unauthenticated_api", config.throttle_unauthenticated_api_requests_per_period,
                     config.throttle_unauthenticated_api_period_in_seconds),
            Throttle("throttle_unauthenticated_web", config.throttle_unauthenticated_web_requests_per_period,
                     config.throttle_unauthenticated_web_period_in_seconds)])))
        services.provide(await workers.enter_async_context(
            running_collector(services, digest_in_process=digest_in_process)))
        if config.alert_sender:
            await workers.enter_async_context(AlertSender(
                sessions, alert_delivery_context(config, secret_key=services.secret_key),
                lease_seconds=config.alert_lease_seconds, retry_seconds=config.alert_retry_seconds))
        if config.monitor_clock:
            await workers.enter_async_context(MonitorClockWorker(
                sessions, interval_seconds=config.monitor_clock_interval_seconds, retention=instance_policy(config)))
        yield


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


def _refuse_newer_database(config: ServerConfig) -> None:
    """Before anything starts: a database a newer Outpost migrated is refused (DatabaseNewer, which the command
    line prints naming both revisions) and left as it is."""
    if not config.database_url and not (config.data_dir / "outpost.sqlite3").exists():
        return
    # Only the refusal is this check's: a URL no driver takes, or a database not up yet, is left to the start
    # itself, which says so in its own words and waits for the database as configured.
    try:
        engine = make_engine(config.sqlalchemy_url())
    except SQLAlchemyError:
        return
    try:
        refuse_newer(engine)
    except (SQLAlchemyError, OSError):
        return
    finally:
        engine.dispose()


def open_database(config: ServerConfig, *, demo: bool, database_ready: bool) -> Services:
    """Opens the database for this process; unless `database_ready`, prepares it first (see below)."""
    config.prepare_data_dir()
    secret_key = config.resolved_secret_key()
    engine = make_engine(config.sqlalchemy_url(), wait_seconds=config.database_wait_seconds)
    DATABASE_OUTAGE.watch(engine)
    if not database_ready:
        _initialize(engine, config, secret_key=secret_key, demo=demo)
    services = Services(config=config, secret_key=secret_key, engine=engine, sessions=make_sessionmaker(engine))
    # /-/metrics: figures read from the database at each scrape, beside the pipeline's.
    services.provide(MetricsSources((DeliveryFigures, ExportFigures)))
    return services


def prepare_database(config: ServerConfig, *, demo: bool) -> None:
    """Applies migrations, ensures the root user and loads demo data, then closes every connection.

    Run once before worker processes are forked, so they neither migrate concurrently nor inherit
    a connection.
    """
    config.prepare_data_dir()
    engine = make_engine(config.sqlalchemy_url())
    try:
        _initialize(engine, config, secret_key=config.resolved_secret_key(), demo=demo)
    finally:
        engine.dispose()
    # The ingest spool too, so the workers open a file that is ready.
    Spool(spool_path(config.data_dir)).close()


def _initialize(engine, config: ServerConfig, *, secret_key: str, demo: bool) -> None:
    from outpost_server.accounts.users import ensure_root
    from outpost_server.demo import seed_demo_once

    upgrade_database(engine, secret_key=secret_key, report=log.info)
    # `outpost-server check`'s findings: what is wrong is said at every start.
    for finding in run_checks(engine, secret_key=secret_key, data_dir=config.data_dir):
        log.log(logging.INFO if finding.ok else logging.WARNING, "Check: %s", finding.text)
    factory = make_sessionmaker(engine)
    with session_scope(factory) as session:
        if config.root_token:
            ensure_root(session, token=config.root_token, secret_key=secret_key)
    if demo:
        with session_scope(factory) as session:
            seed_demo_once(session, config=config, secret_key=secret_key)


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(http_errors.ApiError)
    async def api_error(_request: Request, exc: http_errors.ApiError):
        return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(DomainError)
    async def domain_error(_request: Request, exc: DomainError):
        answer = http_errors.from_domain(exc)
        return JSONResponse(answer.body, status_code=answer.status, headers=answer.headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException):
        # GitLab's catch-all route answers any unknown path or method with this body.
        if exc.status_code in (404, 405):
            unknown_route = http_errors.route_not_found()
            return JSONResponse(unknown_route.body, status_code=unknown_route.status)
        return JSONResponse({"message": f"{exc.status_code} {exc.detail}"}, status_code=exc.status_code)

    @app.exception_handler(IntegrityError)
    async def integrity_error(request: Request, exc: IntegrityError):
        # A uniqueness check lost a race, or did not see a duplicate the constraint sees: GitLab's model
        # validation answer, never a 500. Other constraint failures stay unexpected errors.
        field = taken_field(exc)
        if field is None:
            raise exc
        log.warning("request %s: %s already taken (unique constraint)",
                    getattr(request.state, "request_id", "-"), field)
        # A full path is taken: GitLab reports its route's error on the path.
        field = "path" if field == "full_path" else field
        return JSONResponse({"message": {field: ["has already been taken"]}}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError):
        names = []
        for error in exc.errors():
            location = [str(part) for part in error.get("loc", ()) if part not in ("path", "query", "body", "header")]
            name = location[-1] if location else "parameter"
            if name not in names:
                names.append(name)
        return JSONResponse({"error": ", ".join(f"{name} is invalid" for name in names)}, status_code=400)
