"""console/core/ stays without Qt, so it is unit-tested (and usable) without a QApplication: no module there
imports Qt, even inside a function, or loads it through what it imports, a library's own imports included.
What core/ imports is a contract of pyproject.toml's import-linter configuration (`lint-imports`); this test
holds what that cannot see: what actually gets loaded when each core module is imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "src"
CORE = SOURCE / "console" / "core"
QT_PACKAGES = {"PySide6", "shiboken6", "qasync"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def core_modules() -> list[str]:
    return sorted(_module_name(path) for path in CORE.rglob("*.py"))


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


def test_core_holds_the_api_the_store_and_the_logic():
    core = set(core_modules())
    assert {"console.core.api.client", "console.core.store", "console.core.operations",
            "console.core.settings_keys", "console.core.exports.polling", "console.core.errors.event_state"} <= core


def test_no_core_module_loads_qt():
    assert _qt_loaders(core_modules()) == {}


def test_the_load_check_sees_a_module_that_loads_qt_through_another():
    # errors/stacktrace.py is a widget; exports/watching.py names no Qt itself but runs Op, which does.
    failures = _qt_loaders(["console.core.settings_keys", "console.errors.stacktrace", "console.exports.watching"])
    assert sorted(failures) == ["console.errors.stacktrace", "console.exports.watching"]
