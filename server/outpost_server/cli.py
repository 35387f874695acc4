"""The `outpost-server` command."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

from outpost_server import __version__
from outpost_server.platform_support import on_stop_signals, parent_alive, restrict_new_files, worker_processes
from outpost_server.server_log import configure_logging


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="outpost-server", description="Outpost API server")
    parser.add_argument("--version", action="version", version=f"outpost-server {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the API server")
    serve.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port to bind; 0 picks a free port (default 8080)")
    serve.add_argument("--database-url", default=None, help="SQLAlchemy URL (default: SQLite in the data dir)")
    serve.add_argument("--data-dir", default=None, help="directory for the SQLite database and secret key")
    serve.add_argument("--demo", action="store_true", help="load demo data once")
    serve.add_argument("--workers", default=None,
                       help="server processes sharing the socket: a number or 'auto' (one per CPU); default 1, "
                            "or OUTPOST_WORKERS")
    serve.add_argument("--watch-parent", action="store_true",
                       help="exit when the parent process exits (used by the console's local server)")
    serve.set_defaults(handler=run_serve)

    migrate = commands.add_parser("migrate", help="apply database migrations and exit")
    migrate.add_argument("--database-url", default=None)
    migrate.add_argument("--data-dir", default=None)
    migrate.set_defaults(handler=run_migrate)

    import_report = commands.add_parser("import-report", help="import a GitLab security report into a project")
    import_report.add_argument("project", help="project ID or full path, e.g. acme/webshop")
    import_report.add_argument("file", help="security report JSON (sast, dependency_scanning, container_scanning, "
                                            "secret_detection; schema 15.x)")
    import_report.add_argument("--database-url", default=None)
    import_report.add_argument("--data-dir", default=None)
    import_report.set_defaults(handler=run_import_report)

    prune = commands.add_parser("prune", help="apply the error tracking retention limits now")
    prune.add_argument("--dry-run", action="store_true", help="show what would be deleted and delete nothing")
    prune.add_argument("--database-url", default=None)
    prune.add_argument("--data-dir", default=None)
    prune.set_defaults(handler=run_prune)

    status = commands.add_parser(
        "status", help="show the ingestion pipeline's spool and digest figures, and the stored events per project")
    status.add_argument("--data-dir", default=None)
    status.add_argument("--prometheus", action="store_true", help="print Prometheus text, as /-/metrics serves it")
    status.set_defaults(handler=run_status)

    from outpost_server.maintenance.commands import add_commands

    add_commands(commands, config_from)
    return parser


def config_from(args: argparse.Namespace):
    from outpost_server.config import ServerConfig

    overrides: dict[str, Any] = {}
    if getattr(args, "host", None):
        overrides["host"] = args.host
    for name in ("port", "workers"):
        if getattr(args, name, None) is not None:
            overrides[name] = getattr(args, name)
    if getattr(args, "database_url", None):
        overrides["database_url"] = args.database_url
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    return ServerConfig(**overrides)


def run_serve(args: argparse.Namespace) -> int:
    # Until the server exists there is nothing to finish: a stop signal ends start-up quietly.
    on_stop_signals(lambda *_: sys.exit(0))
    config = config_from(args)
    configure_logging(config.log_level)
    host, port, workers = config.host, config.port, worker_processes(config.workers)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio only enables TCP_NODELAY on sockets that say so, and without it
    # every request on a kept-alive connection waits for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    shown_host = f"[{host}]" if family == socket.AF_INET6 else host
    listening = f"Listening on http://{shown_host}:{sock.getsockname()[1]}"
    if workers > 1:
        from outpost_server.workers import serve_with_workers

        return serve_with_workers(config, sock, count=workers, demo=args.demo, watch_parent=args.watch_parent,
                                  listening=listening)
    from outpost_server.app import create_app

    app = create_app(config, demo=args.demo)
    started = serve_app(app, config, sock, watch_parent=os.getppid() if args.watch_parent else None,
                        on_started=lambda: print(listening, flush=True))
    return 0 if started else 1


def serve_app(app, config, sock: socket.socket, *, watch_parent: int | None, on_started) -> bool:
    """Serves `app` on the bound socket until a stop signal; returns whether it ever started."""
    import uvicorn

    # access_log is off: uvicorn's access log prints query strings, which may carry tokens.
    # Idle keep-alive connections are kept 30 s (uvicorn's default is 5 s) so clients that pool
    # connections for a few seconds do not race the server closing them.
    # Behind a trusted proxy the request's scheme is the client's (X-Forwarded-Proto), so links say https.
    uvicorn_config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                                    http=_http_protocol(config),
                                    timeout_graceful_shutdown=config.shutdown_grace_seconds,
                                    timeout_keep_alive=30, proxy_headers=True,
                                    forwarded_allow_ips=config.forwarded_allow_ips,
                                    limit_concurrency=config.max_connections)
    server = uvicorn.Server(uvicorn_config)
    _stop_on_signals(server)
    if watch_parent is not None:
        _watch_parent(server, watch_parent)

    exit_codes: list[int | str | None] = []

    async def serve_until_exit() -> None:
        # uvicorn ends a failed start with sys.exit(3) inside this task, after logging why; caught here, the
        # exit happens once the loop is closed, not as a task exception nobody retrieved.
        try:
            await server.serve(sockets=[sock])
        except SystemExit as leaving:
            exit_codes.append(leaving.code)

    async def serve() -> None:
        task = asyncio.create_task(serve_until_exit())
        while not server.started and not task.done():
            await asyncio.sleep(0.02)
        if server.started:
            on_started()
        await task

    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        runner.run(serve())
    if exit_codes:
        raise SystemExit(exit_codes[0])
    return server.started


def _stop_on_signals(server) -> None:
    """SIGINT and SIGTERM ask the server to shut down gracefully, outside and inside uvicorn's own handling.

    While serving, uvicorn swaps in its own handlers; after its graceful shutdown it restores these and
    raises the signal once more so the previous handler sees it. Had that been Python's default SIGINT
    handler, asyncio.Runner would turn it into CancelledError and KeyboardInterrupt tracebacks and a
    non-zero exit; here it only repeats the request to stop, so the process exits 0.
    """

    def request_stop(signum, frame) -> None:
        server.should_exit = True

    on_stop_signals(request_stop)


def _http_protocol(config):
    """uvicorn's httptools protocol with one send per response and the header and body bounds, where
    httptools is installed."""
    try:
        from outpost_server.http_protocol import protocol_with_limits
    except ImportError:
        return "auto"
    return protocol_with_limits(max_header_bytes=config.max_header_bytes,
                                header_timeout=config.header_timeout_seconds,
                                body_timeout=config.body_timeout_seconds)


def _loop_factory():
    """uvloop where it is installed (uvicorn[standard] brings it on Linux and macOS): less CPU per request."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def _watch_parent(server, parent: int) -> None:
    """Stops the server once the process `parent` is gone (this process is then adopted)."""

    def watch() -> None:
        while not server.should_exit:
            if not parent_alive(parent):
                server.should_exit = True
                return
            threading.Event().wait(0.5)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def run_migrate(args: argparse.Namespace) -> int:
    from outpost_server.db import make_engine
    from outpost_server.migrations import upgrade_database

    config = config_from(args)
    config.prepare_data_dir()
    # Rows a revision leaves to move (PostgreSQL's event partitions) move in batches, with progress here.
    upgrade_database(make_engine(config.sqlalchemy_url()), secret_key=config.resolved_secret_key(),
                     report=lambda line: print(line, flush=True))
    print("Database is up to date")
    return 0


def run_import_report(args: argparse.Namespace) -> int:
    from outpost_server.accounts.service import find_project
    from outpost_server.db import make_engine, make_sessionmaker, session_scope
    from outpost_server.migrations import upgrade_database
    from outpost_server.vulnerabilities.reports import ReportError, parse_report
    from outpost_server.vulnerabilities.service import import_report

    config = config_from(args)
    try:
        report = parse_report(Path(args.file).read_bytes())
    except (OSError, ReportError) as exc:
        print(f"Cannot import {args.file}: {exc}", file=sys.stderr)
        return 1
    config.prepare_data_dir()
    engine = make_engine(config.sqlalchemy_url())
    upgrade_database(engine, secret_key=config.resolved_secret_key())
    with session_scope(make_sessionmaker(engine)) as session:
        project = find_project(session, args.project)
        if project is None:
            print(f"Project {args.project} not found", file=sys.stderr)
            return 1
        summary = import_report(session, project=project, report=report)
    print(f"Imported {summary.report_type} report from {summary.scanner} into {project.full_path}: "
          f"{summary.created} new, {summary.updated} updated, {summary.no_longer_detected} no longer detected")
    return 0


def run_prune(args: argparse.Namespace) -> int:
    from outpost_server.db import make_engine, make_sessionmaker, session_scope, utcnow
    from outpost_server.error_tracking.retention import limits, pruner
    from outpost_server.migrations import upgrade_database

    config = config_from(args)
    config.prepare_data_dir()
    engine = make_engine(config.sqlalchemy_url())
    upgrade_database(engine, secret_key=config.resolved_secret_key())
    factory = make_sessionmaker(engine)
    defaults = limits.instance_policy(config)
    if args.dry_run:
        results = limits.prune_all(factory, defaults=defaults, now=utcnow(), dry_run=True)
        print("Would delete:")
    else:
        owner = "prune-command-" + str(os.getpid())
        with session_scope(factory) as session:
            if not pruner.claim(session, owner=owner, interval_seconds=0, now=utcnow(), force=True):
                print("Another server process is pruning now; try again in a minute", file=sys.stderr)
                return 1
        results, source_maps = pruner.run_pass(factory, owner=owner, defaults=defaults,
                                               unused_bundle_days=config.source_maps_unused_days)
        print("Deleted:")
        for line in source_maps.describe():
            print("  " + line)
    for line in limits.describe(results):
        print("  " + line)
    return 0


def run_status(args: argparse.Namespace) -> int:
    from outpost_server.error_tracking.ingest.spool import spool_path
    from outpost_server.error_tracking.pipeline.metrics import describe, prometheus_text, read_snapshot

    config = config_from(args)
    if not spool_path(config.data_dir).exists():
        print(f"No ingest spool in {config.data_dir}: no server has run with this data dir", file=sys.stderr)
        return 1
    snapshot = read_snapshot(config.data_dir)
    if args.prometheus:
        sys.stdout.write(prometheus_text(snapshot).decode())
        return 0
    for line in describe(snapshot):
        print(line)
    return _print_storage(config)


def _print_storage(config) -> int:
    """Stored events per project and for the instance (storage_usage.py: disk sizes are estimates)."""
    from sqlalchemy.exc import SQLAlchemyError

    from outpost_server.db import make_engine, make_sessionmaker, read_only_scope
    from outpost_server.error_tracking.retention.storage_usage import describe, instance_storage

    engine = make_engine(config.sqlalchemy_url())
    try:
        with read_only_scope(make_sessionmaker(engine)) as session:
            lines = describe(instance_storage(session))
    except SQLAlchemyError as exc:
        print(f"Stored events: the database cannot be read ({type(exc).__name__})", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    print("Stored events:")
    for line in lines:
        print("  " + line)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Whatever the server writes (the database and its -wal and -shm, the spool, exports) is for its own
    # user alone: files 0600, directories 0700 (ServerConfig.prepare_data_dir tightens older ones).
    restrict_new_files()
    # Until a command installs its own handling (serve does), SIGTERM ends the process quietly.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    from outpost_server.migrations import DatabaseNewer

    try:
        return args.handler(args)
    except DatabaseNewer as refusal:
        print(refusal, file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
