"""The console's per-system branches, run on Linux by setting sys.platform where the branch only reads it
(link registration, the bundled server's start options). What needs the system itself (the Windows registry,
LockFileEx, the macOS Keychain) runs in the release workflow's Windows and macOS jobs and, with the system's
absences simulated, in tests/e2e/test_other_systems.py."""

from __future__ import annotations

import configparser
import importlib
import sys
from pathlib import Path

import pytest

from console.core import link_registration, platform_support


def test_macos_registers_no_scheme_from_source(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "platform", "darwin")
    result = link_registration.register(data_home=tmp_path / "data", config_home=tmp_path / "config")
    assert not result.done and "application bundle" in result.message
    assert not (tmp_path / "data").exists()


def test_linux_writes_a_desktop_entry_and_the_default_handler(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "platform", "linux")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "mimeapps.list").write_text("[Default Applications]\ntext/html=firefox.desktop\n")
    result = link_registration.register(data_home=tmp_path / "data", config_home=tmp_path / "config")
    assert result.done
    entry = (tmp_path / "data" / "applications" / link_registration.ENTRY_NAME).read_text()
    assert "MimeType=x-scheme-handler/outpost;" in entry
    defaults = configparser.ConfigParser(interpolation=None)
    defaults.optionxform = str  # MIME types are case-sensitive
    defaults.read(tmp_path / "config" / "mimeapps.list")
    assert dict(defaults["Default Applications"]) == {"text/html": "firefox.desktop",
                                                      "x-scheme-handler/outpost": link_registration.ENTRY_NAME}


@pytest.mark.parametrize(("platform", "executable", "installed"), [
    ("darwin", "Applications/Outpost.app/Contents/MacOS/outpost", True),
    ("darwin", "unpacked/outpost", False),
    ("win32", "Programs/Outpost/outpost.exe", True),
    ("win32", "portable/outpost.exe", False),
    ("linux", "elsewhere/outpost", False),
])
def test_a_package_registered_the_scheme_where_its_installer_did(monkeypatch, tmp_path, platform, executable,
                                                                 installed):
    path = tmp_path / executable
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    if platform == "win32" and installed:
        (path.parent / "unins000.exe").write_bytes(b"")
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(path))
    assert link_registration.installed_by_package() is installed


def test_the_bundled_server_shares_the_lock_and_dies_with_the_console_on_linux(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(platform_support, "IS_LINUX", True)
    options = platform_support.child_process_options(7)
    assert options["pass_fds"] == (7,) and callable(options["preexec_fn"])


@pytest.mark.parametrize("platform", ["win32", "darwin"])
def test_elsewhere_no_parent_death_signal_and_on_windows_no_descriptor(monkeypatch, platform):
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(platform_support, "IS_LINUX", False)
    options = platform_support.child_process_options(7)
    assert "preexec_fn" not in options
    assert options["pass_fds"] == (() if platform == "win32" else (7,))


def test_the_data_folder_lock_is_exclusive(tmp_path: Path):
    from console.core.connection.data_lock import DataFolderLock

    with DataFolderLock(tmp_path) as first:
        assert first.acquire()
        assert not DataFolderLock(tmp_path).acquire()
    with DataFolderLock(tmp_path) as again:
        assert again.acquire()


@pytest.mark.parametrize("backend_class", ["keyring.backends.Windows.WinVaultKeyring",  # Credential Locker
                                           "keyring.backends.macOS.Keyring",  # the Keychain
                                           "keyring.backends.SecretService.Keyring"])
def test_each_systems_own_keyring_is_taken_as_safe(backend_class):
    # keyring picks the system's backend by its priority; the console refuses only fail, null, plain text and
    # an empty chain. Each system's own backend must not be among them (their viability needs the system).
    from console.core.connection.credentials import backend_problem, describe_backend

    module, name = backend_class.rsplit(".", 1)
    backend = getattr(importlib.import_module(module), name)()
    assert backend_problem(backend) is None
    assert describe_backend(backend) == backend_class


def test_the_single_instance_name_is_per_user_and_needs_no_user_database(qapp, monkeypatch):
    # getpass reads LOGNAME first: no pwd, which Windows lacks, is consulted while it is set.
    from console.single_instance import server_name

    monkeypatch.setenv("LOGNAME", "ann")
    ann = server_name()
    monkeypatch.setenv("LOGNAME", "bob")
    assert server_name() != ann and server_name().startswith("outpost-console-")
