"""GitLab's offset pagination: page/per_page parameters and the X-* and Link headers."""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlencode

from fastapi import Request, Response
from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from outpost_server.db import MAX_ROW_ID
from outpost_server.params import Declaration, Param, Params, query_params
from outpost_server.urls import public_request_url

DEFAULT_PER_PAGE = 20
MAX_PER_PAGE = 100
# Kaminari stops counting past this many rows; GitLab then omits X-Total and X-Total-Pages.
MAX_COUNT = 10_000


# Grape's `use :pagination` (GitLab's PaginationParams): page and per_page are Integers, per_page 0 is refused.
PAGE_PARAMS = (Param("page", "integer", default=1),
               Param("per_page", "integer", default=DEFAULT_PER_PAGE, excluded=(0,)))


def paginated(*params: Param) -> Declaration:
    """The `openapi_extra` of a list endpoint: its own query parameters, then page and per_page (as GitLab
    declares them, so problems are listed in its order)."""
    return query_params(*params, *PAGE_PARAMS)


def page_params(params: Params) -> tuple[int, int]:
    """Kaminari's reading of them: a page below 1 is the first, a negative per_page the default, and
    per_page at most 100."""
    page = max(params.int("page", 1, bound=None), 1)
    per_page = params.int("per_page", DEFAULT_PER_PAGE, bound=None)
    if per_page < 1:
        per_page = DEFAULT_PER_PAGE
    return page, min(per_page, MAX_PER_PAGE)


def paginate(session: Session, stmt: Select, params: Params, request: Request, response: Response) -> list[Any]:
    """Runs `stmt` (which must already be ordered) for the requested page and sets the headers."""
    page, per_page = page_params(params)
    capped = stmt.order_by(None).limit(MAX_COUNT + 1).subquery()
    counted = session.scalar(select(func.count()).select_from(capped)) or 0
    total = counted if counted <= MAX_COUNT else None
    offset = (page - 1) * per_page
    # A page past any table whose offset would overflow the database's integers is simply empty.
    rows = list(session.scalars(stmt.limit(per_page + 1).offset(offset))) if offset <= MAX_ROW_ID else []
    has_next = len(rows) > per_page
    set_headers(request, response, page=page, per_page=per_page, total=total, has_next=has_next)
    return rows[:per_page]


def set_headers(request: Request, response: Response, *, page: int, per_page: int, total: int | None,
                has_next: bool) -> None:
    headers = response.headers
    headers["X-Per-Page"] = str(per_page)
    headers["X-Page"] = str(page)
    headers["X-Next-Page"] = str(page + 1) if has_next else ""
    headers["X-Prev-Page"] = str(page - 1) if page > 1 else ""
    links = []
    if page > 1:
        links.append(f'<{_page_url(request, page - 1, per_page)}>; rel="prev"')
    if has_next:
        links.append(f'<{_page_url(request, page + 1, per_page)}>; rel="next"')
    links.append(f'<{_page_url(request, 1, per_page)}>; rel="first"')
    if total is not None:
        total_pages = max(math.ceil(total / per_page), 1)
        headers["X-Total"] = str(total)
        headers["X-Total-Pages"] = str(total_pages)
        links.append(f'<{_page_url(request, total_pages, per_page)}>; rel="last"')
    headers["Link"] = ", ".join(links)


def _page_url(request: Request, page: int, per_page: int) -> str:
    params = [(k, v) for k, v in request.query_params.multi_items() if k not in ("page", "per_page", "private_token")]
    params += [("page", str(page)), ("per_page", str(per_page))]
    return f"{public_request_url(request)}?{urlencode(params)}"
