"""The query parameters GitLab's project and group lists share, declared once for every list route."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from outpost_server import http_errors
from outpost_server.accounts import access
from outpost_server.accounts.listing import GROUP_ORDERS, PROJECT_ORDERS, SORTS, GroupFilter, ProjectFilter
from outpost_server.accounts.namespaces import VISIBILITIES

# Gitlab::Access.all_values: the roles plus "no access" and the Planner role (15).
ACCESS_VALUES = (access.NO_ACCESS, 5, access.GUEST, 15, access.REPORTER, access.DEVELOPER, access.MAINTAINER,
                 access.OWNER)


def _choice(name: str, value: str | None, allowed: tuple[str, ...]) -> None:
    if value is not None and value not in allowed:
        raise http_errors.invalid_value(name)


def _text(name: str, value: str | None) -> None:
    # PostgreSQL text cannot hold NUL; GitLab refuses such parameters before they reach it.
    if value is not None and "\x00" in value:
        raise http_errors.invalid_param(name)


def _level(value: int | None) -> None:
    if value is not None and value not in ACCESS_VALUES:
        raise http_errors.invalid_value("min_access_level")


def project_filter(
    search: Annotated[str | None, Query()] = None,
    search_namespaces: Annotated[bool, Query()] = False,
    owned: Annotated[bool, Query()] = False,
    membership: Annotated[bool, Query()] = False,
    min_access_level: Annotated[int | None, Query()] = None,
    visibility: Annotated[str | None, Query()] = None,
    order_by: Annotated[str, Query()] = "created_at",
    sort: Annotated[str, Query()] = "desc",
) -> ProjectFilter:
    _text("search", search)
    _level(min_access_level)
    _choice("visibility", visibility, VISIBILITIES)
    _choice("order_by", order_by, PROJECT_ORDERS)
    _choice("sort", sort, SORTS)
    return ProjectFilter(search=search, search_namespaces=search_namespaces, owned=owned, membership=membership,
                         min_access_level=min_access_level,
                         visibility=visibility, order_by=order_by, sort=sort)


def group_filter(
    search: Annotated[str | None, Query()] = None,
    owned: Annotated[bool, Query()] = False,
    min_access_level: Annotated[int | None, Query()] = None,
    top_level_only: Annotated[bool, Query()] = False,
    order_by: Annotated[str, Query()] = "name",
    sort: Annotated[str, Query()] = "asc",
) -> GroupFilter:
    _text("search", search)
    _level(min_access_level)
    _choice("order_by", order_by, GROUP_ORDERS)
    _choice("sort", sort, SORTS)
    return GroupFilter(search=search, owned=owned, min_access_level=min_access_level, top_level_only=top_level_only,
                       order_by=order_by, sort=sort)


ProjectFilterDep = Annotated[ProjectFilter, Depends(project_filter)]
GroupFilterDep = Annotated[GroupFilter, Depends(group_filter)]
