"""Uploads are bounded before they are built: an assemble checks the size its chunks declare before reading
any, writes the file to disk a chunk at a time, and refuses a bundle expanding beyond its limits (zip bombs)
while reading it in pieces. The server's peak memory (VmHWM, reset before each assemble) is measured, never
the time taken."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import httpx
import pytest

from tests.server.error_tracking.conftest import server_sessionmaker
from tests.support import RunningServer, start_server

from .bundle_bombs import MIB, bundle, repeated_member
from .conftest import UploadProject, make_upload_project
from .uploading import CHUNK_SIZE, assemble, assembled_state, bearer, bundles_of, chunk_upload, upload_file

MAX_FILE = 64 * MIB
MAX_EXPANDED = 48 * MIB
MEMBER_CAP = 24 * MIB  # the default


@pytest.fixture(scope="module")
def bounded(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("bounded-uploads"), extra_env={
            "OUTPOST_SOURCE_MAPS_MAX_FILE_BYTES": str(MAX_FILE),
            "OUTPOST_SOURCE_MAPS_MAX_EXPANDED_BYTES": str(MAX_EXPANDED)}) as server:
        yield server


@pytest.fixture(scope="module")
def sessions(bounded):
    return server_sessionmaker(bounded)


@pytest.fixture
def project(bounded, sessions) -> UploadProject:
    return make_upload_project(bounded, sessions)


class PeakMemory:
    """The server process's peak resident memory since `reset` (VmHWM, reset through clear_refs)."""

    def __init__(self, server: RunningServer):
        self.pid = server.process.pid

    def reset(self) -> None:
        Path(f"/proc/{self.pid}/clear_refs").write_text("5")
        self.base = self._kib("VmRSS")

    def rise_mib(self) -> float:
        return (self._kib("VmHWM") - self.base) / 1024

    def _kib(self, field: str) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise AssertionError(f"no {field}")


def _assemble_bundle(server, project, data: bytes, memory: PeakMemory) -> dict:
    checksum, chunks = upload_file(server, project, data)
    memory.reset()
    return assembled_state(server, project, {"checksum": checksum, "chunks": chunks, "projects": [project.slug]})


def test_a_chunk_named_again_and_again_is_refused_before_any_is_read(bounded, project):
    chunk = os.urandom(CHUNK_SIZE)
    name = hashlib.sha1(chunk).hexdigest()
    assert chunk_upload(bounded, project, [(name, chunk)]).status_code == 200
    memory = PeakMemory(bounded)
    memory.reset()
    # 40 x 8 MiB = 320 MiB declared, over the 64 MiB limit; before the fix each chunk was counted once
    # (8 MiB), and 320 MiB were joined in memory before the joined size was refused.
    body = {"checksum": "1" * 40, "chunks": [name] * 40, "projects": [project.slug]}
    assert assemble(bounded, project, body).json() == {"state": "created", "missingChunks": []}
    assert assembled_state(bounded, project, body) == {
        "state": "error", "detail": "File exceeds maximum size", "missingChunks": []}
    assert memory.rise_mib() < 32, memory.rise_mib()
    # Within the limit, repeats are assembled in their order (the checksum is the whole file's).
    whole = chunk * 3
    body = {"checksum": hashlib.sha1(whole).hexdigest(), "chunks": [name] * 3, "projects": [project.slug]}
    assert assembled_state(bounded, project, body)["detail"] == "the bundle is invalid"  # random bytes, no zip


def test_a_manifest_bomb_is_refused_and_memory_stays_flat(bounded, project):
    # The bundle of the report: 1.6 MB whose manifest.json expands to 1.5 GiB.
    bomb = bundle({"manifest.json": repeated_member(1536), "_/_/app.js": b"console.log(1)"})
    assert len(bomb) < 2 * MIB
    memory = PeakMemory(bounded)
    state = _assemble_bundle(bounded, project, bomb, memory)
    assert state == {"state": "error", "detail": f"the bundle's manifest expands beyond {4 * MIB} bytes",
                     "missingChunks": []}
    assert memory.rise_mib() < 100, memory.rise_mib()
    assert bundles_of(bounded, project) == []


def _manifest(*paths: str) -> bytes:
    return json.dumps({"files": {path: {"type": "source_map", "url": "~/" + path.rsplit("/", 1)[-1],
                                        "headers": {"debug-id": "3f9a1c52-8d1e-4b7a-9c0d-2e5f6a7b8c9d"}}
                                 for path in paths}}).encode()


@pytest.mark.parametrize(("members", "detail"), [
    ({"_/_/app.js.map": repeated_member(1536)}, f"a file of the bundle expands beyond {MEMBER_CAP} bytes"),
    ({"_/_/app.js.map": repeated_member(20)}, "a file of the bundle expands more than 100 times its compressed size"),
    ({f"_/_/{name}.js.map": os.urandom(10 * MIB).hex().encode() for name in "abc"},
     f"the bundle expands beyond {MAX_EXPANDED} bytes"),
], ids=["member-over-its-cap", "member-over-the-ratio", "bundle-over-its-total"])
def test_bundles_expanding_beyond_their_limits_are_refused(bounded, project, members, detail):
    data = bundle({"manifest.json": _manifest(*members), **members})
    memory = PeakMemory(bounded)
    state = _assemble_bundle(bounded, project, data, memory)
    assert state == {"state": "error", "detail": detail, "missingChunks": []}
    assert memory.rise_mib() < len(data) / MIB + 100, (memory.rise_mib(), len(data) / MIB)
    assert bundles_of(bounded, project) == []


def test_a_large_release_bundle_is_assembled_within_100_mb_over_its_input(bounded, project):
    created = httpx.post(f"{bounded.url}/api/0/organizations/{project.organization}/releases/",
                         json={"version": "big@1.0.0", "projects": [project.slug]},
                         headers=bearer(project.maintainer), timeout=30)
    assert created.status_code == 201, created.text
    source_map = os.urandom(12 * MIB).hex().encode()  # 24 MiB: as large as a member may be
    minified = b"console.log(1)\n//# sourceMappingURL=app.js.map"
    data = bundle({"manifest.json": json.dumps({
        "org": project.organization, "release": "big@1.0.0",
        "files": {"_/_/app.js.map": {"type": "source_map", "url": "~/app.js.map"},
                  "_/_/app.js": {"type": "minified_source", "url": "~/app.js"}}}).encode(),
        "_/_/app.js.map": source_map, "_/_/app.js": minified})
    checksum, chunks = upload_file(bounded, project, data)
    memory = PeakMemory(bounded)
    memory.reset()
    url = f"{bounded.url}/api/0/organizations/{project.organization}/releases/big@1.0.0/assemble/"
    body = {"checksum": checksum, "chunks": chunks}
    states = [httpx.post(url, json=body, headers=bearer(project.maintainer), timeout=120).json() for _ in range(2)]
    assert states[-1] == {"state": "ok", "detail": None, "missingChunks": []}, states
    assert memory.rise_mib() < len(data) / MIB + 100, (memory.rise_mib(), len(data) / MIB)
    files = httpx.get(bounded.url + project.api0("releases/big@1.0.0/files/"), headers=bearer(project.maintainer),
                      timeout=30).json()
    assert sorted((file["name"], file["size"]) for file in files) == [
        ("~/app.js", len(minified)), ("~/app.js.map", len(source_map))]
