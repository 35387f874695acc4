"""The Source maps page of the error tracking tab: a project's artifact bundles and releases with their
files, sizes, debug ids and upload times, and Delete (Maintainers) for a bundle or a release file.

Source maps are uploaded with sentry-cli or a bundler plugin and read through Sentry's web API, which
only Outpost serves; against a GitLab the page says so instead of failing. The page renders what the source maps
repository (console.core.repositories.source_maps) holds for the chosen project, and reads again when shown
after what it holds has aged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from console.core.api.errors import Forbidden
from console.core.api.source_maps import SourceMapsApi, bundle_release, file_kind, release_file_debug_id
from console.core.api.storage import human_bytes
from console.core.errors.access import MAINTAINER_ONLY
from console.core.repositories.source_maps import SourceMaps
from console.core.store import Change
from console.core.timestamps import short_time
from console.operations import Op
from console.page_host import project_path

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi
    from console.page_host import ProjectHost

NOT_AVAILABLE = ("Source maps need an Outpost server: GitLab's error tracking does not apply them. "
                 "Connect to Outpost to see the uploaded bundles and releases.")
EMPTY = ("Nothing uploaded yet. Upload with `sentry-cli sourcemaps inject` and `sentry-cli sourcemaps upload`, "
         "or with @sentry/esbuild-plugin, using a personal access token with the api scope.")
COLUMNS = ("Name", "Kind", "Debug ID", "Size", "Uploaded")
# What a row stands for: ("bundle", bundle id) or ("release file", version, file id); other rows hold None.
TARGET_ROLE = Qt.ItemDataRole.UserRole + 20


class SourceMapsPage(QWidget):
    def __init__(self, host: ProjectHost[ErrorTrackingApi]) -> None:
        super().__init__()
        self.host = host
        self.repository = host.context.repositories.source_maps
        self.loaded = False
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setAccessibleName("Uploaded source maps")
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        self.delete_button = QPushButton("Delete")
        self.delete_button.setEnabled(False)
        self.delete_button.clicked.connect(self.delete_selected)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.load)
        buttons = QHBoxLayout()
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(self.tree, 1)
        layout.addLayout(buttons)
        self.repository.subscribe_view(self, self._held_changed, lambda: project_path(self.host))

    def _api(self) -> SourceMapsApi | None:
        project = self.host.project
        if project is None or self.host.context.client is None:
            return None
        return SourceMapsApi(self.host.context.client, project.path_with_namespace)

    def load(self) -> None:
        api, path = self._api(), project_path(self.host)
        if api is None or path is None:
            return
        if not api.available:
            self._say(NOT_AVAILABLE)
            return
        Op(self.host, self.repository.fetch(api, path), description="Loading source maps").success(
            lambda _found: self._render()).stale_when(self.host.project_choice).run()

    def showEvent(self, event: QShowEvent) -> None:
        """Shown again: read again what is no longer fresh (its first showing is the tab's load)."""
        super().showEvent(event)
        path = project_path(self.host)
        if self.loaded and path is not None and self.repository.is_stale(path):
            self.load()

    def _held_changed(self, _change: Change) -> None:
        self._render()

    def _render(self) -> None:
        path = project_path(self.host)
        held = self.repository.held(path) if path is not None else None
        if held is None:
            self.loaded = False
            self.tree.clear()
            return
        self._show(held)

    def _say(self, text: str) -> None:
        self.tree.clear()
        self.notice.setText(text)
        self.notice.show()

    def _show(self, held: SourceMaps) -> None:
        self.loaded = True
        self.tree.clear()
        if held.empty:
            self._say(EMPTY)
            return
        self.notice.hide()
        group = self._row(self.tree, ["Artifact bundles", "", "", "", ""], None)
        for bundle, files in held.bundles:
            for_release, _dist = bundle_release(bundle)
            size = bundle.size if isinstance(bundle.size, int) else 0
            last_used = bundle.lastUsed if isinstance(bundle.lastUsed, str) else None
            row = self._row(group, [bundle.bundleId, f"bundle for {for_release}" if for_release else "bundle", "",
                                    human_bytes(size), short_time(bundle.date)], ("bundle", bundle.bundleId))
            row.setToolTip(0, f"Last used by an event: {short_time(last_used) or 'never'}")
            for file in files:
                self._row(row, [file.filePath or "", file_kind(file), file.debugId or "", human_bytes(file.fileSize),
                                 ""], None)
        releases_group = self._row(self.tree, ["Releases", "", "", "", ""], None)
        for release, release_files in held.releases:
            row = self._row(releases_group, [release.version, "release", "", "", short_time(release.dateCreated)],
                            None)
            for release_file in release_files:
                self._row(row, [release_file.name, "release file", release_file_debug_id(release_file) or "",
                                human_bytes(release_file.size), ""], ("release file", release.version, release_file.id))
        self.tree.expandToDepth(0)
        for column in range(len(COLUMNS)):
            self.tree.resizeColumnToContents(column)

    @staticmethod
    def _row(parent: Any, texts: list[str], target: tuple | None) -> QTreeWidgetItem:
        row = QTreeWidgetItem(parent, texts)
        row.setData(0, TARGET_ROLE, target)
        return row

    def _selected_target(self) -> tuple | None:
        items = self.tree.selectedItems()
        return items[0].data(0, TARGET_ROLE) if items else None

    def _selection_changed(self) -> None:
        self.delete_button.setEnabled(self._selected_target() is not None)

    def delete_selected(self) -> None:
        api, path, target = self._api(), project_path(self.host), self._selected_target()
        if api is None or path is None or target is None:
            return

        async def delete() -> str | None:
            try:
                if target[0] == "bundle":
                    await self.repository.delete_bundle(api, path, target[1])
                else:
                    await self.repository.delete_release_file(api, path, target[1], target[2])
            except Forbidden:
                return MAINTAINER_ONLY
            return None

        def done(refusal: str | None) -> None:
            if refusal:
                self.notice.setText(refusal)
                self.notice.show()

        Op(self.host, delete(), description="Deleting source maps").success(done).run()
