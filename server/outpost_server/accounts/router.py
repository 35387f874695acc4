"""GitLab's REST API for version, users, tokens, namespaces, groups, projects and members."""

from __future__ import annotations

from fastapi import APIRouter

from outpost_server.accounts.routes import groups, members, namespaces, projects, tokens, users

router = APIRouter()
for _module in (users, tokens, namespaces, groups, projects, members):
    router.include_router(_module.router)
