"""The QApplication, made one way for the window and for ``--self-test``.

Apart from console.app so that the command line's answers that need no window (``--version``,
``--demo-reset``) load no Qt, and so that the self-test need not import the window's start.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication

from console import __version__


def create_application():
    """The QApplication, without its icon: the caller sets it (the main window does so after its first frame:
    loading the SVG icon engine would delay it; the self-test at once)."""
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setOrganizationName("Outpost")
    app.setApplicationName("Outpost console")
    app.setApplicationVersion(__version__)
    return app
