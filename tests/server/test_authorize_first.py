"""GitLab's project resources authorize before Grape validates (`before { authorize! … user_project }`):
a caller who may not use a project route learns nothing of its parameters, only its 404 or 403."""

from __future__ import annotations

import httpx

from tests.support import ApiHelper

GUEST, DEVELOPER, MAINTAINER = 10, 30, 40


def test_outsiders_and_guests_get_404_or_403_before_a_parameter_is_checked(server, api: ApiHelper):
    project, tokens = api.project_with_roles({"guest": GUEST, "developer": DEVELOPER, "maintainer": MAINTAINER})
    _outsider, outsider_token = api.user()
    settings = f"{server.api_url}/projects/{project['id']}/error_tracking/settings"
    expected = {outsider_token: (404, {"message": "404 Project Not Found"}),
                tokens["guest"]: (403, {"message": "403 Forbidden"}),
                tokens["developer"]: (403, {"message": "403 Forbidden"})}
    for token, (status, body) in expected.items():
        headers = {"PRIVATE-TOKEN": token}
        for method, sent in (("PUT", {"active": "true"}), ("PUT", {"active": "maybe"}), ("PATCH", {})):
            response = httpx.request(method, settings, params=sent, headers=headers, timeout=30)
            assert (response.status_code, response.json()) == (status, body), (method, sent, response.text)
    members = httpx.post(f"{server.api_url}/projects/{project['id']}/members", json={"user_id": 1},
                         headers={"PRIVATE-TOKEN": outsider_token}, timeout=30)
    assert (members.status_code, members.json()) == (404, {"message": "404 Project Not Found"})
    # Whoever may use the route still gets Grape's 400, every problem at once.
    maintainer = httpx.put(settings, params={"active": "maybe"}, headers={"PRIVATE-TOKEN": tokens["maintainer"]},
                           timeout=30)
    assert (maintainer.status_code, maintainer.json()) == (400, {"error": "active is invalid, integrated is missing"})
