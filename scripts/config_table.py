"""The configuration table of docs/server.md, written from ServerConfig: each setting, its default, and the
comment above it in server/outpost_server/config.py (a comment block describes the settings that follow it).

    .venv/bin/python scripts/config_table.py           # rewrite the table in docs/server.md
    .venv/bin/python scripts/config_table.py --check   # exit 1 when the table differs from the code
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG_SOURCE = REPO_ROOT / "server" / "outpost_server" / "config.py"
DOCUMENT = REPO_ROOT / "docs" / "server.md"
START = "<!-- configuration table: written by scripts/config_table.py -->"
END = "<!-- end of the configuration table -->"


def _groups(source: str) -> list[tuple[list[str], str]]:
    """The settings of ServerConfig in order, grouped under the comment above them."""
    lines = source.splitlines()
    [config] = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef)
                and node.name == "ServerConfig"]
    groups: list[tuple[list[str], str]] = []
    previous_end = config.body[0].end_lineno or config.lineno
    for node in config.body[1:]:
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            previous_end = node.end_lineno or node.lineno
            continue
        comment = [line.strip()[1:].strip() for line in lines[previous_end:node.lineno - 1]
                   if line.strip().startswith("#")]
        if comment or not groups:
            groups.append(([node.target.id], " ".join(comment)))
        else:
            groups[-1][0].append(node.target.id)
        previous_end = node.end_lineno or node.lineno
    return groups


def _default(name: str) -> str:
    sys.path.insert(0, str(REPO_ROOT / "server"))
    from outpost_server.config import ServerConfig

    value = ServerConfig.model_fields[name].default
    if value == "" or value is None:
        return "unset"
    return f"`{value}`"


def table() -> str:
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for names, meaning in _groups(CONFIG_SOURCE.read_text()):
        variables = ", ".join(f"`OUTPOST_{name.upper()}`" for name in names)
        defaults = ", ".join(_default(name) for name in names)
        rows.append(f"| {variables} | {defaults} | {meaning.replace('|', '/')} |")
    return "\n".join(rows)


def document_with_table(document: str) -> str:
    before, rest = document.split(START, 1)
    _, after = rest.split(END, 1)
    return f"{before}{START}\n{table()}\n{END}{after}"


def main(argv: list[str]) -> int:
    current = DOCUMENT.read_text()
    wanted = document_with_table(current)
    if "--check" in argv:
        if current != wanted:
            print(f"{DOCUMENT.relative_to(REPO_ROOT)}: the configuration table differs from ServerConfig; "
                  "run scripts/config_table.py")
            return 1
        return 0
    DOCUMENT.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
