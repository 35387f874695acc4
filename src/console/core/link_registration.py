"""Registering the outpost:// scheme for a console that no installer registered: one run from a source checkout,
or unpacked from the Linux tarball without its install-desktop-entry.sh (Help > Register outpost:// links).
No Qt.

On Linux: a hidden desktop entry for this console and the scheme's default handler in the user's mimeapps.list,
as ``xdg-mime default`` writes it. On Windows: the per-user registry keys the installer writes. On macOS only
an application bundle can register a scheme.
"""

from __future__ import annotations

import configparser
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

SCHEME_TYPE = "x-scheme-handler/outpost"
ENTRY_NAME = "outpost-links.desktop"
DEFAULTS = "Default Applications"


@dataclass(frozen=True)
class Registration:
    """What registering did, for the user."""

    done: bool
    message: str


def command() -> list[str]:
    """How this console is started with a link as its last argument."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "console"]


def installed_by_package() -> bool:
    """A frozen build whose installer registered the scheme: the macOS bundle, the Windows installer, the .deb."""
    if not getattr(sys, "frozen", False):
        return False
    executable = Path(sys.executable).resolve()
    if sys.platform == "darwin":
        return ".app/Contents/" in str(executable)
    if sys.platform == "win32":
        return (executable.parent / "unins000.exe").exists()  # the installer's uninstaller
    return str(executable).startswith("/opt/outpost/")


def register(*, data_home: Path | None = None, config_home: Path | None = None) -> Registration:
    if sys.platform == "darwin":
        return Registration(False, "On macOS only the Outpost application bundle can open outpost:// links: "
                                   "install it from the disk image.")
    if sys.platform == "win32":
        return _register_windows()
    return _register_freedesktop(data_home or _xdg("XDG_DATA_HOME", ".local/share"),
                                 config_home or _xdg("XDG_CONFIG_HOME", ".config"))


def _xdg(variable: str, fallback: str) -> Path:
    return Path(os.environ.get(variable) or Path.home() / fallback)


def desktop_entry() -> str:
    exec_line = " ".join(shlex.quote(part) for part in command())
    return ("[Desktop Entry]\nType=Application\nName=Outpost (links)\n"
            f"Exec={exec_line} %u\nIcon=outpost\nTerminal=false\nNoDisplay=true\nMimeType={SCHEME_TYPE};\n")


def _register_freedesktop(data_home: Path, config_home: Path) -> Registration:
    applications = data_home / "applications"
    try:
        applications.mkdir(parents=True, exist_ok=True)
        (applications / ENTRY_NAME).write_text(desktop_entry(), encoding="utf-8")
        _set_default(config_home / "mimeapps.list")
    except OSError as error:
        return Registration(False, f"Could not register outpost:// links: {error}")
    return Registration(True, f"outpost:// links now open this console ({applications / ENTRY_NAME}).")


def _set_default(mimeapps: Path) -> None:
    """The scheme's default handler, keeping every other line of the file."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive MIME types
    if mimeapps.exists():
        parser.read(mimeapps, encoding="utf-8")
    if not parser.has_section(DEFAULTS):
        parser.add_section(DEFAULTS)
    parser.set(DEFAULTS, SCHEME_TYPE, ENTRY_NAME)
    mimeapps.parent.mkdir(parents=True, exist_ok=True)
    with mimeapps.open("w", encoding="utf-8") as file:
        parser.write(file, space_around_delimiters=False)


if sys.platform == "win32":  # type checkers on other systems skip what only Windows has
    import winreg

    def _register_windows() -> Registration:
        parts = command()
        run = " ".join(f'"{part}"' if " " in part else part for part in parts) + ' "%1"'
        try:
            with winreg.CreateKey(winreg.HKEY_CURRENT_USER, r"Software\Classes\outpost") as key:
                winreg.SetValueEx(key, "", 0, winreg.REG_SZ, "URL:Outpost link")
                winreg.SetValueEx(key, "URL Protocol", 0, winreg.REG_SZ, "")
            with winreg.CreateKey(winreg.HKEY_CURRENT_USER, r"Software\Classes\outpost\shell\open\command") as key:
                winreg.SetValueEx(key, "", 0, winreg.REG_SZ, run)
        except OSError as error:
            return Registration(False, f"Could not register outpost:// links: {error}")
        return Registration(True, "outpost:// links now open this console.")
