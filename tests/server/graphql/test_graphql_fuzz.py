"""Fuzzing /api/graphql with hypothesis-generated queries and variables: no request gets a 500, and
no query that runs is deeper or (by a lower bound of its complexity) bigger than GitLab's caps.

Queries come from hypothesis-graphql over the served schema (fetched by introspection), both valid
ones and ones that break the schema's rules; variables are arbitrary JSON for queries that declare
them. Runs are bounded and seeded (OUTPOST_FUZZ_SEED explores others), in the style of
tests/server/test_openapi_fuzz.py.
"""

from __future__ import annotations

import json
import os
from typing import Any

import httpx
import pytest
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    build_client_schema,
    get_introspection_query,
    parse,
)
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, from_schema, nodes

from tests.server.graphql.support import DETAILED_ERROR_GID, data_of
from tests.support import start_server

MAX_EXAMPLES = int(os.environ.get("OUTPOST_FUZZ_MAX_EXAMPLES", "12")) * 10
SEED = int(os.environ.get("OUTPOST_FUZZ_SEED", "20261123"))
# GitLab's caps (app/graphql/gitlab_schema.rb) for an administrator and for an anonymous caller.
CAPS = {"admin": (20, 300), "anonymous": (15, 200)}
FUZZ_SETTINGS = settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
                         suppress_health_check=list(HealthCheck))

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
VARIABLE_QUERIES = [
    "query($p: ID!, $id: GitlabErrorTrackingDetailedErrorID!) { project(fullPath: $p) { sentryErrors {"
    " detailedError(id: $id) { id title frequency { time count } } errorStackTrace(id: $id) { issueId } } } }",
    "query($p: ID!, $first: Int, $after: String, $sort: String, $searchTerm: String) { project(fullPath: $p) {"
    " sentryErrors { errors(first: $first, after: $after, sort: $sort, searchTerm: $searchTerm) {"
    " nodes { id status } pageInfo { endCursor } } } } }",
]


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("graphql-fuzz"), demo=True) as running:
        yield running


@pytest.fixture(scope="module")
def served_schema(fuzz_server):
    with httpx.Client(base_url=fuzz_server.url, headers={"PRIVATE-TOKEN": fuzz_server.root_token}) as client:
        introspection = data_of(client.post("/api/graphql", json={"query": get_introspection_query()}))
    return build_client_schema(introspection)


def _scalars() -> dict[str, st.SearchStrategy]:
    ids = st.sampled_from(["1", "2", "999999", "x"]).map(DETAILED_ERROR_GID.format)
    return {"GitlabErrorTrackingDetailedErrorID": (ids | st.text(max_size=20)).map(nodes.String),
            "UserID": st.text(max_size=20).map(nodes.String),
            "Time": st.text(max_size=20).map(nodes.String)}


def _measure(document: DocumentNode) -> tuple[int, int]:
    """(depth, number of field selections) of the document's operations, fragments expanded."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}

    def walk(selection_set: SelectionSetNode | None, seen: frozenset[str]) -> tuple[int, int]:
        depth = count = 0
        for selection in selection_set.selections if selection_set else ():
            if isinstance(selection, FieldNode):
                child_depth, child_count = walk(selection.selection_set, seen)
                depth, count = max(depth, 1 + child_depth), count + 1 + child_count
            elif isinstance(selection, InlineFragmentNode):
                child_depth, child_count = walk(selection.selection_set, seen)
                depth, count = max(depth, child_depth), count + child_count
            elif isinstance(selection, FragmentSpreadNode) and selection.name.value in fragments \
                    and selection.name.value not in seen:
                fragment = fragments[selection.name.value]
                child_depth, child_count = walk(fragment.selection_set, seen | {selection.name.value})
                depth, count = max(depth, child_depth), count + child_count
        return depth, count

    measured = [walk(d.selection_set, frozenset()) for d in document.definitions
                if isinstance(d, OperationDefinitionNode)]
    return max((m[0] for m in measured), default=0), max((m[1] for m in measured), default=0)


def _check(server, response: httpx.Response, query: str, caller: str) -> None:
    assert response.status_code != 500, (query, response.text[:500])
    assert response.status_code in (200, 422), (query, response.status_code, response.text[:500])
    body = response.json()
    results = body if isinstance(body, list) else [body]
    for result in results:
        for error in result.get("errors", []):
            assert isinstance(error["message"], str) and error["message"]
        if result.get("data") is None:
            continue
        try:
            depth, fields = _measure(parse(query))
        except GraphQLError:
            continue
        max_depth, max_complexity = CAPS[caller]
        assert depth <= max_depth, f"ran a query of depth {depth}: {query}"
        assert fields <= max_complexity, f"ran a query with {fields} fields: {query}"


def _post(server, client_token: str | None, payload: Any) -> httpx.Response:
    headers = {"PRIVATE-TOKEN": client_token} if client_token else {}
    with httpx.Client(base_url=server.url, headers=headers, timeout=60) as client:
        return client.post("/api/graphql", content=json.dumps(payload), headers={"Content-Type": "application/json"})


def test_generated_queries(fuzz_server, served_schema):
    strategy = st.tuples(
        from_schema(served_schema, custom_scalars=_scalars(), mode=Mode.POSITIVE)
        | from_schema(served_schema, custom_scalars=_scalars(), mode=Mode.NEGATIVE),
        st.sampled_from(["admin", "anonymous"]))

    @seed(SEED)
    @FUZZ_SETTINGS
    @given(strategy)
    def run(case):
        query, caller = case
        token = fuzz_server.root_token if caller == "admin" else None
        _check(fuzz_server, _post(fuzz_server, token, {"query": query}), query, caller)

    run()
    assert "Traceback" not in fuzz_server.log_text(), fuzz_server.log_text()[-4000:]


def test_generated_variables_and_bodies(fuzz_server):
    strategy = st.one_of(
        st.builds(lambda query, variables: {"query": query, "variables": variables},
                  st.sampled_from(VARIABLE_QUERIES),
                  st.fixed_dictionaries({}, optional={"p": st.sampled_from(["acme/webshop", "nope"]) | JSON,
                                                      "id": st.sampled_from(["1", "2"]).map(DETAILED_ERROR_GID.format)
                                                      | JSON, "first": JSON, "after": JSON, "sort": JSON,
                                                      "searchTerm": JSON})),
        st.builds(lambda query, variables, name: {"query": query, "variables": variables, "operationName": name},
                  st.text(max_size=200) | JSON, JSON, JSON),
        st.lists(st.fixed_dictionaries({"query": st.sampled_from(VARIABLE_QUERIES) | st.text(max_size=50)}),
                 max_size=3),
    )

    @seed(SEED)
    @FUZZ_SETTINGS
    @given(strategy)
    def run(payload):
        response = _post(fuzz_server, fuzz_server.root_token, payload)
        items = payload if isinstance(payload, list) else [payload]
        query = " ".join(str(item.get("query")) for item in items if isinstance(item, dict))
        _check(fuzz_server, response, query, "admin")

    run()
    assert "Traceback" not in fuzz_server.log_text(), fuzz_server.log_text()[-4000:]


def _deep(levels: int) -> str:
    inner = "name"
    for _ in range(max(levels - 3, 0)):
        inner = f"ofType {{ {inner} }}"
    return f"__schema {{ types {{ {inner} }} }}"


def _wide(copies: int, first: int) -> str:
    many = " ".join(f"e{n}: errors(first: {first}) {{ nodes {{ id title count }} pageInfo {{ endCursor }} }}"
                    for n in range(copies))
    return 'project(fullPath: "acme/webshop") { sentryErrors { %s } }' % many


def test_generated_deep_and_wide_queries(fuzz_server):
    """Queries around GitLab's caps: what runs stays within them, and what exceeds them is refused."""
    strategy = st.tuples(st.integers(min_value=3, max_value=40), st.integers(min_value=0, max_value=40),
                         st.integers(min_value=-5, max_value=500), st.sampled_from(["admin", "anonymous"]))

    @seed(SEED)
    @FUZZ_SETTINGS
    @given(strategy)
    def run(case):
        levels, copies, first, caller = case
        query = "{ %s %s }" % (_deep(levels), _wide(copies, first) if copies else "")
        token = fuzz_server.root_token if caller == "admin" else None
        response = _post(fuzz_server, token, {"query": query})
        _check(fuzz_server, response, query, caller)
        depth, fields = _measure(parse(query))
        max_depth, max_complexity = CAPS[caller]
        if depth > max_depth or fields > max_complexity:
            body = response.json()
            assert "data" not in body and any("exceeds max" in error["message"] for error in body["errors"]), body

    run()
    assert "Traceback" not in fuzz_server.log_text(), fuzz_server.log_text()[-4000:]
