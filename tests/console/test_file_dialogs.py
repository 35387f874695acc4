"""File dialogs start in the folder last used for the same purpose, and each purpose keeps its own."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget

from console.core.settings_keys import start_path
from console.file_dialogs import EXPORT, VARIABLES_EXPORT, VARIABLES_IMPORT, file_dialog


def choose(dialog, path: Path) -> None:
    dialog.selectFile(str(path))
    dialog.accept()


def test_each_purpose_starts_in_its_last_folder(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    reports, env_files = tmp_path / "reports", tmp_path / "env-files"
    reports.mkdir()
    env_files.mkdir()
    (env_files / "staging.env").write_text("A=1\n")
    parent = QWidget()
    qtbot.addWidget(parent)

    first = file_dialog(parent, EXPORT, "Save", "CSV files (*.csv)", file_name="a.csv", save=True)
    assert Path(first.directory().absolutePath()) == tmp_path / "home"
    chosen: list[str] = []
    first.fileSelected.connect(chosen.append)
    choose(first, reports / "a.csv")
    assert chosen == [str(reports / "a.csv")]

    importing = file_dialog(parent, VARIABLES_IMPORT, "Import", "Env files (*.env)", save=False)
    assert Path(importing.directory().absolutePath()) == tmp_path / "home", "another purpose, its own folder"
    choose(importing, env_files / "staging.env")

    again = file_dialog(parent, EXPORT, "Save", "CSV files (*.csv)", file_name="b.csv", save=True)
    assert Path(again.directory().absolutePath()) == reports
    assert Path(file_dialog(parent, VARIABLES_IMPORT, "Import", "", save=False).directory().absolutePath()) == env_files
    assert Path(file_dialog(parent, VARIABLES_EXPORT, "Export", "", save=True).directory().absolutePath()) == (
        tmp_path / "home")


def test_a_folder_that_is_gone_starts_at_home(tmp_path):
    assert start_path(str(tmp_path / "gone"), "b.csv", tmp_path) == str(tmp_path / "b.csv")
    assert start_path(str(tmp_path), "", tmp_path / "elsewhere") == str(tmp_path)
    assert start_path(None, "b.csv", tmp_path) == str(tmp_path / "b.csv")
