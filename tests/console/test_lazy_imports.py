"""Imports inside functions are kept for loading later what the console starts without: a tab, built when first
shown; the window's second step and what opens on demand, after the first frame (test_first_frame lists what
that frame must not load); and the command line, which answers --version or --demo-reset without Qt. Every
function that imports is listed here with the reason; an import inside any other function fails this test: it
belongs at the top of its module, where a reader (and the import graph) sees it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

CONSOLE = Path(__file__).resolve().parents[2] / "src" / "console"

# Module (relative to src/console) -> the functions (by qualified name) that may import.
LAZY = {
    # Tabs: each is built when first shown, with what only tabs use.
    "tabs.py": {"_overview", "_variables", "_variables_actions", "_exports", "_exports_actions", "_errors",
                "_errors_actions"},
    "tab_links.py": {"TabLinks._overview", "TabLinks._errors", "TabLinks.tab_created", "TabLinks.show_project_counts",
                     "TabLinks.open_target"},
    # The window: its second step (menus, tray, watcher, tab links) once the first frame is painted; a created
    # tab's accessible names; the connection dialog and a link opened on demand; the shutdown's operation.
    "main_window.py": {"MainWindow.complete_setup", "MainWindow._tab_created", "MainWindow.open_connection_dialog",
                       "MainWindow.open_link", "MainWindow.closeEvent"},
    # Loaded for the first frame, they reach for asyncio, the API client, the local server and the keyring (each
    # slow to load) only when connecting, starting the server or running an operation.
    "connection_changes.py": {"ConnectionChanges.start_local_server", "ConnectionChanges._start_local_server",
                              "ConnectionChanges.disconnect"},
    "context.py": {"AppContext.server", "AppContext.repositories", "AppContext.error_news", "AppContext.connect_to",
                   "AppContext.cancel_operations"},
    "core/operations.py": {"blocking", "start_task", "usable_loop", "inside_a_task"},
    "core/connection/credentials.py": {"_errors", "_system_backend", "_failing_backend", "backend_problem",
                                       "CredentialStore._call"},
    # The command line: Qt, the window and the server only for the answers that need them.
    "__main__.py": {"run"},
    "app.py": {"main", "reset_demo", "run_gui", "_log_to_file", "_save_screenshot"},
}


def imports_in_functions(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """(qualified name of the enclosing function, line) of each import inside a function body."""

    def walk(node: ast.AST, names: tuple[str, ...], in_function: bool) -> Iterator[tuple[str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom) and in_function:
                yield ".".join(names), child.lineno
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from walk(child, (*names, child.name), True)
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, (*names, child.name), in_function)
            else:
                yield from walk(child, names, in_function)

    return walk(tree, (), False)


def found() -> dict[str, dict[str, list[int]]]:
    places: dict[str, dict[str, list[int]]] = {}
    for path in sorted(CONSOLE.rglob("*.py")):
        for function, line in imports_in_functions(ast.parse(path.read_text(encoding="utf-8"))):
            module = path.relative_to(CONSOLE).as_posix()
            places.setdefault(module, {}).setdefault(function, []).append(line)
    return places


def _allowed(module: str, function: str) -> bool:
    return any(function == name or function.startswith(f"{name}.") for name in LAZY.get(module, ()))


def test_imports_inside_functions_only_where_the_console_loads_later():
    elsewhere = [f"{module}:{lines[0]} in {function}" for module, functions in found().items()
                 for function, lines in functions.items() if not _allowed(module, function)]
    assert elsewhere == [], "move these imports to the top of their module, or list the lazy place with its reason"


def test_every_listed_place_still_imports():  # the list says what the console does, not what it once did
    places = found()
    listed = {(module, function) for module, functions in LAZY.items() for function in functions}
    assert {place for place in listed if place[1] not in places.get(place[0], {})} == set()


def test_the_scan_sees_an_import_inside_a_method_and_a_nested_function():
    source = "import os\nclass A:\n    def f(self):\n        def g():\n            import json\n        import re\n"
    assert sorted(imports_in_functions(ast.parse(source))) == [("A.f", 6), ("A.f.g", 5)]
