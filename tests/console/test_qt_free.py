"""The console's plain logic stays without Qt: these modules import no PySide6, neither themselves nor through
what they import, so they are unit-tested (and usable) without a QApplication. The views wrap them."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[2] / "src"

PLAIN_MODULES = [
    "console.api.storage",
    "console.error_watch",
    "console.exports.polling",
    "console.errors.event_state",
    "console.settings_keys",
]


def _module_file(name: str) -> Path:
    return SOURCE.joinpath(*name.split(".")).with_suffix(".py")


@pytest.mark.parametrize("name", PLAIN_MODULES)
def test_the_module_itself_names_no_pyside6(name):
    tree = ast.parse(_module_file(name).read_text(encoding="utf-8"))
    imported = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    imported += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert not [module for module in imported if module.split(".")[0] == "PySide6"]


def test_importing_the_plain_modules_loads_no_pyside6():
    # A fresh interpreter: this test process has Qt loaded already (the console tests' conftest).
    script = ("import importlib, json, sys\n"
              "loaded = {}\n"
              f"for name in {PLAIN_MODULES!r}:\n"
              "    importlib.import_module(name)\n"
              "    loaded[name] = sorted(m for m in sys.modules if m.split('.')[0] == 'PySide6')\n"
              "print(json.dumps(loaded))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                            cwd=SOURCE, check=True)
    loaded = json.loads(result.stdout)
    assert loaded == {name: [] for name in PLAIN_MODULES}
