"""Check that a built one-folder app carries what is only loaded dynamically at run time.

Usage: ``python packaging/check_bundle.py dist/outpost/outpost`` (the executable; on macOS
``dist/Outpost.app/Contents/MacOS/outpost``, on Windows ``dist\\outpost\\outpost.exe``).
Reads the frozen module archive with PyInstaller's reader and looks at the files beside it:
keyring backends (found through entry points), uvicorn's protocol and loop modules, the
database drivers, every console, model and server module, and the Alembic migration scripts.
"""

from __future__ import annotations

import importlib.util
import pkgutil
import sys
from pathlib import Path

from PyInstaller.archive.readers import CArchiveReader

DYNAMIC_MODULES = [
    "keyring.backends.SecretService", "keyring.backends.kwallet", "keyring.backends.libsecret",
    "keyring.backends.macOS", "keyring.backends.Windows", "secretstorage", "jeepney",
    "uvicorn.loops.auto", "uvicorn.loops.asyncio", "uvicorn.protocols.http.h11_impl",
    "uvicorn.protocols.http.httptools_impl", "uvicorn.lifespan.on",
    "sqlalchemy.dialects.sqlite.pysqlite", "alembic.runtime.migration", "alembic.op", "alembic.context",
]


def frozen_modules(executable: Path) -> set[str]:
    archive = CArchiveReader(str(executable))
    names = [name for name in archive.toc if name.endswith(".pyz")]
    modules: set[str] = set()
    for name in names:
        modules.update(archive.open_embedded_archive(name).toc)
    return modules


def source_modules(package: str) -> list[str]:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations is not None
    return [package] + [
        info.name for info in pkgutil.walk_packages(spec.submodule_search_locations, f"{package}.")
        if not info.name.startswith("outpost_server.migrations.")
    ]


def main(argv: list[str]) -> int:
    executable = Path(argv[0] if argv else "dist/outpost/outpost")
    contents = executable.parent / "_internal"
    if not contents.is_dir():  # macOS .app: Contents/MacOS/outpost with data in Contents/Resources
        contents = executable.parent.parent / "Resources"
    modules = frozen_modules(executable)
    wanted = (DYNAMIC_MODULES + source_modules("console") + source_modules("outpost_model")
              + source_modules("outpost_server"))
    if importlib.util.find_spec("psycopg") is not None:
        wanted += ["psycopg", "sqlalchemy.dialects.postgresql.psycopg"]
    missing = [name for name in wanted if name not in modules]

    import outpost_server

    migrations = Path(outpost_server.__file__).parent / "migrations"
    scripts = [migrations / "env.py", migrations / "script.py.mako", *sorted((migrations / "versions").glob("*.py"))]
    missing += [
        f"file {path.relative_to(migrations.parent.parent)}"
        for path in scripts
        if not (contents / path.relative_to(migrations.parent.parent)).is_file()
    ]
    if not list(contents.glob("keyring-*.dist-info/entry_points.txt")):
        missing.append("keyring's entry points (keyring-*.dist-info)")

    print(f"{executable}: {len(modules)} frozen modules; "
          f"checked {len(wanted)} modules and {len(scripts)} migration files")
    for name in missing:
        print(f"missing: {name}")
    print("bundle check passed" if not missing else "bundle check FAILED")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
