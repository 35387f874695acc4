"""Release file names: Sentry's check (no special whitespace in the last segment, a name given), and what
can only be a forgery refused too (a control character anywhere, a `.` or `..` segment), uploaded one by
one as sentry-cli 2.x sends them."""

from __future__ import annotations

import httpx

WHITESPACE = "File name must not contain special whitespace characters"
SEGMENT = "File name must not contain relative path segments"


def test_forged_release_file_names_are_refused_and_real_ones_kept(server, upload_project):
    auth = {"Authorization": f"Bearer {upload_project.maintainer}"}
    created = httpx.post(server.url + upload_project.api0("releases/"), headers=auth, json={"version": "names@1"},
                         timeout=30)
    assert created.status_code == 201, created.text
    url = server.url + upload_project.api0("releases/names@1/files/")
    refused = {"../../../../etc/passwd": SEGMENT, "~/static/../../secret.js": SEGMENT, "~/./app.js": SEGMENT,
               "~/app\tname.js": WHITESPACE, "~/bell\x07/app.js": WHITESPACE, "~/esc\x1b[31m.js": WHITESPACE,
               "~/\u202etxt.exe.js": WHITESPACE, "~/del\x7f.js": WHITESPACE, "file": "File name must be specified"}
    for name, detail in refused.items():
        answer = httpx.post(url, headers=auth, data={"name": name}, files={"file": ("x.js", b"x")}, timeout=30)
        assert (answer.status_code, answer.json()) == (400, {"detail": detail}), name
    # Names frames are matched by: a `~/` path, a URL, an app:/// path, a Node file's absolute path.
    kept = ["~/static/app.min.js", "https://cdn.example.com/a..b/app.js", "app:///dist/app.js", "/srv/app/index.js"]
    for name in kept:
        answer = httpx.post(url, headers=auth, data={"name": name}, files={"file": ("x.js", b"x")}, timeout=30)
        assert answer.status_code == 201, (name, answer.text)
    listed = httpx.get(url, headers=auth, timeout=30).json()
    assert sorted(file["name"] for file in listed) == sorted(kept)
