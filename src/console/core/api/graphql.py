"""GitLab's GraphQL API (``POST <server>/api/graphql``), taking the same personal access token.

A GraphQL answer is ``{"data": …, "errors": [{"message", "locations", "path"}]}``. Field-level
failures come with status 200: when ``data`` is missing altogether, :class:`GraphQLFailed` carries
the messages; otherwise the caller gets ``data`` (with ``null`` where a field failed) and decides.
Authentication failures keep their HTTP status and become the usual ``ApiError`` subclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from console.core.api.errors import GraphQLFailed

if TYPE_CHECKING:  # the client (and httpx under it) is imported on connecting, not at start-up
    from console.core.api.client import ApiClient

GRAPHQL_PATH = "/api/graphql"


@dataclass(frozen=True)
class Answer:
    """``data``, and the messages of any field that failed (its value is then ``null``)."""

    data: dict[str, Any]
    messages: list[str] = field(default_factory=list)

    @property
    def explanation(self) -> str:
        return "; ".join(self.messages)


async def graphql(client: ApiClient, query: str, variables: dict[str, Any] | None = None) -> Answer:
    """Run one query; raise :class:`GraphQLFailed` when it produced no data at all."""
    # A query reads only, so it may be sent again; a mutation may not.
    response = await client.request("POST", client.base_url + GRAPHQL_PATH,
                                    json={"query": query, "variables": variables or {}},
                                    idempotent=not query.lstrip().startswith("mutation"))
    body = response.json()
    errors = body.get("errors") if isinstance(body, dict) else None
    messages = [str(error.get("message")) for error in errors or [] if isinstance(error, dict)]
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict):
        raise GraphQLFailed(status=response.status_code, body=body, detail="; ".join(messages), url=client.base_url)
    return Answer(data, messages)


def field_names(data: dict[str, Any], type_name: str) -> frozenset[str]:
    """The fields of ``__type(name: …) { fields { name } }`` in an introspection answer."""
    described = data.get(type_name) or {}
    return frozenset(str(field["name"]) for field in described.get("fields") or [])
