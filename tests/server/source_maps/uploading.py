"""Sentry's upload protocol spoken by hand, for what sentry-cli never sends: chunk uploads, assemble requests
and the polls that follow."""

from __future__ import annotations

import hashlib
import time

import httpx

CHUNK_SIZE = 8 * 1024**2


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def bundles_of(server, project, token: str | None = None) -> list[dict]:
    response = httpx.get(server.url + project.api0("files/artifact-bundles/"),
                         headers=bearer(token or project.maintainer), timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def chunk_upload(server, project, chunks: list[tuple[str, bytes]], token: str | None = None) -> httpx.Response:
    files = [("file", (name, data, "application/octet-stream")) for name, data in chunks]
    return httpx.post(f"{server.url}/api/0/organizations/{project.organization}/chunk-upload/", files=files,
                      headers=bearer(token or project.maintainer), timeout=60)


def upload_file(server, project, data: bytes) -> tuple[str, list[str]]:
    """Uploads `data` in chunks, one request each; its checksum and its chunks' names."""
    names = []
    for start in range(0, len(data), CHUNK_SIZE):
        chunk = data[start:start + CHUNK_SIZE]
        names.append(hashlib.sha1(chunk).hexdigest())
        answer = chunk_upload(server, project, [(names[-1], chunk)])
        assert answer.status_code == 200, answer.text
    return hashlib.sha1(data).hexdigest(), names


def assemble(server, project, body: dict, token: str | None = None) -> httpx.Response:
    return httpx.post(f"{server.url}/api/0/organizations/{project.organization}/artifactbundle/assemble/",
                      json=body, headers=bearer(token or project.maintainer), timeout=120)


def assembled_state(server, project, body: dict, token: str | None = None) -> dict:
    """Polls the assemble until it is `ok` or `error`, or until a server that never finishes is given up on:
    a bound far beyond a loaded machine's slowest assemble (30 s once ran out beside a whole suite)."""
    deadline = time.monotonic() + 300
    while True:
        answer = assemble(server, project, body, token)
        assert answer.status_code == 200, answer.text
        state = answer.json()
        if state["state"] in ("ok", "error") or time.monotonic() > deadline:
            return state
        time.sleep(0.1)
