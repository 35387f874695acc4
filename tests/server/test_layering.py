"""The server's layers that import-linter cannot state, read from its import statements and its code.

Which package may import which: a domain package uses the shared modules at the top of outpost_server, the
request's authentication (auth, middleware), accounts (who may do what), application_settings and compat;
exports also reads vulnerabilities, Sentry's web API reads error tracking, and alerts read error tracking and
serve beside Sentry's web API; mail is shared by the domains that notify, outbound HTTP by the domains that
call out. Nothing imports back up into the composition modules (app, cli, demo, workers). (The top-level
authentication modules and accounts import each other, which a layers contract cannot express; the rules a
contract can say are in pyproject.toml and `lint-imports` checks them.) Commits have one owner: the units of
work of db.py (a request's session, a background job's session_scope, or connection_scope for Core writes); no
router or service commits. The other transactions are not the main database's: the ingest spool's own file
(spool.py) and Alembic's migrations.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.support import REPO_ROOT

PACKAGE_ROOT = REPO_ROOT / "server" / "outpost_server"
COMPOSITION = {"outpost_server.app", "outpost_server.cli", "outpost_server.demo", "outpost_server.workers",
               "outpost_server.__main__"}
SHARED = "(top level)"
# Top-level modules that resolve the request's user, and so read accounts.
AUTH = "(auth)"
AUTH_MODULES = {"outpost_server.auth", "outpost_server.auth_bans", "outpost_server.request_throttle",
                "outpost_server.unauthenticated_cap",
                "outpost_server.middleware"}
BOTTOM = {SHARED, "compat"}
ALLOWED: dict[str, set[str]] = {
    "compat": set(),
    SHARED: {"compat"},
    AUTH: BOTTOM | {"accounts"},
    "accounts": BOTTOM | {AUTH, "application_settings"},
    "application_settings": BOTTOM | {AUTH},
    "variables": BOTTOM | {AUTH, "accounts", "application_settings"},
    "vulnerabilities": BOTTOM | {AUTH, "accounts"},
    "exports": BOTTOM | {AUTH, "accounts", "vulnerabilities", "mail"},
    # Outgoing mail: SMTP settings and sending, for any domain that notifies.
    "mail": BOTTOM,
    # Outbound HTTP: the one transport and URL policy of every request the server sends.
    "outbound": BOTTOM | {"application_settings"},
    "error_tracking": BOTTOM | {AUTH, "accounts", "application_settings", "source_maps", "outbound"},
    "sentry_api": BOTTOM | {AUTH, "accounts", "error_tracking"},
    # Alerts read errors (evaluated in error tracking's batches through batch_outcome, registered by app.py)
    # and monitors' turns (state.observe_turns, registered by app.py too),
    # serve under Sentry's web API with its access rules, send mail and use the outbound URL policy.
    "alerts": BOTTOM | {AUTH, "accounts", "application_settings", "error_tracking", "sentry_api", "mail",
                        "monitors", "outbound"},
    # Monitors store the check-ins error tracking's pipeline digests and serve under Sentry's web API.
    "monitors": BOTTOM | {AUTH, "accounts", "error_tracking", "sentry_api"},
    # Source maps are uploaded through Sentry's web API (its access helpers) and applied by the digest.
    "source_maps": BOTTOM | {AUTH, "accounts", "sentry_api"},
    "graphql": BOTTOM | {AUTH, "accounts", "error_tracking", "application_settings"},
    # partition_move.py moves PostgreSQL's events into today's partitions after the revisions have run; the
    # revisions themselves import no domain module (migrations/test_frozen_migrations.py).
    "migrations": {SHARED, "error_tracking"},
    # backup, restore and check: the schema's revisions, the spool, the event partitions on PostgreSQL.
    "maintenance": BOTTOM | {"migrations", "error_tracking"},
    # The OpenAPI document's response shapes: plain data.
    "openapi": BOTTOM,
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_of(module: str) -> str:
    if module in AUTH_MODULES:
        return AUTH
    parts = module.split(".")
    if len(parts) > 1 and (PACKAGE_ROOT / parts[1]).is_dir():
        return parts[1]
    return SHARED


def _is_module(name: str) -> bool:
    location = PACKAGE_ROOT.parent / name.replace(".", "/")
    return location.is_dir() or location.with_suffix(".py").exists()


def _imports(path: Path) -> set[str]:
    """Absolute names of the modules a file imports (relative imports resolved)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names if _is_module(f"{base}.{alias.name}"))
    return found


def _sources() -> list[Path]:
    return sorted(PACKAGE_ROOT.rglob("*.py"))


def test_the_import_reader_sees_the_servers_own_imports():
    app_imports = _imports(PACKAGE_ROOT / "app.py")
    assert "outpost_server.exports.router" in app_imports
    assert "outpost_server.error_tracking.router" in app_imports
    relative = _imports(PACKAGE_ROOT / "error_tracking" / "routes" / "settings.py")
    assert "outpost_server.error_tracking.client_keys" in relative


@pytest.mark.parametrize("path", _sources(), ids=lambda path: str(path.relative_to(PACKAGE_ROOT)))
def test_packages_import_only_what_their_layer_allows(path):
    module = _module_name(path)
    if module in COMPOSITION:
        return
    package = _package_of(module)
    forbidden = []
    for imported in _imports(path):
        if not imported.startswith("outpost_server") or imported == "outpost_server":
            continue
        if imported in COMPOSITION:
            forbidden.append(imported)
            continue
        target = _package_of(imported)
        if target != package and target not in ALLOWED[package]:
            forbidden.append(imported)
    assert not forbidden, f"{module} ({package}) imports {forbidden}"


# Error tracking's stages in the pipeline's order, source maps beside the digest, services without HTTP, and the
# console's core without Qt are import-linter contracts in pyproject.toml (`lint-imports`, run by `make lint`).


# Raw SQL that ends a transaction: COMMIT, or END (SQLite's and PostgreSQL's synonym), as a statement in
# capitals as the server writes SQL (lower case "commit" and "end" are words and keys).
RAW_COMMIT = re.compile(r"^\s*(COMMIT|END)(\s+TRANSACTION)?\s*;?\s*$")
# Their own units of work, outside the main database's: the ingest spool file (sqlite3, BEGIN IMMEDIATE ...
# COMMIT), and Alembic's migrations.
# The maintenance commands run beside the server, not in it: a backup's snapshot is a read transaction of
# its own, and a restore loads its rows in one transaction of its own.
OWN_TRANSACTIONS = {"db.py", "error_tracking/ingest/spool.py", "maintenance/snapshot.py", "maintenance/restore.py"}


def _commits(source: str) -> list[str]:
    """Every way a module could end a transaction itself: `.commit()`, `.begin()` (a connection or engine
    transaction committed at the block's end) and raw COMMIT statements."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args and (
                node.func.attr in ("commit", "begin")):
            found.append(f"{node.func.attr}() (line {node.lineno})")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and RAW_COMMIT.match(node.value):
            found.append(f"{node.value.strip()} (line {node.lineno})")
    return found


def test_the_commit_reader_sees_every_kind_of_commit():
    assert _commits("session.commit()") == ["commit() (line 1)"]
    assert _commits("with engine.begin() as connection:\n    pass\n") == ["begin() (line 1)"]
    assert _commits("db.execute('COMMIT')") == ["COMMIT (line 1)"]
    assert _commits("db.execute('END TRANSACTION;')") == ["END TRANSACTION; (line 1)"]
    assert _commits("fields = ('commit', 'end')") == []
    assert _commits("with session.begin_nested():\n    pass\n") == []  # a savepoint, released not committed
    assert _commits((PACKAGE_ROOT / "db.py").read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", [path for path in _sources()
                                  if str(path.relative_to(PACKAGE_ROOT)) not in OWN_TRANSACTIONS
                                  and "migrations" not in path.parts],
                         ids=lambda path: str(path.relative_to(PACKAGE_ROOT)))
def test_only_the_units_of_work_commit(path):
    assert _commits(path.read_text(encoding="utf-8")) == [], (
        f"{path.relative_to(PACKAGE_ROOT)} commits; let db.session_scope or db.connection_scope do it")


# Background work has one way to start: background.BackgroundWorker. The exceptions, by design: the
# command line's own server task and parent watch (cli.py), the digester, a thread of the server or
# a process of its own (`serve --workers`), which has no event loop to run on, and its decode processes'
# watch of the digester (decode_pool.py), in processes without an event loop either.
STARTS_BACKGROUND_WORK = ("create_task", "ensure_future", "Thread")
MAY_START_BACKGROUND_WORK = {"background.py", "cli.py", "error_tracking/digest/digester.py",
                             "error_tracking/digest/decode_pool.py"}


def _background_starts(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in STARTS_BACKGROUND_WORK:
                found.append(f"{name} (line {node.lineno})")
    return found


def test_the_background_reader_sees_a_task_start():
    assert _background_starts(PACKAGE_ROOT / "background.py")


@pytest.mark.parametrize("path", [path for path in _sources()
                                  if str(path.relative_to(PACKAGE_ROOT)) not in MAY_START_BACKGROUND_WORK],
                         ids=lambda path: str(path.relative_to(PACKAGE_ROOT)))
def test_background_work_starts_only_as_a_background_worker(path):
    assert _background_starts(path) == [], f"{path.relative_to(PACKAGE_ROOT)}: use background.BackgroundWorker"


# What a process shares reaches routes and middleware one way: deps.Services, typed, never an attribute
# looked up on the application's `state`. Workers are started and stopped one way: entered on app.py's exit
# stack (no stop callbacks pushed beside it), and a worker's blocking work goes through its own `blocking()`.
def _wiring_faults(source: str) -> list[str]:
    tree = ast.parse(source)
    workers = {node.lineno for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
               and any(getattr(base, "id", "") == "BackgroundWorker" for base in node.bases)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "state" and "app" in (
                getattr(node.value, "id", ""), getattr(node.value, "attr", ""),
                getattr(getattr(node.value, "slice", None), "value", "")):
            found.append(f"app.state (line {node.lineno})")
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name == "push_async_callback" or (name == "run_in_threadpool" and workers):
                found.append(f"{name} (line {node.lineno})")
    return found


def test_the_wiring_reader_sees_each_fault():
    assert _wiring_faults("key = request.app.state.secret_key") == ["app.state (line 1)"]
    assert _wiring_faults("bans = getattr(app.state, 'auth_bans', None)") == ["app.state (line 1)"]
    assert _wiring_faults("stack.push_async_callback(worker.stop)") == ["push_async_callback (line 1)"]
    worker = "class Cache(BackgroundWorker):\n    async def tick(self):\n        await run_in_threadpool(self.read)\n"
    assert _wiring_faults(worker) == ["run_in_threadpool (line 3)"]
    assert _wiring_faults("state = scope['app'].state") == ["app.state (line 1)"]
    assert _wiring_faults("request.state.user_id = 1") == []


@pytest.mark.parametrize("path", _sources(), ids=lambda path: str(path.relative_to(PACKAGE_ROOT)))
def test_services_are_received_and_workers_entered(path):
    assert _wiring_faults(path.read_text(encoding="utf-8")) == [], (
        f"{path.relative_to(PACKAGE_ROOT)}: receive deps.Services; enter workers on app.py's exit stack; "
        "a worker's blocking work goes through BackgroundWorker.blocking")


# HTTP modules are named one way: a package's HTTP surface is its `router.py`, which app.py mounts; when a
# package serves several resources, each is `routes/<resource>.py`, mounted by that package's router.py.
def _declares_routes(path: Path) -> bool:
    return any(isinstance(node, ast.Call) and getattr(node.func, "id", "") == "APIRouter"
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def test_the_route_reader_sees_a_router():
    assert _declares_routes(PACKAGE_ROOT / "variables" / "router.py")


@pytest.mark.parametrize("path", _sources(), ids=lambda path: str(path.relative_to(PACKAGE_ROOT)))
def test_http_modules_are_routers_or_routes(path):
    if _declares_routes(path):
        assert path.name == "router.py" or path.parent.name == "routes", (
            f"{path.relative_to(PACKAGE_ROOT)} declares routes: name it router.py or move it into routes/")


ROUTE_MODULES = sorted(path for path in PACKAGE_ROOT.rglob("routes/*.py") if _declares_routes(path))


@pytest.mark.parametrize("path", ROUTE_MODULES, ids=lambda path: str(path.relative_to(PACKAGE_ROOT)))
def test_routes_are_mounted_by_their_packages_router(path):
    module = _module_name(path)
    router = path.parent.parent / "router.py"
    assert module in _imports(router), f"{router.relative_to(PACKAGE_ROOT)} does not mount {module}"
    importers = [source for source in _sources() if module in _imports(source) and source.parent != path.parent]
    assert importers == [router], f"{module} is imported by {importers}; only its package's router mounts it"


# Parameters are read one way: through the route's declaration (params.Param), which params.py enforces
# in each API's own way. No HTTP module reads the query string itself or declares FastAPI's Query().
# GraphQL is its own protocol: a GET carries the operation in its query string, and the schema declares
# the operation's arguments.
READS_QUERY_ITSELF = {"graphql/router.py"}


def _parameter_reads_around_declarations(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "query_params":
            found.append(f"query_params (line {node.lineno})")
        elif isinstance(node, ast.Call) and "Query" in (getattr(node.func, "id", ""), getattr(node.func, "attr", "")):
            found.append(f"Query() (line {node.lineno})")
    return found


def test_the_parameter_reader_sees_a_query_string_read():
    assert _parameter_reads_around_declarations(PACKAGE_ROOT / "params.py")
    assert _parameter_reads_around_declarations(PACKAGE_ROOT / "graphql" / "router.py")


HTTP_MODULES = sorted(path for path in _sources() if path.name == "router.py" or path.parent.name == "routes")


@pytest.mark.parametrize("path", HTTP_MODULES, ids=lambda path: str(path.relative_to(PACKAGE_ROOT)))
def test_routes_read_parameters_through_their_declarations(path):
    if str(path.relative_to(PACKAGE_ROOT)) in READS_QUERY_ITSELF:
        return
    assert _parameter_reads_around_declarations(path) == [], (
        f"{path.relative_to(PACKAGE_ROOT)}: declare the parameter with params.Param and read it from ParamsDep")
