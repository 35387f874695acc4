"""Sentry's list parameters (`cursor` as `value:offset:is_prev`, limits) and its `Link` header.

Keyset lists (issues, events) put the id of the boundary row in `value`; offset lists (projects, tag
values) put the position in `offset`. Both links are always sent, `results` telling whether the
page behind them has rows, as Sentry's paginator does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote, urlencode

from fastapi import Request

from outpost_server.entity_json import Answer, EntityResponse
from outpost_server.params import Param, Params
from outpost_server.urls import public_request_url

from .access import detail

MAX_LIMIT = 100
MAX_CURSOR_NUMBER = 2**62


@dataclass(frozen=True)
class Cursor:
    value: int = 0
    offset: int = 0
    is_prev: bool = False

    def __str__(self) -> str:
        return f"{self.value}:{self.offset}:{int(self.is_prev)}"


def parse_cursor(text: str | None) -> Cursor | None:
    if not text:
        return None
    parts = text.split(":")
    try:
        value, offset, is_prev = (int(part) for part in parts)
    except ValueError:
        raise detail(400, "Invalid cursor parameter.") from None
    if not (0 <= value < MAX_CURSOR_NUMBER and 0 <= offset < MAX_CURSOR_NUMBER and is_prev in (0, 1)):
        raise detail(400, "Invalid cursor parameter.")
    return Cursor(value, offset, bool(is_prev))


CURSOR = Param("cursor")


def limit_param(name: str, default: int | None = MAX_LIMIT) -> Param:
    """`per_page` or `limit`: a whole number of at least 1 (more than 100 gives 100), in Sentry's words."""
    return Param(name, "integer", default=default, minimum=1, invalid="Invalid per_page value.")


def page_limit(params: Params, *names: str) -> int:
    """The first of `names` (declared by limit_param) given a value, at most 100; 100 when none is."""
    for name in names:
        # Read as declared: blank text (whitespace alone, by Python's reckoning) is no value.
        number = params.int(name, bound=None)
        if number is not None:
            return min(number, MAX_LIMIT)
    return MAX_LIMIT


def links_to(request: Request, pages: list[tuple[str, str, bool]]) -> str:
    """`<url&cursor=…>; rel="previous"; results="…"; cursor="…", <…>; rel="next"; …` for (rel, cursor, results)."""
    query = urlencode([(name, value) for name, value in request.query_params.multi_items() if name != "cursor"])
    base = f"{public_request_url(request)}?{query}"
    return ", ".join(f'<{base}&cursor={quote(cursor, safe=":")}>; rel="{rel}"; results="{str(has_results).lower()}"; '
                     f'cursor="{cursor}"' for rel, cursor, has_results in pages)


def link_header(request: Request, *, previous: tuple[Cursor, bool], following: tuple[Cursor, bool]) -> str:
    return links_to(request, [("previous", str(previous[0]), previous[1]), ("next", str(following[0]), following[1])])


class KeysetWindow(Protocol):
    """A page of rows read by id from a boundary (the issue and event lists' windows)."""

    @property
    def rows(self) -> Sequence[Any]: ...
    @property
    def has_before(self) -> bool: ...
    @property
    def has_after(self) -> bool: ...


def keyset_links(request: Request, window: KeysetWindow, boundary: Cursor | None) -> str:
    """Links of a keyset page: previous = before its first row, next = after its last row."""
    fallback = boundary.value if boundary else 0
    rows = window.rows
    previous = Cursor(rows[0].id if rows else fallback, 0, True)
    following = Cursor(rows[-1].id if rows else fallback, 0, False)
    return link_header(request, previous=(previous, window.has_before), following=(following, window.has_after))


def offset_links(request: Request, *, offset: int, limit: int, has_more: bool) -> str:
    return link_header(request, previous=(Cursor(0, max(offset - limit, 0), True), offset > 0),
                       following=(Cursor(0, offset + limit, False), has_more))


def sentry_json(body: Answer, *, link: str | None = None) -> EntityResponse:
    """The entities as JSON, with their Link header."""
    return EntityResponse(body, headers={"Link": link} if link else None)
