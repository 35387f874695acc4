"""A recorded GitLab: answers with request/response pairs taken from GitLab's documentation and specs.

Each exchange is a JSON file under tests/fixtures/gitlab/ naming its source. A request is matched by
method and path, and a GraphQL request (``POST /api/graphql``) by its operation name. What GitLab
does by rule rather than by example is done here by the same rule:

- a request without the right ``PRIVATE-TOKEN`` gets ``401 {"message":"401 Unauthorized"}``;
- a REST route with no exchange gets GitLab's unmatched-route ``404 {"error":"404 Not Found"}``;
- web routes (anything outside ``/api/``) refuse personal access tokens as GitLab's controllers do:
  Devise's failure app redirects HTML requests to ``/users/sign_in`` (302) and answers JSON requests
  (``.json`` paths or an ``Accept: application/json``) with 401 and its "unauthenticated" message
  (``config/locales/devise.en.yml``).

It is a real HTTP server on 127.0.0.1 in a background thread; ``requests`` records what the console
asked for, as (method, path, GraphQL operation or None), and ``bodies`` what it sent with each request
(method, path, raw body; empty when it sent none).
"""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.http_double import BackgroundHttpServer

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "gitlab"
TOKEN = "glpat-recorded-gitlab-token"
SIGN_IN_REQUIRED = "You need to sign in or sign up before continuing."
_OPERATION = re.compile(r"^\s*(?:query|mutation)\s+(\w+)")


def load_exchanges() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(FIXTURES.glob("*.json"))]


class RecordedGitLab(BackgroundHttpServer):
    """``scenario`` picks the exchanges recorded for a situation (e.g. "sentry still loading") over the usual ones."""

    def __init__(self, scenario: str | None = None) -> None:
        usable = [e for e in load_exchanges() if e["request"].get("scenario") in (None, scenario)]
        # The scenario's own exchanges first, so they win over the usual ones for the same request.
        self.exchanges = sorted(usable, key=lambda exchange: exchange["request"].get("scenario") is None)
        self.requests: list[tuple[str, str, str | None]] = []
        self.bodies: list[tuple[str, str, bytes]] = []
        super().__init__()

    def answer(self, method: str, path: str, operation: str | None, token: str | None, accept: str
               ) -> tuple[int, Any, dict[str, str]]:
        if not path.startswith("/api/"):
            return self._web_route(path, accept)
        if token != TOKEN:
            return 401, {"message": "401 Unauthorized"}, {}
        for exchange in self.exchanges:
            request = exchange["request"]
            if (request["method"], request["path"], request.get("operation")) == (method, path, operation):
                response = exchange["response"]
                return response["status"], response["body"], dict(response.get("headers") or {})
        if path == "/api/graphql":
            return 200, {"errors": [{"message": f"no recorded answer for operation {operation}"}]}, {}
        return 404, {"error": "404 Not Found"}, {}

    def _web_route(self, path: str, accept: str) -> tuple[int, Any, dict[str, str]]:
        if path.endswith(".json") or "application/json" in accept:
            return 401, {"error": SIGN_IN_REQUIRED}, {}
        location = f"{self.url}/users/sign_in"
        page = f'<html><body>You are being <a href="{location}">redirected</a>.</body></html>'
        return 302, page.encode(), {"Location": location, "Content-Type": "text/html; charset=utf-8"}

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        recorded = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def _serve(self) -> None:
                path = urlsplit(self.path).path
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                operation = None
                if path == "/api/graphql" and raw:
                    found = _OPERATION.match(str(json.loads(raw).get("query") or ""))
                    operation = found.group(1) if found else None
                recorded.requests.append((self.command, path, operation))
                recorded.bodies.append((self.command, path, raw))
                status, body, headers = recorded.answer(self.command, path, operation,
                                                        self.headers.get("PRIVATE-TOKEN"),
                                                        self.headers.get("Accept") or "")
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                headers.setdefault("Content-Type", "application/json")
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

        return Handler
