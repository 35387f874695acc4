"""Sentry's web API under `/api/0/`: one router per resource; unknown paths answer Sentry's 404."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import RedirectResponse

from .access import not_found
from .routes import events, issues, project_issues, projects, tags

router = APIRouter(tags=["sentry api"])
for resource in (projects, issues, project_issues, events, tags):
    router.include_router(resource.router)


@router.api_route("/{path:path}", methods=["GET", "POST", "PUT", "DELETE", "PATCH"], include_in_schema=False)
def unknown(request: Request, path: str) -> Response:
    # Sentry's paths end with a slash; like Django's APPEND_SLASH, a GET without it is redirected.
    if request.method == "GET" and not path.endswith("/"):
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"{request.url.path}/{query}", status_code=301)
    raise not_found()
