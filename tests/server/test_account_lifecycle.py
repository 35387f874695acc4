"""The account model and lifecycle as administrators script them, driven by python-gitlab, unmodified,
against the real server (SQLite, or PostgreSQL with OUTPOST_TEST_PG_ADMIN_URL).

python-gitlab calls exercised here: Gitlab.auth, users.create/get/list, User.save/block/unblock/
deactivate/activate/delete, users.delete(hard_delete=...), User.personal_access_tokens.create,
personal_access_tokens.get("self")/get(id)/list(user_id, state, search)/rotate(id)/delete("self"),
PersonalAccessToken.rotate(self_rotate=...)/delete, namespaces.list(search, owned_only)/get(id or
path)/exists(path, parent_id), groups.create/get, Group.save/delete, Group.subgroups.list,
Group.projects.list(include_subgroups), Group.members.create, projects.create/get/list(min_access_level,
order_by, sort, owned, membership), Project.delete.
"""

from __future__ import annotations

import time

import gitlab
import httpx
import pytest
import sqlalchemy

from tests.e2e.flows import sast_report, sentry_event, store_path, store_request, upload_report, wait_for_export
from tests.server.error_tracking.conftest import server_sessionmaker
from tests.support import ApiHelper, launch_server, start_server, unique

DEVELOPER, MAINTAINER, OWNER = 30, 40, 50


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A server with no demo data, so ids and memberships are only what these tests make."""
    with start_server(tmp_path_factory.mktemp("lifecycle")) as running:
        yield running


@pytest.fixture(scope="module")
def gl(fresh) -> gitlab.Gitlab:
    client = gitlab.Gitlab(fresh.url, private_token=fresh.root_token)
    client.auth()
    return client


def new_user(gl: gitlab.Gitlab, *, admin: bool = False):
    name = unique("u")
    user = gl.users.create({"username": name, "name": name.title(), "email": f"{name}@example.com",
                            "password": "s3cret-pass-1", "admin": admin})
    token = user.personal_access_tokens.create({"name": "cli", "scopes": ["api"]}).token
    return user, token


def as_user(server, token: str) -> gitlab.Gitlab:
    return gitlab.Gitlab(server.url, private_token=token)


def test_project_lands_in_the_group_whose_id_equals_the_callers_user_id(tmp_path):
    with start_server(tmp_path / "ids") as server:
        root = gitlab.Gitlab(server.url, private_token=server.root_token)
        group = root.groups.create({"name": "Shop Team", "path": "shop-team"})
        user, token = new_user(root)
        while user.id < group.id:  # namespaces and users draw ids from different sequences
            user, token = new_user(root)
        assert user.id == group.id
        group.members.create({"user_id": user.id, "access_level": MAINTAINER})
        colleague, colleague_token = new_user(root)
        group.members.create({"user_id": colleague.id, "access_level": DEVELOPER})

        project = as_user(server, token).projects.create({"name": "shop", "namespace_id": group.id})

        assert project.path_with_namespace == "shop-team/shop"
        assert project.namespace["kind"] == "group" and project.namespace["id"] == group.id
        assert as_user(server, colleague_token).projects.get(project.id).path_with_namespace == "shop-team/shop"
        personal = as_user(server, token).namespaces.get(user.username)
        assert personal.kind == "user" and personal.id != user.id
        mine = as_user(server, token).projects.create({"name": "notes", "namespace_id": personal.id})
        assert mine.path_with_namespace == f"{user.username}/notes"


def test_namespace_entity_and_lists(gl, fresh):
    user, token = new_user(gl)
    group = gl.groups.create({"name": unique("g"), "path": unique("g")})
    child = gl.groups.create({"name": "child", "path": "child", "parent_id": group.id})
    group.members.create({"user_id": user.id, "access_level": DEVELOPER})
    project = gl.projects.create({"name": "svc", "namespace_id": child.id})

    namespace = project.namespace
    assert set(namespace) == {"id", "name", "path", "kind", "full_path", "parent_id", "avatar_url", "web_url"}
    assert (namespace["id"], namespace["kind"], namespace["full_path"], namespace["parent_id"]) == (
        child.id, "group", f"{group.path}/child", group.id)
    assert namespace["web_url"] == f"{fresh.url}/groups/{group.path}/child"

    member = as_user(fresh, token)
    listed = {n.full_path: n.kind for n in member.namespaces.list(get_all=True)}
    # Non-administrators see their own namespace and the groups they belong to directly.
    assert listed == {user.username: "user", group.path: "group"}
    assert [n.full_path for n in member.namespaces.list(owned_only=True, get_all=True)] == [user.username]
    assert [n.full_path for n in gl.namespaces.list(search=group.path, get_all=True)] == [group.path]
    found = gl.namespaces.list(search=group.path, full_path_search=True, get_all=True)
    assert [n.full_path for n in found] == [group.path, f"{group.path}/child"]
    by_path = member.namespaces.get(f"{group.path}/child")
    assert by_path.id == child.id and "members_count_with_descendants" not in by_path.attributes
    assert gl.namespaces.get(group.id).members_count_with_descendants == 2  # root (owner) and the developer
    outsider = as_user(fresh, new_user(gl)[1])
    with pytest.raises(gitlab.GitlabGetError) as refused:
        outsider.namespaces.get(group.id)
    assert refused.value.response_code == 404 and "404 Namespace Not Found" in refused.value.error_message

    assert gl.namespaces.exists(group.path).attributes == {"exists": True, "suggests": [f"{group.path}1"]}
    assert gl.namespaces.exists("child", parent_id=group.id).exists is True
    assert gl.namespaces.exists("child").attributes == {"exists": False, "suggests": []}


def test_usernames_and_top_level_group_paths_share_one_space(gl, fresh):
    user, _ = new_user(gl)
    with pytest.raises(gitlab.GitlabCreateError) as taken:
        gl.groups.create({"name": "clash", "path": user.username})
    assert taken.value.response_code == 400
    group = gl.groups.create({"name": "clash", "path": unique("clash")})
    with pytest.raises(gitlab.GitlabCreateError) as conflict:
        gl.users.create({"username": group.path, "name": "X", "email": f"{unique('x')}@example.com",
                         "password": "s3cret-pass-1"})
    assert conflict.value.response_code == 409 and "Username has already been taken" in conflict.value.error_message


def test_tokens_rotate_revoke_and_list(gl, fresh):
    user, token = new_user(gl)
    mine = as_user(fresh, token)
    own = mine.personal_access_tokens.get("self")
    assert own.user_id == user.id and own.scopes == ["api"] and own.last_used_at is not None
    # last_used_at is written at most every few minutes, not on every request.
    assert mine.personal_access_tokens.get("self").last_used_at == own.last_used_at

    rotated = own.rotate(self_rotate=True)
    assert rotated["token"] != token and rotated["scopes"] == ["api"] and rotated["expires_at"] is not None
    with pytest.raises(gitlab.GitlabAuthenticationError):
        mine.personal_access_tokens.get("self")
    mine = as_user(fresh, rotated["token"])
    assert mine.personal_access_tokens.get("self").id == rotated["id"]

    by_admin = gl.personal_access_tokens.rotate(rotated["id"], expires_at="2031-05-01")
    assert by_admin["expires_at"] == "2031-05-01" and by_admin["user_id"] == user.id
    with pytest.raises(gitlab.GitlabRotateError) as again:
        gl.personal_access_tokens.rotate(rotated["id"])
    assert again.value.response_code == 400 and "Token already revoked" in again.value.error_message

    listed = gl.personal_access_tokens.list(user_id=user.id, get_all=True)
    assert [t.active for t in listed] == [False, False, True]
    assert [t.id for t in gl.personal_access_tokens.list(user_id=user.id, state="active")] == [by_admin["id"]]
    assert len(gl.personal_access_tokens.list(user_id=user.id, search="cl", get_all=True)) == 3
    assert gl.personal_access_tokens.list(user_id=user.id, search="nothing-like-it") == []

    latest = as_user(fresh, by_admin["token"])
    latest.personal_access_tokens.delete("self")
    with pytest.raises(gitlab.GitlabAuthenticationError):
        latest.auth()


def test_blocked_and_deactivated_users_are_refused(gl, fresh):
    user, token = new_user(gl)
    me = gl.users.get(gl.user.id)
    with pytest.raises(gitlab.GitlabBlockError) as self_block:
        me.block()
    assert "403 Forbidden - The API initiating user cannot be blocked by the API" in self_block.value.error_message

    target = gl.users.get(user.id)
    assert target.block() is True and target.state == "blocked"
    assert target.block() is None  # already blocked: GitLab answers 201 with an empty body
    response = httpx.get(fresh.api_url + "/user", headers={"PRIVATE-TOKEN": token})
    assert response.status_code == 403
    assert response.json() == {"message": "403 Forbidden - Your account has been blocked."}
    with pytest.raises(gitlab.GitlabDeactivateError) as blocked:
        target.deactivate()
    assert blocked.value.error_message == "Error occurred. A blocked user cannot be deactivated"
    assert target.unblock() is True and gl.users.get(user.id).state == "active"
    as_user(fresh, token).auth()

    # The token was just used, so the user is not dormant: GitLab refuses to deactivate them.
    with pytest.raises(gitlab.GitlabDeactivateError) as recent:
        target.deactivate()
    assert "has been active in the past 90 days" in recent.value.error_message
    idle, idle_token = new_user(gl)
    idle = gl.users.get(idle.id)
    assert idle.deactivate() is True and gl.users.get(idle.id).state == "deactivated"
    response = httpx.get(fresh.api_url + "/user", headers={"PRIVATE-TOKEN": idle_token})
    assert response.status_code == 403 and "deactivated by your administrator" in response.json()["message"]
    with pytest.raises(gitlab.GitlabUnblockError):
        idle.unblock()
    assert idle.activate() is True and gl.users.get(idle.id).state == "active"


def test_save_changes_a_user_and_moves_their_namespace(gl, fresh):
    user, token = new_user(gl)
    project = as_user(fresh, token).projects.create({"name": "notes"})
    user.name, user.bio, user.can_create_group = "Renamed Person", "changed", False
    user.save()
    renamed = unique("renamed")
    user.username = renamed
    user.save()
    again = gl.users.get(user.id)
    assert (again.name, again.username, again.bio, again.can_create_group) == (
        "Renamed Person", renamed, "changed", False)
    assert gl.projects.get(project.id).path_with_namespace == f"{renamed}/notes"
    assert gl.namespaces.get(renamed).kind == "user"
    with pytest.raises(gitlab.GitlabCreateError):
        as_user(fresh, token).groups.create({"name": "nope", "path": unique("nope")})
    other, _ = new_user(gl)
    other.email = again.email
    with pytest.raises(gitlab.GitlabUpdateError) as taken:
        other.save()
    assert taken.value.response_code == 409 and "Email has already been taken" in taken.value.error_message


def test_group_save_subgroups_and_projects(gl, fresh):
    top = gl.groups.create({"name": "Top", "path": unique("top")})
    sub = gl.groups.create({"name": "Sub", "path": "sub", "parent_id": top.id})
    in_top = gl.projects.create({"name": "a", "namespace_id": top.id})
    in_sub = gl.projects.create({"name": "b", "namespace_id": sub.id})
    assert [g.id for g in top.subgroups.list(get_all=True)] == [sub.id]
    assert [p.id for p in top.projects.list(get_all=True)] == [in_top.id]
    assert sorted(p.id for p in top.projects.list(include_subgroups=True, get_all=True)) == [in_top.id, in_sub.id]

    moved = unique("moved")
    top.path, top.description = moved, "moved on"
    top.save()
    assert gl.groups.get(top.id).description == "moved on"
    assert gl.projects.get(in_sub.id).path_with_namespace == f"{moved}/sub/b"
    assert gl.groups.get(sub.id).full_path == f"{moved}/sub"


def _project_rows(server, project_id: int) -> dict[str, int]:
    """Rows hanging off the project, by table (through its errors and exports where needed)."""
    engine = server_sessionmaker(server).kw["bind"]
    queries = {
        "error_tracking_settings": "project_id = :id", "error_tracking_client_keys": "project_id = :id",
        "error_tracking_errors": "project_id = :id", "error_tracking_error_events": "project_id = :id",
        "error_tracking_event_payloads": "error_id IN (SELECT id FROM error_tracking_errors WHERE project_id = :id)",
        "vulnerabilities": "project_id = :id", "vulnerability_exports": "project_id = :id",
        "vulnerability_export_chunks": "export_id IN (SELECT id FROM vulnerability_exports WHERE project_id = :id)",
    }
    with engine.connect() as connection:
        counts = {table: connection.scalar(sqlalchemy.text(f"SELECT count(*) FROM {table} WHERE {where}"),
                                           {"id": project_id}) for table, where in queries.items()}
    engine.dispose()
    return counts


# An event of the project being deleted may be in a digest batch at that moment: the batch fails on the
# missing project and its entries are stored one by one (that one dropped), which the digest reports.
@pytest.mark.expected_log(r"a batch of \d+ failed; storing its entries one by one")
def test_deleting_a_project_removes_what_hangs_off_it_and_its_dsns_at_once_on_every_replica(gl, fresh):
    api = ApiHelper(fresh)
    project = gl.projects.get(api.project()["id"])
    api.root.put(f"/projects/{project.id}/error_tracking/settings", json={"active": True, "integrated": True})
    key = api.root.get(f"/projects/{project.id}/error_tracking/client_keys").json()[0]["public_key"]
    headers, body = store_request(key, sentry_event())
    assert httpx.post(fresh.url + store_path(project.id), headers=headers, content=body).status_code == 200
    upload_report(api.root, project.id, sast_report(2, tag="gone"))
    export = api.root.post(f"/security/projects/{project.id}/vulnerability_exports").json()
    wait_for_export(api.root, export["id"])
    api.root.post("/admin/ci/variables", json={"key": unique("STAYS_").upper(), "value": "instance-level"})
    variables_before = len(api.root.get("/admin/ci/variables", params={"per_page": 100}).json())
    assert all(count > 0 for count in _project_rows(fresh, project.id).values())

    replica = launch_server(fresh.data_dir / "replica", database_url=fresh.env.get("OUTPOST_DATABASE_URL") or
                            f"sqlite:///{(fresh.data_dir / 'outpost.sqlite3').resolve()}",
                            root_token=fresh.root_token, extra_env={"OUTPOST_SECRET_KEY": _secret_key(fresh)})
    try:
        headers, body = store_request(key, sentry_event())
        assert httpx.post(replica.url + store_path(project.id), headers=headers, content=body).status_code == 200
        project.delete()
        # An event the replica accepts before the deletion reaches it is dropped when digested (the key is
        # checked again in the digest's transaction); within a second the replica refuses the DSN itself.
        headers, body = store_request(key, sentry_event())
        racing = httpx.post(replica.url + store_path(project.id), headers=headers, content=body)
        assert racing.status_code in (200, 404)
        time.sleep(1.0)
        headers, body = store_request(key, sentry_event())
        refused = httpx.post(replica.url + store_path(project.id), headers=headers, content=body)
        assert refused.status_code == 404
        replica.wait_for_digest()
    finally:
        replica.stop()
    with pytest.raises(gitlab.GitlabGetError):
        gl.projects.get(project.id)
    assert _project_rows(fresh, project.id) == dict.fromkeys(_project_rows(fresh, project.id), 0)
    assert len(api.root.get("/admin/ci/variables", params={"per_page": 100}).json()) == variables_before
    assert api.root.get(f"/security/vulnerability_exports/{export['id']}").status_code == 404


def _secret_key(server) -> str:
    return (server.data_dir / "secret_key").read_text().strip()


def test_deleting_a_group_removes_subgroups_projects_and_group_exports(gl, fresh):
    top = gl.groups.create({"name": "Doomed", "path": unique("doomed")})
    sub = gl.groups.create({"name": "Sub", "path": "sub", "parent_id": top.id})
    project = gl.projects.create({"name": "p", "namespace_id": sub.id})
    api = ApiHelper(fresh)
    export = api.root.post(f"/security/groups/{top.id}/vulnerability_exports").json()
    wait_for_export(api.root, export["id"])
    top.delete()
    for gone in (lambda: gl.groups.get(top.id), lambda: gl.groups.get(sub.id), lambda: gl.projects.get(project.id)):
        with pytest.raises(gitlab.GitlabGetError):
            gone()
    assert api.root.get(f"/security/vulnerability_exports/{export['id']}").status_code == 404


def test_deleting_users(gl, fresh):
    owner, owner_token = new_user(gl)
    group = as_user(fresh, owner_token).groups.create({"name": "Mine", "path": unique("mine")})
    personal = as_user(fresh, owner_token).projects.create({"name": "notes"})
    in_group = gl.projects.create({"name": "shared", "namespace_id": group.id})
    with pytest.raises(gitlab.GitlabDeleteError) as sole_owner:
        gl.users.delete(owner.id)
    assert sole_owner.value.response_code == 409
    assert "User cannot be removed while is the sole-owner of a group" in sole_owner.value.error_message

    gl.users.delete(owner.id, hard_delete=True)
    with pytest.raises(gitlab.GitlabGetError):
        gl.users.get(owner.id)
    for gone in (lambda: gl.projects.get(personal.id), lambda: gl.groups.get(group.id),
                 lambda: gl.projects.get(in_group.id)):
        with pytest.raises(gitlab.GitlabGetError):
            gone()
    assert httpx.get(fresh.api_url + "/user", headers={"PRIVATE-TOKEN": owner_token}).status_code == 401

    creator, creator_token = new_user(gl)
    team = gl.groups.create({"name": "Team", "path": unique("team")})
    team.members.create({"user_id": creator.id, "access_level": MAINTAINER})
    kept = as_user(fresh, creator_token).projects.create({"name": "kept", "namespace_id": team.id})
    gl.users.get(creator.id).delete()
    survivor = gl.projects.get(kept.id)
    assert survivor.creator_id != creator.id
    assert gl.users.get(survivor.creator_id).state == "blocked"  # the ghost user holds it now


def test_project_lists_honour_gitlabs_filters(gl, fresh):
    user, token = new_user(gl)
    group = gl.groups.create({"name": "Levels", "path": unique("levels")})
    developer_in = gl.projects.create({"name": "dev-here", "namespace_id": group.id})
    reporter_in = gl.projects.create({"name": "rep-here"})
    group.members.create({"user_id": user.id, "access_level": DEVELOPER})
    gl.projects.get(reporter_in.id).members.create({"user_id": user.id, "access_level": 20})
    me = as_user(fresh, token)
    own = me.projects.create({"name": "mine"})

    def ids(**filters) -> list[int]:
        return [p.id for p in me.projects.list(get_all=True, **filters)]

    assert set(ids(membership=True)) == {developer_in.id, reporter_in.id, own.id}
    assert set(ids(min_access_level=DEVELOPER)) == {developer_in.id, own.id}
    assert ids(owned=True) == [own.id]
    assert ids(membership=True, order_by="id", sort="asc") == sorted([developer_in.id, reporter_in.id, own.id])
    assert ids(membership=True) == sorted([developer_in.id, reporter_in.id, own.id], reverse=True)
    assert ids(membership=True, search="rep-") == [reporter_in.id]
    names = [p.name for p in me.projects.list(membership=True, order_by="name", sort="asc", get_all=True)]
    assert names == sorted(names)
    with pytest.raises(gitlab.GitlabListError) as invalid:
        me.projects.list(order_by="stars")
    assert invalid.value.response_code == 400
    groups = [g.id for g in me.groups.list(min_access_level=DEVELOPER, get_all=True)]
    assert groups == [group.id]
    assert me.groups.list(min_access_level=MAINTAINER) == []
