"""The executable schema: `schema.graphql` bound to the resolvers of each domain."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ariadne import load_schema_from_path, make_executable_schema
from graphql import GraphQLSchema

from outpost_server.graphql import accounts, error_tracking, global_ids
from outpost_server.graphql.scalars import time_scalar

SCHEMA_PATH = Path(__file__).with_name("schema.graphql")


@cache
def executable_schema() -> GraphQLSchema:
    return make_executable_schema(
        load_schema_from_path(str(SCHEMA_PATH)),
        accounts.query,
        accounts.project_type,
        error_tracking.project_type,
        error_tracking.collection_type,
        error_tracking.status_enum,
        time_scalar,
        global_ids.typed_id_scalar("UserID", global_ids.USER),
        global_ids.typed_id_scalar("GitlabErrorTrackingDetailedErrorID", global_ids.DETAILED_ERROR),
    )
