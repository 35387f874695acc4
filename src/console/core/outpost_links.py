"""``outpost://`` links: what the console opens from an alert mail, a webhook or chat message, or Copy as Markdown.

``outpost://HOST[:PORT]/GROUP/PROJECT/-/error_tracking/ID`` names an error by its server's address (without the
scheme: the profile saved for that address says http or https) and the project's path. The server builds the
same links (outpost_server/urls.py); this module reads them and matches them to profiles. No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

SCHEME = "outpost"
ERROR_MARK = "/-/error_tracking/"
DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


class NotALink(ValueError):
    """The text is not an outpost:// link to an error; the message says why, for the user."""


@dataclass(frozen=True)
class ErrorLink:
    authority: str  # host[:port], lower case
    path: str  # the project's path, after any path the server is mounted under
    error_id: str

    def serves(self, base_url: str) -> str | None:
        """The project's path on the server at ``base_url`` if the link points at that server, else None."""
        parts = urlsplit(base_url)
        if _authority(parts.scheme, parts.hostname or "", parts.port) != self.authority:
            return None
        mount = parts.path.strip("/")
        if not mount:
            return self.path
        return self.path.removeprefix(mount + "/") if self.path.startswith(mount + "/") else None

    def guessed_address(self) -> str:
        """The server's address to offer when no profile has it: http on this computer, else https."""
        host = self.authority.rsplit(":", 1)[0] if not self.authority.endswith("]") else self.authority
        return f"{'http' if host in LOOPBACK else 'https'}://{self.authority}"


def _authority(scheme: str, host: str, port: int | None) -> str:
    host = host.lower()
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    return host if port is None or DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"


def error_link(base_url: str, project_path: str, error_id: str) -> str:
    """The outpost:// link of an error on the server at ``base_url`` (its API's address, without /api/v4)."""
    parts = urlsplit(base_url)
    mount = parts.path.rstrip("/")
    authority = _authority(parts.scheme, parts.hostname or "", parts.port)
    return f"{SCHEME}://{authority}{mount}/{quote(project_path)}{ERROR_MARK}{quote(str(error_id))}"


def parse(text: str) -> ErrorLink:
    """Reads an outpost:// link; raises NotALink with a readable reason."""
    text = text.strip()
    parts = urlsplit(text)
    if parts.scheme.lower() != SCHEME or not parts.netloc:
        raise NotALink(f"{text!r} is not an outpost:// link.")
    try:
        port = parts.port
    except ValueError:
        raise NotALink(f"{text!r} has a port that is not a number.") from None
    path, mark, error = parts.path.partition(ERROR_MARK)
    project, error_id = unquote(path).strip("/"), unquote(error).strip("/")
    if not mark or "/" not in project or not error_id or "/" in error_id:
        raise NotALink(f"{text!r} does not name an error: it should end in /GROUP/PROJECT/-/error_tracking/ID.")
    return ErrorLink(_authority("", parts.hostname or "", port), project, error_id)
