"""The documentation stays true to the code: the configuration table is the one ServerConfig gives, every
file and folder the maps name exists (the README's short one and docs/code-map.md), the whole map names
every server module, every local link leads somewhere, and every test with a declared long budget is listed
with why."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

from tests.support import REPO_ROOT

SKIPPED_DIRECTORIES = {".git", ".venv", "node_modules", "dist", "build", ".sdks", "__pycache__", ".data"}
# A path in the map: a file with an extension we keep, or a folder ending in "/", not part of a URL path.
MAP_PATH = re.compile(r"(?<![\w/.:-])([A-Za-z_][\w.-]*(?:/[\w.-]+)*"
                      r"(?:\.(?:py|md|graphql|sh|spec|yml|conf)\b|/(?=[\s),;:]|$)))")
LOCAL_LINK = re.compile(r"\]\(((?!https?:|#)[^)\s]+)\)")


def _repository_paths() -> set[str]:
    paths: set[str] = set()
    for directory, subdirectories, files in os.walk(REPO_ROOT):
        subdirectories[:] = [name for name in subdirectories if name not in SKIPPED_DIRECTORIES]
        relative = os.path.relpath(directory, REPO_ROOT)
        prefix = "" if relative == "." else relative + "/"
        paths.update(prefix + name + "/" for name in subdirectories)
        paths.update(prefix + name for name in files)
    return paths


def _map_block(document: str = "docs/code-map.md", heading: str = "# Map of the code") -> str:
    text = (REPO_ROOT / document).read_text()
    section = text.split(heading, 1)[1]
    return section.split("```", 2)[1]


def _missing_paths(block: str) -> tuple[set[str], list[str]]:
    paths = _repository_paths()
    named = set(MAP_PATH.findall(block))
    return named, sorted(name for name in named
                         if not any(path == name or path.endswith("/" + name) for path in paths))


def test_the_configuration_table_is_the_one_the_code_gives():
    check = subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "config_table.py"), "--check"],
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr


def test_every_path_the_map_names_exists():
    named, missing = _missing_paths(_map_block())
    assert len(named) > 60
    assert missing == []


def test_every_path_the_readmes_short_map_names_exists():
    named, missing = _missing_paths(_map_block("README.md", "## Map of the code"))
    assert len(named) > 20
    assert missing == []


# Names a domain package's module follows by convention, stated once below the map rather than per package.
CONVENTIONAL_MODULES = {"router.py", "entities.py", "models.py", "service.py", "demo.py"}
SERVER_PACKAGE = REPO_ROOT / "server" / "outpost_server"
TOP_LEVEL = "outpost_server/"


def _package_entries(block: str) -> dict[str, str]:
    """The map's entry of each server package (`    accounts/ ...` up to the next entry), and of the top
    level (`  outpost_server/ ...`), which also describes the packages without an entry of their own."""
    entries: dict[str, list[str]] = {}
    current = None
    for line in block.splitlines():
        package = re.match(r"^    (\w+)/\s", line)
        if line.startswith("  " + TOP_LEVEL):
            current = TOP_LEVEL
        elif package:
            current = package.group(1)
        elif line[:1].strip() or line[2:3].strip():  # an entry of the map's outer levels
            current = None
        if current is not None:
            entries.setdefault(current, []).append(line)
    return {name: "\n".join(lines) for name, lines in entries.items()}


def _unnamed_server_modules(block: str) -> list[str]:
    entries = _package_entries(block)
    modules: dict[str, list[str]] = {}  # entry -> module file names it must name, once per module
    for path in sorted(SERVER_PACKAGE.rglob("*.py")):
        parts = path.relative_to(SERVER_PACKAGE).parts
        if path.name == "__init__.py" or parts[:2] == ("migrations", "versions"):
            continue
        entry = parts[0] if len(parts) > 1 and parts[0] in entries else TOP_LEVEL
        if entry != TOP_LEVEL and path.name in CONVENTIONAL_MODULES:
            continue
        modules.setdefault(entry, []).append("/".join(parts))
    unnamed = []
    for entry, names in modules.items():
        for module in names:
            name = module.rsplit("/", 1)[-1]
            # Two modules of one file name in a package (routes/retention.py, retention.py) are named twice.
            wanted = sum(1 for other in names if other.rsplit("/", 1)[-1] == name)
            if len(re.findall(r"(?<![\w.])" + re.escape(name) + r"(?!\w)", entries.get(entry, ""))) < wanted:
                unnamed.append(module)
    return sorted(unnamed)


def test_the_map_names_every_server_module():
    # A module missing from the map is as misleading as a name that does not exist.
    assert _unnamed_server_modules(_map_block()) == []


def test_the_module_check_reads_subpackages_and_entries():
    block = _map_block()
    assert {"accounts", "error_tracking", TOP_LEVEL} <= set(_package_entries(block))
    without = block.replace("progress.py", "progress")
    assert _unnamed_server_modules(without) == ["error_tracking/digest/progress.py"]
    assert "error_tracking/routes/retention.py" in _unnamed_server_modules(block.replace("; retention.py;", ";"))


def test_every_local_link_of_the_documentation_leads_somewhere():
    documents = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
    assert len(documents) >= 7
    broken = [f"{document.name}: {target}" for document in documents
              for target in LOCAL_LINK.findall(document.read_text())
              if not (document.parent / target.split("#", 1)[0]).exists()]
    assert broken == []


def _tests_with_a_budget() -> list[str]:
    """`path::name` of every test function decorated with `pytest.mark.budget(...)`."""
    found = []
    for path in sorted((REPO_ROOT / "tests").rglob("test_*.py")):
        if SKIPPED_DIRECTORIES.intersection(path.relative_to(REPO_ROOT).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                    ast.unparse(decorator).startswith("pytest.mark.budget(") for decorator in node.decorator_list):
                found.append(f"{path.relative_to(REPO_ROOT)}::{node.name}")
    return found


def test_every_test_with_a_long_budget_is_listed_with_why():
    listed = (REPO_ROOT / "docs" / "development.md").read_text()
    budgeted = _tests_with_a_budget()
    assert budgeted, "no test declares a budget: the fuzz test at least does"
    assert [test for test in budgeted if f"`{test}`" not in listed] == []
