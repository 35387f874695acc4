"""The server's log on stderr: one format and level for every process of it (the server, its workers and
digester, and the digest's decode processes, which are started afresh and set it up again)."""

from __future__ import annotations

import logging
import sys


def configure_logging(level: str) -> None:
    logging.basicConfig(level=level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # httpx logs every outbound request's full URL at INFO; webhook URLs carry tokens in their paths.
    logging.getLogger("httpx").setLevel(max(logging.WARNING, logging.getLogger().level))
