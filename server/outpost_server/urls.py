"""Absolute URLs as clients should see them (the external URL setting, else the request's own)."""

from __future__ import annotations

from fastapi import Request

from outpost_server.deps import services_of


def public_base_url(request: Request) -> str:
    configured = services_of(request.app).config.external_url
    if configured:
        return configured.rstrip("/")
    return f"{request.url.scheme}://{request.url.netloc}"


def public_request_url(request: Request) -> str:
    """The request's URL without its query, on the public base URL."""
    raw_path = request.scope.get("raw_path")
    path = raw_path.decode("latin-1") if raw_path else request.url.path
    return public_base_url(request) + path


def api_base_url(request: Request) -> str:
    """The public address of the REST API, `.../api/v4`, without a trailing slash."""
    return f"{public_base_url(request)}/api/v4"
