"""The console's plain logic stays without Qt, as a rule rather than a list: a module that imports no Qt itself
(at load time: imports inside functions and under TYPE_CHECKING do not count) loads none through what it
imports either, so it is unit-tested (and usable) without a QApplication; and the API client, all of
console/api/, is such a module. The views wrap them."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "src"
CONSOLE = SOURCE / "console"
QT_PACKAGES = {"PySide6", "shiboken6", "qasync"}
# Folders whose every module must be plain.
PLAIN_FOLDERS = ("api",)


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _load_time_imports(body: list[ast.stmt]) -> list[str]:
    """The modules a file imports when it is loaded: its top level, including under if/try, but not under
    `if TYPE_CHECKING:` and not inside functions or classes."""
    names: list[str] = []
    for node in body:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append(node.module or "")
        elif isinstance(node, ast.If):
            if "TYPE_CHECKING" not in ast.unparse(node.test):
                names += _load_time_imports(node.body) + _load_time_imports(node.orelse)
        elif isinstance(node, ast.Try):
            names += _load_time_imports(node.body) + _load_time_imports(node.orelse)
            names += _load_time_imports(node.finalbody)
            for handler in node.handlers:
                names += _load_time_imports(handler.body)
    return names


def _names_qt(source: str) -> bool:
    return any(name.split(".")[0] in QT_PACKAGES for name in _load_time_imports(ast.parse(source).body))


def plain_modules() -> list[str]:
    """Every console module that names no Qt package at load time (`python -m console` aside: it runs)."""
    return sorted(_module_name(path) for path in CONSOLE.rglob("*.py")
                  if path.name != "__main__.py" and not _names_qt(path.read_text(encoding="utf-8")))


# Imports each module with Qt's packages blocked: a module that needs one, itself or through what it imports,
# fails to import, and nothing of Qt is ever loaded, so one interpreter checks them all.
CHECK = """
import importlib, importlib.abc, json, sys

class BlockQt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {qt!r}:
            raise ImportError("Qt blocked: " + name)
        return None

sys.meta_path.insert(0, BlockQt())
failures = {{}}
for name in {names!r}:
    try:
        importlib.import_module(name)
    except ImportError as error:
        failures[name] = str(error)
print(json.dumps(failures))
"""


def _qt_loaders(names: list[str]) -> dict[str, str]:
    # A fresh interpreter: this test process has Qt loaded already (the console tests' conftest).
    script = CHECK.format(qt=sorted(QT_PACKAGES), names=names)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                            cwd=SOURCE, check=True)
    return json.loads(result.stdout)


def test_the_rule_reads_imports_at_load_time_only():
    assert _names_qt("from PySide6.QtWidgets import QWidget\n")
    assert _names_qt("try:\n    import qasync\nexcept ImportError:\n    qasync = None\n")
    assert not _names_qt("if TYPE_CHECKING:\n    from PySide6.QtCore import QObject\n")
    assert not _names_qt("def show():\n    from PySide6.QtWidgets import QMessageBox\n")


def test_the_plain_modules_include_the_api_and_the_logic():
    plain = set(plain_modules())
    assert {"console.settings_keys", "console.error_watch", "console.exports.polling",
            "console.errors.event_state"} <= plain
    assert "console.errors.stacktrace" not in plain


def test_every_module_under_the_plain_folders_names_no_qt():
    for folder in PLAIN_FOLDERS:
        named = [str(path.relative_to(CONSOLE)) for path in sorted((CONSOLE / folder).rglob("*.py"))
                 if _names_qt(path.read_text(encoding="utf-8"))]
        assert named == [], f"console/{folder}/ is plain: {named} import Qt"


def test_a_module_that_names_no_qt_loads_none():
    assert _qt_loaders(plain_modules()) == {}


def test_the_load_check_sees_a_module_that_loads_qt_through_another():
    # errors/stacktrace.py is a widget; a plain-looking module importing it loads Qt.
    failures = _qt_loaders(["console.settings_keys", "console.errors.stacktrace"])
    assert list(failures) == ["console.errors.stacktrace"]
