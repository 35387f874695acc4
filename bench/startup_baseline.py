"""The start-up baseline: the smallest PySide6 main window, frozen like the console."""

import sys

from PySide6.QtWidgets import QApplication, QLabel, QMainWindow


def main() -> int:
    app = QApplication(sys.argv)
    window = QMainWindow()
    window.setWindowTitle("Baseline")
    window.setCentralWidget(QLabel("A minimal PySide6 window"))
    window.resize(1100, 700)
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
