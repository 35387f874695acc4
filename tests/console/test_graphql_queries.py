"""The console's GraphQL queries are valid against GitLab's own schema (the subset of
doc/api/graphql/reference/gitlab_schema.graphql the server tests keep), so they run on a real GitLab."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphql import build_schema, parse, validate

from console.core.api import detection, error_graphql

GITLAB_SUBSET = Path(__file__).resolve().parents[1] / "server" / "graphql" / "gitlab_schema_subset.graphql"


@pytest.mark.parametrize("query", [error_graphql.LIST_QUERY, error_graphql.DETAIL_QUERY, detection.SCHEMA_QUERY],
                         ids=["errors list", "details and stack trace", "schema probe"])
def test_query_is_valid_against_gitlabs_schema(query):
    schema = build_schema(GITLAB_SUBSET.read_text())
    assert [error.message for error in validate(schema, parse(query))] == []


def test_a_field_gitlab_lacks_would_be_caught():
    schema = build_schema(GITLAB_SUBSET.read_text())
    invented = error_graphql.DETAIL_QUERY.replace("externalBaseUrl", "environment")
    assert [error.message for error in validate(schema, parse(invented))] == [
        "Cannot query field 'environment' on type 'SentryDetailedError'."]
