"""One console per user: a second start with an outpost:// link hands the link to the running console, which
raises its window and opens it; a second `--demo` start hands over DEMO_REQUEST (QLocalServer: a Unix socket, or
a named pipe on Windows)."""

from __future__ import annotations

import getpass
import hashlib
import logging

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from console.settings import app_data_dir

log = logging.getLogger(__name__)

HAND_OVER_MS = 3000
# What a later `--demo` start hands over instead of a link: the running console shows the demo (starting its
# local server if it is not running) rather than a second window starting on data already in use.
DEMO_REQUEST = "--demo"
MAX_MESSAGE = 64 * 1024  # far more than a link needs


def server_name() -> str:
    """Per user and data folder: consoles with separate data (another user, a test) do not meet."""
    digest = hashlib.sha256(f"{getpass.getuser()}\n{app_data_dir()}".encode()).hexdigest()[:16]
    return f"outpost-console-{digest}"


def hand_over(link: str) -> bool:
    """Gives ``link`` to the console already running, if there is one (True when it took it)."""
    socket = QLocalSocket()
    socket.connectToServer(server_name())
    if not socket.waitForConnected(HAND_OVER_MS):
        return False
    socket.write(link.encode() + b"\n")
    handed = socket.waitForBytesWritten(HAND_OVER_MS)
    socket.waitForReadyRead(HAND_OVER_MS)  # the console says it has the link
    taken = handed and bytes(socket.readAll().data()).strip() == b"ok"
    socket.disconnectFromServer()
    return taken


class InstanceServer(QObject):
    """Listens for later starts. Signals: received(link), a link another start handed over."""

    received = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.server = QLocalServer(self)
        self.server.newConnection.connect(self._accept)

    def listen(self) -> bool:
        name = server_name()
        if self.server.listen(name):
            return True
        probe = QLocalSocket()
        probe.connectToServer(name)
        if probe.waitForConnected(HAND_OVER_MS // 10):
            probe.disconnectFromServer()
            log.info("another console already receives outpost:// links")
            return False
        QLocalServer.removeServer(name)  # left behind by a console that did not close
        return self.server.listen(name)

    def _accept(self) -> None:
        while (socket := self.server.nextPendingConnection()) is not None:
            socket.readyRead.connect(lambda socket=socket: self._read(socket))
            socket.disconnected.connect(socket.deleteLater)

    def _read(self, socket: QLocalSocket) -> None:
        if not socket.canReadLine():
            if socket.bytesAvailable() > MAX_MESSAGE:
                socket.abort()
            return
        link = bytes(socket.readLine().data()).decode(errors="replace").strip()
        socket.write(b"ok\n")
        socket.flush()
        self.received.emit(link)
