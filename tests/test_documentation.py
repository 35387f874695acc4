"""The documentation stays true to the code: the configuration table is the one ServerConfig gives, every
file and folder the maps name exists (the README's short one and docs/code-map.md), the whole map names
every server module, and every local link leads somewhere."""

from __future__ import annotations

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


def test_the_map_names_every_server_module():
    # A module missing from the map is as misleading as a name that does not exist.
    block = _map_block()
    package = REPO_ROOT / "server" / "outpost_server"
    unnamed = sorted(str(path.relative_to(package)) for path in package.glob("*.py")
                     if path.name != "__init__.py" and path.name not in block)
    assert unnamed == []


def test_every_local_link_of_the_documentation_leads_somewhere():
    documents = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
    assert len(documents) >= 7
    broken = [f"{document.name}: {target}" for document in documents
              for target in LOCAL_LINK.findall(document.read_text())
              if not (document.parent / target.split("#", 1)[0]).exists()]
    assert broken == []
