"""A stateful fuzz of source map uploads against the real server: chunk uploads, assemble requests and
their polls, in any order, with hostile bundles (manifests of any JSON, NULs, long text, missing files,
repeated or missing chunks, bombs, torn zips). Whatever comes, no answer is a 500; every answer has Sentry's
shape; missing chunks are exactly those never uploaded; an assemble ends `ok` or `error` with a detail; a
bundle that ends `ok` with files is listed for every project it named, and only for those.

Bounded and seeded as the other fuzz tests (OUTPOST_FUZZ_MAX_EXAMPLES, OUTPOST_FUZZ_SEED).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import uuid
import zipfile
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, rule

from tests.server.error_tracking.conftest import server_sessionmaker
from tests.support import RunningServer, start_server

from .bundle_bombs import MIB, bundle, repeated_member
from .conftest import make_upload_project
from .uploading import assemble, assembled_state, bundles_of, chunk_upload

OUTCOMES: Counter[str] = Counter()
EXAMPLES = int(os.environ.get("OUTPOST_FUZZ_MAX_EXAMPLES", "12"))
SEED = int(os.environ.get("OUTPOST_FUZZ_SEED", "20261127"))
SHA1 = re.compile(r"^[0-9a-f]{40}$")
STATES = {"ok", "created", "assembling", "not_found", "error"}
DEBUG_IDS = ["3f9a1c52-8d1e-4b7a-9c0d-2e5f6a7b8c9d", "7d3e6b1a-2c4f-4e8a-9b0c-1d2e3f4a5b6c"]

TEXT = st.one_of(st.text(max_size=12), st.just("a\x00b"), st.just("x" * 300), st.just("/"),
                 st.sampled_from(["source", "minified_source", "source_map", "~/app.js", DEBUG_IDS[0]]))
JSON = st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                    max_leaves=10)
PATHS = st.sampled_from(["_/_/app.js", "_/_/app.js.map", "_/_/missing.js", "manifest.json"])
ENTRY = st.one_of(JSON, st.fixed_dictionaries({}, optional={
    "type": st.one_of(TEXT, JSON), "url": st.one_of(TEXT, JSON),
    "headers": st.one_of(JSON, st.fixed_dictionaries({}, optional={
        "debug-id": st.one_of(st.sampled_from(DEBUG_IDS), TEXT), "sourcemap": TEXT}))}))
MANIFEST = st.one_of(JSON, st.fixed_dictionaries({}, optional={
    "files": st.one_of(JSON, st.dictionaries(PATHS, ENTRY, max_size=3)),
    "attributes": st.one_of(JSON, st.dictionaries(
        st.sampled_from(["debug_id", "release", "dist", "org", "project"]), TEXT, max_size=3)),
    "release": TEXT, "dist": TEXT}))
MEMBER = st.one_of(st.binary(max_size=64), st.just(b"function a(){}\n//# sourceMappingURL=app.js.map"),
                   st.just(b'{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"}'))


@st.composite
def files(draw, kinds=("valid", "valid", "hostile", "hostile", "bomb", "ratio", "torn", "raw")) -> bytes:
    """What an upload assembles to: mostly a zip with a generated manifest, sometimes something hostile."""
    kind = draw(st.sampled_from(kinds))
    if kind == "raw":
        return draw(st.binary(max_size=256))
    paths = draw(st.lists(st.sampled_from(["_/_/app.js", "_/_/app.js.map"]), min_size=kind == "valid", max_size=2,
                          unique=True))
    if kind == "valid":
        debug_id = draw(st.sampled_from(DEBUG_IDS))
        manifest = json.dumps({"files": {path: {"type": "source_map" if path.endswith(".map") else "minified_source",
                                                "url": "~/" + path[4:], "headers": {"debug-id": debug_id}}
                                         for path in paths},
                               "attributes": draw(st.dictionaries(st.just("debug_id"), st.sampled_from(DEBUG_IDS)))})
        members: dict = {"manifest.json": manifest.encode()}
    else:
        members = {"manifest.json": draw(st.one_of(MANIFEST.map(lambda value: json.dumps(value).encode()),
                                                   st.binary(max_size=32), st.just(b"[" * 5000)))}
    for path in paths:
        members[path] = draw(MEMBER)
    if kind == "bomb":
        members["_/_/app.js.map"] = repeated_member(3)  # over the member cap
    if kind == "ratio":
        members["_/_/app.js"] = repeated_member(2, b"a")  # a thousand to one
    data = bundle(members)
    if kind == "torn":
        data = data[:draw(st.integers(0, len(data) - 1))]
    return data


def _stored_id(data: bytes, checksum: str) -> str | None:
    """The id a bundle that assembled `ok` is listed under: the manifest's debug_id, else the checksum's;
    None when its manifest names no files (an empty bundle is discarded)."""
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("manifest.json"))
    if not manifest.get("files"):
        return None
    text = str(manifest.get("attributes", {}).get("debug_id", "")).strip().lower()
    for candidate in (text[:36], text[:32]):
        try:
            return str(uuid.UUID(candidate))
        except ValueError:
            continue
    return str(uuid.UUID(checksum[:32]))


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("upload-fuzz"), extra_env={
            "OUTPOST_SOURCE_MAPS_MAX_FILE_BYTES": str(4 * MIB), "OUTPOST_SOURCE_MAPS_MAX_MEMBER_BYTES": str(2 * MIB),
            "OUTPOST_SOURCE_MAPS_MAX_EXPANDED_BYTES": str(3 * MIB)}) as server:
        yield server


class Uploads(RuleBasedStateMachine):
    """Each run gets two fresh projects of one organization; chunks belong to the organization, so what was
    uploaded stays known across runs."""

    server: RunningServer
    sessions: Any
    uploaded: set[str] = set()

    def __init__(self) -> None:
        super().__init__()
        self.projects = [make_upload_project(self.server, self.sessions) for _ in range(2)]
        self.listed: dict[str, set[str]] = {project.slug: set() for project in self.projects}

    uploads = Bundle("uploads")

    def _upload(self, chunks: list[tuple[str, bytes]]):
        answer = chunk_upload(self.server, self.projects[0], chunks, token=self.server.root_token)
        assert answer.status_code in (200, 400), answer.text
        if answer.status_code == 400:
            assert set(answer.json()) == {"error"}, answer.text
        return answer

    @rule(target=uploads, data=files(), piece=st.integers(512, 65536), send=st.booleans())
    def split(self, data, piece, send):
        """A file cut into chunks; sent now, or left for a later rule (or never)."""
        chunks = [data[start:start + piece] for start in range(0, len(data), piece)] or [b""]
        named = [(hashlib.sha1(chunk).hexdigest(), chunk) for chunk in chunks]
        if send:
            for start in range(0, len(named), 64):
                assert self._upload(named[start:start + 64]).status_code == 200
                self.uploaded.update(name for name, _ in named[start:start + 64])
        return data, named

    @rule(upload=uploads)
    def send_chunks(self, upload):
        _, named = upload
        assert self._upload(named[:64]).status_code == 200
        self.uploaded.update(name for name, _ in named[:64])

    @rule(data=st.binary(min_size=1, max_size=64), name=st.text("0123456789abcdef", min_size=40, max_size=40))
    def misnamed_chunk(self, data, name):
        if name != hashlib.sha1(data).hexdigest():
            assert self._upload([(name, data)]).json() == {"error": "Checksum mismatch"}

    @rule(data=files(kinds=("valid",)), piece=st.integers(512, 65536), which=st.sets(st.integers(0, 1), min_size=1))
    def upload_and_assemble(self, data, piece, which):
        """What sentry-cli does: every chunk sent, then assembled (so every run stores bundles too)."""
        self.assemble(self.split(data, piece, send=True), which, repeat=1, wrong_checksum=False)

    @rule(upload=uploads, which=st.sets(st.integers(0, 1), min_size=1), repeat=st.integers(1, 3),
          wrong_checksum=st.integers(0, 4).map(lambda number: number == 0))
    def assemble(self, upload, which, repeat, wrong_checksum):
        data, named = upload
        projects = [self.projects[index] for index in sorted(which)]
        chunk_names = [name for name, _ in named] * repeat
        checksum = "0" * 40 if wrong_checksum else hashlib.sha1(data * repeat).hexdigest()
        body = {"checksum": checksum, "chunks": chunk_names, "projects": [project.slug for project in projects]}
        answer = assemble(self.server, projects[0], body, token=self.server.root_token)
        assert answer.status_code == 200, answer.text
        state = answer.json()
        assert state["state"] in STATES, state
        OUTCOMES[state["state"]] += 1
        if state["state"] == "not_found":
            assert set(state["missingChunks"]) == set(chunk_names) - self.uploaded, state
            return
        state = assembled_state(self.server, projects[0], body, token=self.server.root_token)
        assert state["state"] in ("ok", "error") and state["missingChunks"] == [], state
        OUTCOMES["final " + state["state"]] += 1
        if state["state"] == "error":
            assert isinstance(state["detail"], str) and state["detail"], state
            return
        assert state["detail"] is None
        stored = _stored_id(data, checksum)
        for project in projects:
            if stored is not None:
                self.listed[project.slug].add(stored)
                OUTCOMES["stored"] += 1

    @rule(body=JSON)
    def hostile_assemble_body(self, body):
        answer = assemble(self.server, self.projects[0], body, token=self.server.root_token)
        assert answer.status_code in (200, 400, 404), answer.text
        if answer.status_code == 400:
            assert set(answer.json()) == {"error"}, answer.text

    def teardown(self):
        """Each project lists exactly the bundles assembled `ok` for it (read once a run ends)."""
        for project in self.projects:
            listed = {item["bundleId"] for item in bundles_of(self.server, project, token=self.server.root_token)}
            assert listed == self.listed[project.slug], project.slug


@pytest.mark.budget(240)
def test_uploads_in_any_order_with_hostile_bundles_never_fail_the_server(fuzz_server):
    Uploads.server = fuzz_server
    Uploads.sessions = server_sessionmaker(fuzz_server)
    machine = seed(SEED)(settings(max_examples=EXAMPLES, stateful_step_count=12, deadline=None, database=None,
                                  suppress_health_check=list(HealthCheck))(Uploads))
    machine.TestCase().runTest()
    # The run reached both ends: bundles stored, and assembles refused.
    assert OUTCOMES["stored"] and OUTCOMES["final error"], OUTCOMES
    log = fuzz_server.log_text()
    assert "Traceback" not in log
    assert not [entry for entry in fuzz_server.request_log() if entry["status"] >= 500]
