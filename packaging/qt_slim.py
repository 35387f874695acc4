"""What a Qt Widgets application leaves out of a PyInstaller build; shared by every spec here.

``excludes`` only stops Python modules from being analysed: native Qt libraries and plugins that
a hook already collected stay unless they are filtered out of ``a.binaries`` / ``a.datas``,
which is what ``prune`` does.
"""

from __future__ import annotations

from pathlib import Path

EXCLUDES = [
    "tkinter", "unittest", "pydoc", "doctest", "test", "lib2to3", "idlelib", "ensurepip", "pip", "setuptools",
    "pytest", "_pytest", "hypothesis", "pytestqt",
    "PySide6.QtQml", "PySide6.QtQuick", "PySide6.QtQuickWidgets", "PySide6.QtQuickControls2", "PySide6.QtQuickTest",
    "PySide6.QtQmlFeatures", "PySide6.QtLabsStyleKit",
    "PySide6.QtWebEngineCore", "PySide6.QtWebEngineWidgets", "PySide6.QtWebChannel", "PySide6.QtWebSockets",
    "PySide6.Qt3DCore", "PySide6.QtMultimedia", "PySide6.QtPdf", "PySide6.QtCharts", "PySide6.QtBluetooth",
    "PySide6.QtDesigner", "PySide6.QtHelp", "PySide6.QtUiTools", "PySide6.QtTest", "PySide6.QtSql",
    "PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets", "PySide6.QtConcurrent", "PySide6.QtXml",
    "PySide6.QtPrintSupport", "PySide6.QtSvgWidgets",
]

# Folders inside PySide6 whose files are all dropped (Linux and macOS wheels keep them under
# PySide6/Qt/, Windows wheels directly under PySide6/).
DROP_DIRS = (
    "translations/",  # Qt's own dialog translations; the console is English only
    "qml/",
    "plugins/egldeviceintegrations/",
    "plugins/generic/",  # evdev/tuio input for the framebuffer platforms dropped below
    "plugins/qmltooling/",
    "plugins/sqldrivers/",
    "plugins/designer/",
    "plugins/printsupport/",
    # QtNetwork stays only for QLocalServer (the single instance): no network-state or TLS plugins.
    # The glib network-state plugin alone would bring gio, libmount and libblkid into the bundle.
    "plugins/networkinformation/",
    "plugins/tls/",
)
# Plugins by folder and name, however the OS spells the file (libqgtk3.so, qpdf.dll, libqpdf.dylib).
DROP_PLUGINS = {
    "platforms": ("qeglfs", "qlinuxfb", "qvnc", "qvkkhrdisplay", "qminimalegl"),
    "platformthemes": ("qgtk3",),
    "imageformats": ("qpdf", "qtiff", "qwebp", "qtga", "qwbmp"),
    "platforminputcontexts": ("qtvirtualkeyboard",),
}
# Qt libraries that only the dropped modules and plugins use.
DROP_LIBRARIES = ("Qt6EglFS", "Qt6EglFs", "Qt6Pdf", "Qt6Qml", "Qt6Quick", "Qt6VirtualKeyboard")


def keep(entry) -> bool:
    name = entry[0].replace("\\", "/")
    if any(library in name for library in DROP_LIBRARIES):
        return False
    if not name.startswith("PySide6/"):
        return True
    inside = name.removeprefix("PySide6/").removeprefix("Qt/")
    if inside.startswith(DROP_DIRS):
        return False
    folder, _, file = inside.rpartition("/")
    plugins, _, kind = folder.rpartition("/")
    stem = file.split(".")[0].removeprefix("lib")
    return not (plugins == "plugins" and stem in DROP_PLUGINS.get(kind, ()))


def _linked_closure(start, by_name) -> set[str]:
    """Names of the collected libraries that the ``start`` entries link against, transitively."""
    from PyInstaller.depend.bindepend import get_imports

    seen: set[str] = set()
    pending = list(start)
    while pending:
        _dest, source, _kind = pending.pop()
        for name, path in get_imports(source):
            base = Path(path or name).name
            if base in by_name and base not in seen:
                seen.add(base)
                pending.append(by_name[base])
    return seen


def prune(analysis) -> None:
    """Drop the unused Qt pieces from an ``Analysis`` in place, with the system libraries that
    were collected only because a dropped plugin links against them (GTK, cairo, pango ...)."""
    dropped = [entry for entry in analysis.binaries if not keep(entry)]
    kept = [entry for entry in analysis.binaries if keep(entry)]
    by_name = {Path(entry[0]).name: entry for entry in kept}
    candidates = _linked_closure(dropped, by_name)
    roots = [entry for entry in kept if Path(entry[0]).name not in candidates]
    orphans = candidates - _linked_closure(roots, by_name)
    # Also filters the top-level symlinks PyInstaller makes to libraries inside PySide6/Qt/lib.
    wanted = lambda entry: keep(entry) and Path(entry[0]).name not in orphans  # noqa: E731
    analysis.binaries = [entry for entry in kept if wanted(entry)]
    analysis.datas = [entry for entry in analysis.datas if wanted(entry)]
    if orphans:
        print(f"qt_slim: dropped {len(dropped)} Qt files and {len(orphans)} libraries only they used: "
              + ", ".join(sorted(orphans)))
