"""Account behaviours GitLab has: GET /users newest first with order_by and sort, the creator of a subgroup is
its direct Owner, ids are never handed out twice (a fresh server, so the deleted row is the newest), and
GET /version names a GitLab 18 release."""

import gitlab

from tests.support import ApiHelper, start_server, unique

OWNER = 50


def test_users_are_listed_newest_first_by_default(server, api):
    # Names that differ in their last letter only sort alike in every database collation.
    tag = unique("order")
    created = [api.user(username=f"{tag}{letter}")[0] for letter in "cab"]
    by_id = [user["id"] for user in created]
    with server.client() as root:
        newest = root.get("/users", params={"per_page": 3}).json()
        assert [user["id"] for user in newest] == by_id[::-1]
        oldest = root.get("/users", params={"order_by": "id", "sort": "asc", "per_page": 2}).json()
        assert [user["id"] for user in oldest] == sorted(user["id"] for user in oldest)
        assert oldest[0]["id"] < by_id[0]
        by_letter = [by_id[1], by_id[2], by_id[0]]  # a, b, c
        for order_by, ascending in (("username", by_letter), ("name", by_letter), ("created_at", by_id),
                                    ("id", by_id)):
            for sort, expected in (("asc", ascending), ("desc", ascending[::-1])):
                listed = root.get("/users", params={"order_by": order_by, "sort": sort, "search": tag}).json()
                assert [user["id"] for user in listed] == expected, (order_by, sort)
        # Changing a user moves it to the front of order_by=updated_at.
        assert root.put(f"/users/{by_id[0]}", json={"bio": "changed"}).status_code == 200
        recent = root.get("/users", params={"order_by": "updated_at", "per_page": 1}).json()
        assert recent[0]["id"] == by_id[0]
        for name, value in (("order_by", "email"), ("sort", "up")):
            refused = root.get("/users", params={name: value})
            assert (refused.status_code, refused.json()) == (400, {"error": f"{name} does not have a valid value"})
    gl = gitlab.Gitlab(server.url, private_token=server.root_token)
    assert [user.id for user in gl.users.list(search=tag, get_all=True)] == by_id[::-1]
    listed = gl.users.list(search=tag, order_by="username", sort="asc", get_all=True)
    assert [user.username for user in listed] == [f"{tag}a", f"{tag}b", f"{tag}c"]


def test_subgroup_creator_is_a_direct_owner(server, api):
    user, token = api.user()
    gl = gitlab.Gitlab(server.url, private_token=token)
    top = gl.groups.create({"name": unique("top"), "path": unique("top")})
    sub = gl.groups.create({"name": unique("sub"), "path": unique("sub"), "parent_id": top.id})
    deeper = gl.groups.create({"name": unique("deep"), "path": unique("deep"), "parent_id": sub.id})
    for group in (top, sub, deeper):
        member = group.members.get(user["id"])
        assert member.access_level == OWNER, group.full_path
    with server.client(token) as client:
        direct = client.get(f"/groups/{deeper.id}/members").json()
    assert [(member["id"], member["access_level"]) for member in direct] == [(user["id"], OWNER)]
    # An administrator creating a subgroup of someone else's group becomes its direct Owner too.
    with server.client() as root:
        administrated = root.post("/groups", json={"name": unique("adm"), "path": unique("adm"),
                                                   "parent_id": top.id}).json()
        members = root.get(f"/groups/{administrated['id']}/members").json()
        admin_id = root.get("/user").json()["id"]
    assert (admin_id, OWNER) in [(member["id"], member["access_level"]) for member in members]


def test_ids_of_deleted_rows_are_never_reused(tmp_path):
    with start_server(tmp_path) as fresh:
        helper = ApiHelper(fresh)
        gl = gitlab.Gitlab(fresh.url, private_token=fresh.root_token)
        with fresh.client() as root:
            user, _ = helper.user()
            assert root.delete(f"/users/{user['id']}", params={"hard_delete": True}).status_code == 204
            project = helper.project()
            assert root.delete(f"/projects/{project['id']}").status_code == 202
            group = helper.group()
            assert root.delete(f"/groups/{group['id']}").status_code == 202
        name = unique("again")
        assert gl.users.create({"username": name, "name": name, "email": f"{name}@example.com",
                                "password": "s3cret-pass-1"}).id > user["id"]
        assert gl.projects.create({"name": name}).id > project["id"]
        assert gl.groups.create({"name": f"{name}-g", "path": f"{name}-g"}).id > group["id"]


def test_version_is_a_gitlab_18_release(server):
    with server.client() as root:
        version = root.get("/version").json()["version"]
    assert version.split(".")[0] == "18"
    assert gitlab.Gitlab(server.url, private_token=server.root_token).version()[0] == version
