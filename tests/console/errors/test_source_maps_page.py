"""Source maps in the console against the real server: the Source maps page lists what sentry-cli uploaded
and deletes it (Maintainers), and the stack trace shows mapped frames with "Show minified"."""

from __future__ import annotations

from PySide6.QtCore import Qt

from console.core.api.sentry_events import sentry_project_path
from console.errors.source_maps import TARGET_ROLE
from console.errors.stacktrace import SHOW_MINIFIED
from tests.console.errors.conftest import WAIT, choose_project, connect, open_tab, select_only_error
from tests.server.error_tracking.conftest import server_sessionmaker
from tests.server.source_maps.conftest import make_upload_project
from tests.server.source_maps.sourcemap_app import build, debug_id_of, inject, run_node


def _rows(tree) -> list:
    found = []

    def walk(item) -> None:
        found.append(item)
        for index in range(item.childCount()):
            walk(item.child(index))

    for index in range(tree.topLevelItemCount()):
        walk(tree.topLevelItem(index))
    return found


def test_the_page_lists_bundles_and_the_stack_trace_shows_mapped_and_minified_frames(
        qtbot, qloop_running, context, server):
    project = make_upload_project(server, server_sessionmaker(server))
    built = inject(build("console"))
    project.uploader(server).run("sourcemaps", "upload", str(built))
    run_node(built, dsn=project.tracked.dsn, release="shop@1.0.0")
    server.wait_for_digest()
    path = f"{project.organization}/{project.slug}"

    connect(qtbot, context, server.url, server.root_token)
    tab = open_tab(qtbot, context)
    errors = select_only_error(qtbot, tab, path)
    view = errors.detail.stack_trace
    qtbot.waitUntil(lambda: view.topLevelItemCount() > 0 and view.topLevelItem(0).text(0) == SHOW_MINIFIED,
                    timeout=WAIT)
    labels = [item.text(0) for item in _rows(view)]
    assert any(label.startswith("src/pricing.js in applyDiscount at line 4") for label in labels)
    view.topLevelItem(0).setCheckState(0, Qt.CheckState.Checked)
    qtbot.waitUntil(lambda: any("app.min.js in " in item.text(0) for item in _rows(view)), timeout=WAIT)
    assert not any(item.text(0).startswith("src/pricing.js") for item in _rows(view))

    tab.pages.setCurrentWidget(tab.source_maps_page)
    page = tab.source_maps_page
    qtbot.waitUntil(lambda: page.loaded, timeout=WAIT)
    rows = _rows(page.tree)
    assert debug_id_of(built / "node" / "app.min.js") in [row.text(2) for row in rows]
    [bundle] = [row for row in rows if row.data(0, TARGET_ROLE) and row.data(0, TARGET_ROLE)[0] == "bundle"]
    assert bundle.childCount() == 4
    page.tree.setCurrentItem(bundle)
    assert page.delete_button.isEnabled()
    page.delete_button.click()
    qtbot.waitUntil(lambda: page.notice.isVisible() and "Nothing uploaded yet" in page.notice.text(), timeout=WAIT)


def test_a_developer_cannot_delete(qtbot, qloop_running, context, server):
    project = make_upload_project(server, server_sessionmaker(server))
    project.uploader(server).run("sourcemaps", "upload", str(inject(build("console-developer"))))
    connect(qtbot, context, server.url, project.developer)
    tab = open_tab(qtbot, context)
    choose_project(qtbot, tab, f"{project.organization}/{project.slug}")
    tab.pages.setCurrentWidget(tab.source_maps_page)
    page = tab.source_maps_page
    qtbot.waitUntil(lambda: page.loaded, timeout=WAIT)
    [bundle] = [row for row in _rows(page.tree) if row.data(0, TARGET_ROLE)]
    page.tree.setCurrentItem(bundle)
    page.delete_button.click()
    qtbot.waitUntil(lambda: page.notice.isVisible(), timeout=WAIT)
    assert "Only Maintainers and Owners" in page.notice.text()
    assert [row for row in _rows(page.tree) if row.data(0, TARGET_ROLE)]


def test_a_frame_that_could_not_be_mapped_says_why(qtbot, qloop_running, context, server):
    # Debug ids injected but the bundle never uploaded: the frames stay minified and say so.
    project = make_upload_project(server, server_sessionmaker(server))
    built = inject(build("console-never-uploaded"))
    run_node(built, dsn=project.tracked.dsn, release="shop@1.0.0")
    server.wait_for_digest()
    connect(qtbot, context, server.url, server.root_token)
    tab = open_tab(qtbot, context)
    errors = select_only_error(qtbot, tab, f"{project.organization}/{project.slug}")
    view = errors.detail.stack_trace
    qtbot.waitUntil(lambda: any("app.min.js in " in item.text(0) for item in _rows(view)), timeout=WAIT)
    unmapped = [item.text(0) for item in _rows(view) if "app.min.js in " in item.text(0)]
    debug_id = debug_id_of(built / "node" / "app.min.js")
    assert unmapped and all(f"(not mapped: no bundle for debug id {debug_id})" in label for label in unmapped), unmapped
    assert not any(item.text(0).startswith("src/pricing.js") for item in _rows(view))


def test_the_page_shown_again_shows_a_release_file_uploaded_meanwhile(qtbot, qloop_running, context, server, api):
    project = api.project()
    path = project["path_with_namespace"]
    connect(qtbot, context, server.url, server.root_token)
    tab = open_tab(qtbot, context)
    choose_project(qtbot, tab, path)
    tab.pages.setCurrentWidget(tab.source_maps_page)
    page = tab.source_maps_page
    qtbot.waitUntil(lambda: page.loaded and "Nothing uploaded yet" in page.notice.text(), timeout=WAIT)

    tab.pages.setCurrentWidget(tab.keys_page)  # meanwhile a build uploads a release file
    sentry, bearer = f"{server.url}/api/0{sentry_project_path(path)}", {"Authorization": f"Bearer {server.root_token}"}
    api.root.post(f"{sentry}releases/", json={"version": "shop@2.0.0"}, headers=bearer).raise_for_status()
    api.root.post(f"{sentry}releases/shop@2.0.0/files/", headers=bearer, files={"file": ("app.js", b"var a = 1;")},
                  data={"name": "~/static/app.js"}).raise_for_status()
    qtbot.wait(1_100)  # what the page read is over a second old, as it is after minutes on another page
    tab.pages.setCurrentWidget(page)
    qtbot.waitUntil(lambda: "~/static/app.js" in [row.text(0) for row in _rows(page.tree)], timeout=WAIT)
    assert page.notice.isHidden()
