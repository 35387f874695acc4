"""Talking to /api/graphql of a running server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).parent
DETAILS_QUERY = (HERE / "details.query.graphql").read_text()
DETAILED_ERROR_GID = "gid://gitlab/Gitlab::ErrorTracking::DetailedError/{}"


def graphql(server, query: str, variables: dict[str, Any] | None = None, *, token: str | None = "root",
            method: str = "POST", operation_name: str | None = None, headers: dict[str, str] | None = None
            ) -> httpx.Response:
    """One request to /api/graphql; token "root" means the server's root token, None no token at all."""
    headers = dict(headers or {})
    if token is not None:
        headers["PRIVATE-TOKEN"] = server.root_token if token == "root" else token
    body: dict[str, Any] = {"query": query}
    if variables is not None:
        body["variables"] = variables
    if operation_name is not None:
        body["operationName"] = operation_name
    with httpx.Client(base_url=server.url, timeout=60) as client:
        if method == "GET":
            params = {key: value for key, value in body.items() if key != "variables"}
            if variables is not None:
                params["variables"] = json.dumps(variables)
            return client.get("/api/graphql", params=params, headers=headers)
        return client.post("/api/graphql", json=body, headers=headers)


def data_of(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body["errors"]
    return body["data"]
