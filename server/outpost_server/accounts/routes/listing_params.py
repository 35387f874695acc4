"""The query parameters of GitLab's project and group lists (its `collection_params` and
`group_list_params`, in their order), declared once for every list route and read into the listing's filters."""

from __future__ import annotations

from outpost_server.accounts import access
from outpost_server.accounts.listing import GROUP_ORDERS, PROJECT_ORDERS, SORTS, GroupFilter, ProjectFilter
from outpost_server.accounts.namespaces import VISIBILITIES
from outpost_server.params import Param, Params

# Gitlab::Access.all_values: the roles plus "no access" and the Planner role (15).
ACCESS_VALUES = (access.NO_ACCESS, 5, access.GUEST, 15, access.REPORTER, access.DEVELOPER, access.MAINTAINER,
                 access.OWNER)
MIN_ACCESS_LEVEL = Param("min_access_level", "integer", choices=ACCESS_VALUES)
PROJECT_FILTERS = (
    Param("order_by", choices=PROJECT_ORDERS, default="created_at"), Param("sort", choices=SORTS, default="desc"),
    Param("visibility", choices=VISIBILITIES), Param("search"), Param("search_namespaces", "boolean"),
    Param("owned", "boolean", default=False), Param("membership", "boolean", default=False), MIN_ACCESS_LEVEL)
GROUP_FILTERS = (
    Param("search"), Param("owned", "boolean", default=False), Param("order_by", choices=GROUP_ORDERS, default="name"),
    Param("sort", choices=SORTS, default="asc"), MIN_ACCESS_LEVEL, Param("top_level_only", "boolean", default=False))


def project_filter(params: Params) -> ProjectFilter:
    return ProjectFilter(search=params.str("search"), search_namespaces=params.bool("search_namespaces", False),
                         owned=params.bool("owned", False), membership=params.bool("membership", False),
                         min_access_level=params.int("min_access_level"), visibility=params.str("visibility"),
                         order_by=params.str("order_by", "created_at"), sort=params.str("sort", "desc"))


def group_filter(params: Params) -> GroupFilter:
    return GroupFilter(search=params.str("search"), owned=params.bool("owned", False),
                       min_access_level=params.int("min_access_level"),
                       top_level_only=params.bool("top_level_only", False),
                       order_by=params.str("order_by", "name"), sort=params.str("sort", "asc"))
