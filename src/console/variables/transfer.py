"""Importing variables from a .env or JSON file (read and compared in a worker thread, then previewed) and
exporting them to one (readable by its owner only)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from console.core.api.variables import VariablesApi
from console.core.operations import blocking
from console.core.repositories.variables import VariablesRepository
from console.core.variables import bulk

if TYPE_CHECKING:
    from console.context import AppContext


class ImportingTab(Protocol):
    """What an import shows its findings on (the variables tab, console.variables.views)."""

    def report_failure(self, action: str, title: str, message: str) -> None: ...

    def variables_listed(self) -> None: ...

    def preview_import(self, api: VariablesApi, source: str, plans: dict[bool, bulk.ImportPlan]) -> None: ...


async def read_import(tab: ImportingTab, repository: VariablesRepository, api: VariablesApi, path: Path) -> None:
    """Read ``path``, compare it with the server's variables (read into ``repository``) and show the tab's import
    preview."""
    try:
        text = await blocking(path.read_text, "utf-8")
        incoming = await blocking(bulk.parse_file, path.name, text)
    except (OSError, UnicodeDecodeError, bulk.ImportFileError) as exc:
        tab.report_failure(f"Reading {path.name}", f"Cannot import {path.name}", str(exc))
        return
    current = await repository.fetch(api)
    tab.variables_listed()
    # Comparing thousands of variables is work for a worker thread, not the UI thread.
    plans = {exact: await blocking(bulk.plan_import, current, incoming, exact_sync=exact) for exact in (False, True)}
    tab.preview_import(api, path.name, plans)


async def write_export(context: AppContext, repository: VariablesRepository, api: VariablesApi, path: Path) -> None:
    variables = await repository.fetch(api)
    text = bulk.to_json(variables) if path.suffix.lower() == ".json" else bulk.to_dotenv(variables)
    await blocking(_write_private, path, text)
    context.say(f"Exported {len(variables)} variables to {path}")


def _write_private(path: Path, text: str) -> None:
    """Exports hold secret values: the file is readable by its owner only."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
