"""Asking a server what it is on connecting: its ``/version`` body and whether its GraphQL schema reads error
tracking (see server.py for what each answer means)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from console.core.api.errors import ApiError
from console.core.api.graphql import field_names, graphql
from console.core.api.server import ServerInfo

if TYPE_CHECKING:  # the client (and httpx under it) is imported on connecting, not at start-up
    from console.core.api.client import ApiClient

SCHEMA_QUERY = """
query errorTrackingSchema {
  collection: __type(name: "SentryErrorCollection") { fields { name } }
}
"""


async def detect_server(client: ApiClient) -> ServerInfo:
    version = await client.get_version()
    try:
        answer = await graphql(client, SCHEMA_QUERY)
    except ApiError:  # no GraphQL endpoint at all: a server that only speaks REST
        return ServerInfo(version=version)
    return ServerInfo(version=version, graphql_error_tracking="errors" in field_names(answer.data, "collection"))
