"""A project's artifacts count in its Storage figures, and bundles no event used for the configured days
(default 90) are deleted by the pruner (`outpost-server prune` runs the same pass)."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import subprocess
import sys

import httpx
from sqlalchemy import update

from outpost_server.source_maps.models import ArtifactBundle
from tests.server.error_tracking.conftest import server_sessionmaker
from tests.support import REPO_ROOT, ApiHelper, start_server

from .conftest import make_upload_project
from .sourcemap_app import build, inject


def test_unused_bundles_are_pruned_and_storage_counts_artifacts(tmp_path):
    # A server of its own without the background pruner: a shared server's pass, falling between the bundle's
    # aging and the command, deleted the bundle first and left the command nothing to report.
    with start_server(tmp_path / "pruning", extra_env={"OUTPOST_ERROR_TRACKING_PRUNER": "false"}) as server:
        ApiHelper(server)
        sessions = server_sessionmaker(server)
        upload_project = make_upload_project(server, sessions)
        built = inject(build("pruning"))
        upload_project.uploader(server).run("sourcemaps", "upload", str(built))
        project_id = upload_project.tracked.id
        with server.client() as client:
            storage = client.get(f"/projects/{project_id}/error_tracking/retention").json()
        assert storage["artifact_bytes"] > 0 and storage["artifact_budget_bytes"] == 1024**3

        with sessions() as session:
            session.execute(update(ArtifactBundle).where(ArtifactBundle.project_id == project_id)
                            .values(last_used_at=dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=91)))
            session.commit()
        pruned = subprocess.run([sys.executable, "-m", "outpost_server", "prune", "--data-dir",
                                 str(server.data_dir)], capture_output=True, text=True, env=server.env, cwd=REPO_ROOT,
                                timeout=120)
        assert pruned.returncode == 0, pruned.stderr
        assert "source maps: 1 unused bundles" in pruned.stdout
        listed = httpx.get(server.url + upload_project.api0("files/artifact-bundles/"), timeout=30,
                           headers={"Authorization": f"Bearer {upload_project.maintainer}"})
        assert listed.json() == []
        with server.client() as client:
            assert client.get(f"/projects/{project_id}/error_tracking/retention").json()["artifact_bytes"] == 0


def test_an_upload_beyond_the_projects_budget_is_refused_whole(tmp_path):
    env = {"OUTPOST_SOURCE_MAPS_PROJECT_BYTES": "1000", "OUTPOST_SOURCE_MAPS_MAX_FILE_BYTES": "1000000"}
    with start_server(tmp_path / "budget", extra_env=env) as small:
        ApiHelper(small)
        project = make_upload_project(small, server_sessionmaker(small))
        result = project.uploader(small).run("sourcemaps", "upload", "--wait", str(inject(build("budget"))),
                                           check=False)
        assert result.returncode != 0
        assert "artifact storage budget of 1000 bytes is exhausted" in result.stdout + result.stderr
        listed = httpx.get(small.url + project.api0("files/artifact-bundles/"), timeout=30,
                           headers={"Authorization": f"Bearer {project.maintainer}"})
        assert listed.json() == []

        # A file beyond maxFileSize (as the chunk-upload options announce it) gets Sentry's assemble error.
        auth = {"Authorization": f"Bearer {project.maintainer}"}
        organization_url = f"{small.url}/api/0/organizations/{project.organization}"
        assert httpx.get(f"{organization_url}/chunk-upload/", headers=auth, timeout=30).json()["maxFileSize"] == 1000000
        data = os.urandom(1_500_000)
        checksum = hashlib.sha1(data).hexdigest()
        assert httpx.post(f"{organization_url}/chunk-upload/", headers=auth, timeout=60,
                          files=[("file", (checksum, data))]).status_code == 200
        body = {"checksum": checksum, "chunks": [checksum], "projects": [project.slug]}
        assert httpx.post(f"{organization_url}/artifactbundle/assemble/", json=body, headers=auth,
                          timeout=60).json()["state"] == "created"
        assert httpx.post(f"{organization_url}/artifactbundle/assemble/", json=body, headers=auth,
                          timeout=60).json() == {"state": "error", "detail": "File exceeds maximum size",
                                                 "missingChunks": []}
