"""The Source maps page of the error tracking tab: a project's artifact bundles and releases with their
files, sizes, debug ids and upload times, and Delete (Maintainers) for a bundle or a release file.

Source maps are uploaded with sentry-cli or a bundler plugin and read through Sentry's web API, which
only Outpost serves; against a GitLab the page says so instead of failing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from console.core.api.errors import Forbidden
from console.core.api.source_maps import Bundle, ReleaseArtifacts, SourceMapsApi
from console.core.api.storage import human_bytes
from console.core.errors.access import MAINTAINER_ONLY
from console.core.operations import Stamp
from console.core.timestamps import short_time
from console.operations import Op

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

    def _api(self) -> SourceMapsApi | None:
        project = self.host.project
        if project is None or self.host.context.client is None:
            return None
        return SourceMapsApi(self.host.context.client, project["path_with_namespace"])

    def load(self) -> None:
        api, choice = self._api(), self.host.project_choice.stamp()
        if api is None:
            return
        if not api.available:
            self._say(NOT_AVAILABLE)
            return

        async def load() -> tuple[list[Bundle], list[ReleaseArtifacts]]:
            return await api.bundles(), await api.releases()

        Op(self.host, load(), description="Loading source maps").success(
            lambda found: self._show(choice, *found)).run()

    def _say(self, text: str) -> None:
        self.tree.clear()
        self.notice.setText(text)
        self.notice.show()

    def _show(self, choice: Stamp, bundles: list[Bundle], releases: list[ReleaseArtifacts]) -> None:
        if not choice.current:
            return  # the user moved on to another project
        self.loaded = True
        self.tree.clear()
        if not bundles and not any(release.files for release in releases):
            self._say(EMPTY)
            return
        self.notice.hide()
        group = self._row(self.tree, ["Artifact bundles", "", "", "", ""], None)
        for bundle in bundles:
            kind = f"bundle for {bundle.release}" if bundle.release else "bundle"
            row = self._row(group, [bundle.bundle_id, kind, "", human_bytes(bundle.size), short_time(bundle.uploaded)],
                            ("bundle", bundle.bundle_id))
            row.setToolTip(0, f"Last used by an event: {short_time(bundle.last_used) or 'never'}")
            for file in bundle.files:
                self._row(row, [file.name, file.kind, file.debug_id or "", human_bytes(file.size), ""], None)
        releases_group = self._row(self.tree, ["Releases", "", "", "", ""], None)
        for release in releases:
            row = self._row(releases_group, [release.version, "release", "", "", short_time(release.created)], None)
            for file in release.files:
                self._row(row, [file.name, file.kind, file.debug_id or "", human_bytes(file.size), ""],
                          ("release file", release.version, file.id))
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
        api, target = self._api(), self._selected_target()
        if api is None or target is None:
            return

        async def delete() -> str | None:
            try:
                if target[0] == "bundle":
                    await api.delete_bundle(target[1])
                else:
                    await api.delete_release_file(target[1], target[2])
            except Forbidden:
                return MAINTAINER_ONLY
            return None

        def done(refusal: str | None) -> None:
            if refusal:
                self.notice.setText(refusal)
                self.notice.show()
                return
            self.load()

        Op(self.host, delete(), description="Deleting source maps").success(done).run()
