"""Manifest and release fields that a column cannot hold (a NUL, which PostgreSQL refuses in text, or more
characters than the column has) fail the assemble, or get Sentry's 400, on both databases; never a 500."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import httpx
import pytest

from .uploading import assembled_state, bearer, chunk_upload

DEBUG_ID = "5b1c9a3e-2f4d-4e6a-8b7c-9d0e1f2a3b4c"
LONG = "r" * 100_000


def _bundle(entry: dict, attributes: dict) -> bytes:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as writer:
        writer.writestr("_/_/app.js", "console.log(1)")
        writer.writestr("manifest.json", json.dumps({"files": {"_/_/app.js": entry}, "attributes": attributes}))
    return archive.getvalue()


FILE = {"type": "minified_source", "url": "~/app.js", "headers": {"debug-id": DEBUG_ID}}


@pytest.mark.parametrize(("entry", "attributes", "detail"), [
    ({**FILE, "url": "~/a\x00.js"}, {}, "the bundle is invalid"),
    ({**FILE, "type": "minified\x00source"}, {}, "the bundle is invalid"),
    ({**FILE, "headers": {"debug-id": DEBUG_ID, "sourcemap": "app.js\x00.map"}}, {}, "the bundle is invalid"),
    ({**FILE, "type": LONG}, {}, "the bundle is invalid"),
    (FILE, {"release": LONG}, "the bundle's release is not a valid release name"),
    (FILE, {"release": "1.0", "dist": LONG}, "the bundle's dist is not a valid dist name (at most 64 characters)"),
    (FILE, {"release": "shop/1.0"}, "the bundle's release is not a valid release name"),
], ids=["nul-url", "nul-type", "nul-sourcemap", "long-type", "long-release", "long-dist", "slash-release"])
def test_a_manifest_field_no_column_can_hold_fails_the_assemble_not_the_server(server, upload_project, entry,
                                                                               attributes, detail):
    data = _bundle(entry, attributes)
    checksum = hashlib.sha1(data).hexdigest()
    assert chunk_upload(server, upload_project, [(checksum, data)]).status_code == 200
    body = {"checksum": checksum, "chunks": [checksum], "projects": [upload_project.slug]}
    expected = {"state": "error", "detail": detail, "missingChunks": []}
    assert assembled_state(server, upload_project, body) == expected
    assert assembled_state(server, upload_project, body) == expected  # and every later poll


def test_the_releases_api_refuses_nul_as_sentrys_serializer_does(server, upload_project):
    url = f"{server.url}/api/0/organizations/{upload_project.organization}/releases/"
    headers = bearer(upload_project.maintainer)
    for body, problem in (({"version": "1.0\x00", "projects": [upload_project.slug]},
                           {"version": ["Null characters are not allowed."]}),
                          ({"version": "1.0", "url": "https://x/\x00", "projects": [upload_project.slug]},
                           {"url": ["Null characters are not allowed."]}),
                          ({"version": "a/b", "projects": [upload_project.slug]},
                           {"version": ["Release with name a/b is not allowed"]})):
        answer = httpx.post(url, json=body, headers=headers, timeout=30)
        assert (answer.status_code, answer.json()) == (400, problem)
    created = httpx.post(url, json={"version": "2.0", "projects": [upload_project.slug]}, headers=headers, timeout=30)
    assert created.status_code == 201, created.text
    files = f"{server.url}{upload_project.api0('releases/2.0/files/')}"
    for form, message in (({"name": "~/a\x00.js"}, "Null characters are not allowed."),
                          ({"name": "~/a.js", "dist": "d" * 65}, "Dist must be at most 64 characters")):
        answer = httpx.post(files, data=form, files={"file": ("a.js", b"1", "text/javascript")}, headers=headers,
                            timeout=30)
        assert (answer.status_code, answer.json()) == (400, {"detail": message})
