"""The names the console's settings are kept under, and how their stored values read back. No Qt: the
stores (console.window_state.ProfileState, console.connection.profiles.ProfileStore, the main window) only
read and write QSettings under these names.

Per profile (server and user), under ``profiles/<profile key>/``: the last tab, the error tracking project,
the watch settings and each tab's views (``views/<tab>/...``): a named table's columns and sort order, an
unnamed sortable table's sort order by its number among them, a splitter under its name or its number, and
the error list's sort chooser by its number.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

# The connection profiles: an array of (name, base URL), and the profile used last.
PROFILES = "profiles"
PROFILE_NAME = "name"
PROFILE_BASE_URL = "base_url"
LAST_PROFILE = "last_profile"
# What the local demo server's profile is remembered under: its port changes on each start, its data does not.
LOCAL_DEMO_PROFILE = "local demo server"
WINDOW_GEOMETRY = "main_window/geometry"
THEME = "view/theme"  # "system", "light" or "dark" (console.themes)

# Names within a profile's group.
LAST_TAB = "last_tab"
ERRORS_PROJECT = "errors/project"
WATCH_ENABLED = "watch/enabled"
WATCH_INTERVAL = "watch/interval_seconds"
WATCH_PROJECTS = "watch/projects"

DEFAULT_WATCH_SECONDS = 60
MIN_WATCH_SECONDS = 15


def profile_key(base_url: str, username: str) -> str:
    """A file-name-safe key for one server and user: the settings group of a profile, and the name of its
    export history file (console.core.exports.store)."""
    return hashlib.sha256(f"{base_url}\n{username}".encode()).hexdigest()[:20]


def profile_setting(profile_key: str | None, name: str) -> str | None:
    """The key of ``name`` for the profile; None without a profile (nothing is kept)."""
    return None if profile_key is None else f"{PROFILES}/{profile_key}/{name}"


def table_columns(tab: str, table: str) -> str:
    """A named table's columns (widths and order)."""
    return f"views/{tab}/{table}/columns"


def table_sort(tab: str, table: str) -> str:
    """A named sortable table's sort order."""
    return f"views/{tab}/{table}/sort"


def unnamed_table_sort(tab: str, number: int) -> str:
    """The sort order of the tab's ``number``-th unnamed sortable table (from 0)."""
    return f"views/{tab}/table{number}/sort"


def splitter(tab: str, name: str) -> str:
    """A named splitter's sizes."""
    return f"views/{tab}/{name}"


def unnamed_splitter(tab: str, number: int) -> str:
    """The sizes of the tab's ``number``-th unnamed splitter (from 0)."""
    return f"views/{tab}/splitter{number}"


def sort_chooser(tab: str, number: int) -> str:
    """The choice of the tab's ``number``-th sort chooser (a combo box the server sorts by)."""
    return f"views/{tab}/sort_chooser{number}"


def sort_text(column: int, descending: bool) -> str:
    """A table's sort order as kept: "<column>:<1 if descending else 0>"."""
    return f"{column}:{int(descending)}"


def sort_order(saved: Any) -> tuple[int, bool] | None:
    """The (column, descending) of a kept sort order; None for anything else."""
    if isinstance(saved, str) and ":" in saved:
        column, order = saved.split(":", 1)
        if column.isdigit():
            return int(column), order == "1"
    return None


# How stored values read back (QSettings' INI files give text for what was written as other types).
def as_text(value: Any) -> str | None:
    return str(value) if value else None


def as_flag(value: Any) -> bool:
    return value in (True, "true", "1", 1)


def as_number(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def as_texts(value: Any) -> list[str]:
    if isinstance(value, str):  # QSettings gives a lone string for a one-element list
        return [value] if value else []
    return [str(item) for item in value or []]


def watch_seconds(value: Any) -> int:
    """The watch interval kept, never below the shortest one offered."""
    return max(as_number(value, DEFAULT_WATCH_SECONDS), MIN_WATCH_SECONDS)


def last_folder(purpose: str) -> str:
    """The folder a file dialog for ``purpose`` (saving exports, importing variables…) was last used in."""
    return f"folders/{purpose}"


def start_path(remembered: Any, file_name: str, home: Path) -> str:
    """Where a file dialog opens: the folder last used for its purpose while it still exists, else home; with
    the suggested file name, if any."""
    folder = Path(remembered) if isinstance(remembered, str) and remembered else home
    if not folder.is_dir():
        folder = home
    return str(folder / file_name) if file_name else str(folder)


THEMES = ("system", "light", "dark")


def theme(value: Any) -> str:
    """The theme kept (View > Theme); the system's when none or an unknown one was kept."""
    return value if value in THEMES else "system"
