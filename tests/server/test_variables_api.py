"""GitLab's instance-level CI/CD variables API, over HTTP against a real server process.

The module has its own server so the global variable count and the plan limit are under the
tests' control; each test starts from an empty list and no limit.
"""

from concurrent.futures import ThreadPoolExecutor

import gitlab
import httpx
import pytest
import sqlalchemy

from tests.support import ApiHelper, database_url_for, start_server, unique

NOT_FOUND = {"message": "404 InstanceVariable Not Found"}
MASKABLE = "dckr_pat_7Qm2xV9sLk4RtW8n"


@pytest.fixture(scope="module")
def variables_server(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("variables-server")) as running:
        yield running


@pytest.fixture(scope="module")
def helper(variables_server):
    return ApiHelper(variables_server)


@pytest.fixture
def root(variables_server):
    """Root's client, on a server with no instance variables and no limit."""
    with variables_server.client() as client:
        while existing := list_all(client):
            for variable in existing:
                assert client.delete(f"/admin/ci/variables/{variable['key']}").status_code == 204
        set_limit(client, 0)
        yield client


def list_all(client):
    return client.get("/admin/ci/variables", params={"per_page": 100}).json()


def set_limit(client, limit):
    response = client.put("/application/plan_limits", data={"plan_name": "default",
                                                            "ci_instance_level_variables": limit})
    assert response.status_code == 200, response.text
    return response.json()


def create(client, **fields):
    return client.post("/admin/ci/variables", data=fields)


def test_create_with_form_fields_answers_201_with_the_entity_in_gitlabs_order(root):
    response = create(root, key="TEST_VARIABLE_1", value="TEST_1")
    assert response.status_code == 201
    assert list(response.json().items()) == [
        ("variable_type", "env_var"), ("key", "TEST_VARIABLE_1"), ("value", "TEST_1"), ("protected", False),
        ("masked", False), ("raw", False), ("description", None)]


def test_create_with_json_and_grape_boolean_spellings(root):
    response = root.post("/admin/ci/variables", json={
        "key": "DEPLOY_KEY", "value": "line one\nline two", "variable_type": "file", "protected": "yes",
        "masked": False, "raw": "t", "description": "Key for the deploy hosts"})
    assert response.status_code == 201
    assert response.json() == {"variable_type": "file", "key": "DEPLOY_KEY", "value": "line one\nline two",
                               "protected": True, "masked": False, "raw": True,
                               "description": "Key for the deploy hosts"}
    for spelling, expected in (("1", True), ("on", True), ("0", False), ("false", False), ("n", False)):
        key = unique("BOOL_")
        body = create(root, key=key, value="x", protected=spelling).json()
        assert body["protected"] is expected, spelling


def test_get_list_update_and_delete(root):
    for key in ("FIRST", "SECOND", "THIRD"):
        assert create(root, key=key, value=key.lower()).status_code == 201
    assert [v["key"] for v in list_all(root)] == ["FIRST", "SECOND", "THIRD"]  # ordered by id
    assert root.get("/admin/ci/variables/SECOND").json()["value"] == "second"

    # A key in the body is ignored: variables cannot be renamed.
    response = root.put("/admin/ci/variables/SECOND", data={"key": "RENAMED", "value": "changed", "protected": "true",
                                                            "description": "now described"})
    assert response.status_code == 200
    assert response.json() == {"variable_type": "env_var", "key": "SECOND", "value": "changed", "protected": True,
                               "masked": False, "raw": False, "description": "now described"}
    assert root.get("/admin/ci/variables/RENAMED").status_code == 404
    # Fields left out keep their values.
    assert root.put("/admin/ci/variables/SECOND", json={"variable_type": "file"}).json() == {
        "variable_type": "file", "key": "SECOND", "value": "changed", "protected": True, "masked": False,
        "raw": False, "description": "now described"}

    response = root.delete("/admin/ci/variables/SECOND")
    assert response.status_code == 204
    assert response.content == b""
    assert [v["key"] for v in list_all(root)] == ["FIRST", "THIRD"]


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_missing_variable_is_404_instance_variable_not_found(root, method):
    response = root.request(method, "/admin/ci/variables/NO_SUCH_KEY", data={"value": "x"} if method == "PUT" else None)
    assert response.status_code == 404
    assert response.json() == NOT_FOUND


def test_administrators_only(variables_server, helper, root):
    assert create(root, key="GUARDED", value="v").status_code == 201
    _, user_token = helper.user()
    _, admin_token = helper.user(admin=True)
    requests = [("GET", "/admin/ci/variables", None), ("GET", "/admin/ci/variables/GUARDED", None),
                ("POST", "/admin/ci/variables", {"key": "OTHER", "value": "v"}),
                ("PUT", "/admin/ci/variables/GUARDED", {"value": "w"}), ("DELETE", "/admin/ci/variables/GUARDED", None),
                ("GET", "/application/plan_limits", None),
                ("PUT", "/application/plan_limits", {"plan_name": "default", "ci_instance_level_variables": 3})]
    with httpx.Client(base_url=variables_server.api_url) as anonymous, variables_server.client(user_token) as user:
        for method, path, body in requests:
            response = anonymous.request(method, path, data=body)
            assert (response.status_code, response.json()) == (401, {"message": "401 Unauthorized"}), path
            response = user.request(method, path, data=body)
            assert (response.status_code, response.json()) == (403, {"message": "403 Forbidden"}), path
    with variables_server.client(admin_token) as other_admin:
        assert other_admin.get("/admin/ci/variables/GUARDED").json()["value"] == "v"
    assert root.get("/admin/ci/variables/GUARDED").json()["value"] == "v"  # nothing changed


@pytest.mark.parametrize(("fields", "error"), [
    ({}, "key is missing, value is missing"),
    ({"key": "ONLY_KEY"}, "value is missing"),
    ({"value": "only value"}, "key is missing"),
    ({"key": "K", "value": "v", "variable_type": "yaml"}, "variable_type does not have a valid value"),
    ({"key": "K", "value": "v", "masked": "maybe"}, "masked is invalid"),
    ({"value": "v", "protected": "sometimes", "variable_type": "env"},
     "key is missing, protected is invalid, variable_type does not have a valid value"),
])
def test_parameter_errors_are_grape_style(root, fields, error):
    response = create(root, **fields)
    assert response.status_code == 400
    assert response.json() == {"error": error}
    assert list_all(root) == []


def test_update_parameter_errors_are_grape_style(root):
    create(root, key="TYPED", value="v")
    response = root.put("/admin/ci/variables/TYPED", data={"variable_type": "directory", "raw": "perhaps"})
    assert (response.status_code, response.json()) == (
        400, {"error": "raw is invalid, variable_type does not have a valid value"})


@pytest.mark.parametrize(("key", "messages"), [
    ("", ["can't be blank", "can contain only letters, digits and '_'."]),
    ("   ", ["can't be blank", "can contain only letters, digits and '_'."]),
    ("K" * 256, ["is too long (maximum is 255 characters)"]),
    ("MY-KEY", ["can contain only letters, digits and '_'."]),
    ("MY KEY", ["can contain only letters, digits and '_'."]),
    ("CLÉ", ["can contain only letters, digits and '_'."]),
    ("$" * 256, ["is too long (maximum is 255 characters)", "can contain only letters, digits and '_'."]),
])
def test_key_validation_messages(root, key, messages):
    response = create(root, key=key, value="v")
    assert response.status_code == 400
    assert response.json() == {"message": {"key": messages}}


def test_key_is_stripped_and_255_characters_are_allowed(root):
    assert create(root, key="  PADDED_KEY\t", value="v").json()["key"] == "PADDED_KEY"
    assert root.get("/admin/ci/variables/PADDED_KEY").status_code == 200
    longest = "A_z9" * 63 + "xyz"
    assert create(root, key=longest, value="v").status_code == 201


def test_duplicate_key(root):
    assert create(root, key="SHARED", value="one").status_code == 201
    response = create(root, key=" SHARED ", value="two")
    assert response.status_code == 400
    assert response.json() == {"message": {"key": ["(SHARED) has already been taken"]}}
    assert create(root, key="shared", value="lower case is another key").status_code == 201


def test_value_length_limit(root):
    assert create(root, key="LONGEST", value="v" * 10_000).status_code == 201
    response = create(root, key="TOO_LONG", value="v" * 10_001)
    assert response.status_code == 400
    assert response.json() == {"message": {"value": [
        "The value of the provided variable exceeds the 10000 character limit"]}}
    response = root.put("/admin/ci/variables/LONGEST", data={"value": "w" * 10_001})
    assert response.json() == {"message": {"value": [
        "The value of the provided variable exceeds the 10000 character limit"]}}
    assert root.get("/admin/ci/variables/LONGEST").json()["value"] == "v" * 10_000


def test_empty_value_is_allowed_unless_masked(root):
    assert create(root, key="EMPTY", value="").json()["value"] == ""
    assert create(root, key="EMPTY_MASKED", value="", masked="true").json() == {"message": {"value": ["is invalid"]}}


@pytest.mark.parametrize(("value", "raw", "accepted"), [
    (MASKABLE, "false", True),
    ("abc+/=@:.~-_XYZ09", "false", True),  # the whole Base64 alphabet plus @ : . ~
    ("1234567", "false", False),  # shorter than 8
    ("has space in it", "false", False),
    ("pa$$word_value", "false", False),  # '$' would be expanded
    ("two\nlines!", "false", False),
    ("pa$$word!%^&*()", "true", True),  # raw: anything but whitespace
    ("1234567", "true", False),
    ("raw but spaced", "true", False),
    ("raw\ttabbed!", "true", False),
    ("ünïcödé-välüe", "true", True),
    ("ünïcödé-välüe", "false", False),
])
def test_masking_rules(root, value, raw, accepted):
    response = create(root, key="MASKED", value=value, masked="true", raw=raw)
    if accepted:
        assert response.status_code == 201
        assert response.json()["masked"] is True
    else:
        assert (response.status_code, response.json()) == (400, {"message": {"value": ["is invalid"]}})


def test_masking_is_checked_against_the_stored_value_on_update(root):
    create(root, key="PLAIN", value="has spaces, so never maskable")
    response = root.put("/admin/ci/variables/PLAIN", data={"masked": "true"})
    assert (response.status_code, response.json()) == (400, {"message": {"value": ["is invalid"]}})
    create(root, key="SECRET", value="pa$$word!", masked="true", raw="true")
    # Turning expansion back on applies the strict rule to the stored value.
    response = root.put("/admin/ci/variables/SECRET", json={"raw": False})
    assert response.json() == {"message": {"value": ["is invalid"]}}
    assert root.get("/admin/ci/variables/SECRET").json()["raw"] is True


def test_description_length(root):
    assert create(root, key="DESCRIBED", value="v", description="d" * 255).json()["description"] == "d" * 255
    response = create(root, key="OVER", value="v", description="d" * 256)
    assert response.json() == {"message": {"description": ["is too long (maximum is 255 characters)"]}}
    response = root.put("/admin/ci/variables/DESCRIBED", data={"description": "e" * 256})
    assert response.json() == {"message": {"description": ["is too long (maximum is 255 characters)"]}}


def test_several_model_errors_are_combined_like_rails(root):
    create(root, key="TAKEN", value="v")
    set_limit(root, 1)
    response = create(root, key="TAKEN", value="short", masked="true", description="d" * 256)
    assert response.status_code == 400
    assert list(response.json()["message"].items()) == [
        ("value", ["is invalid"]),
        ("base", ["Maximum number of ci instance level variables (1) exceeded"]),
        ("description", ["is too long (maximum is 255 characters)"]),
        ("key", ["(TAKEN) has already been taken"]),
    ]
    response = create(root, key="BAD-KEY", value="x " * 5001, masked="true")
    assert list(response.json()["message"].items()) == [
        ("key", ["can contain only letters, digits and '_'."]),
        ("value", ["is invalid", "The value of the provided variable exceeds the 10000 character limit"]),
        ("base", ["Maximum number of ci instance level variables (1) exceeded"]),
    ]
    # A maskable value that is too long only fails the length check, after the limit.
    response = create(root, key="GOOD_KEY", value="x" * 10_001, masked="true")
    assert list(response.json()["message"]) == ["base", "value"]


def test_limit_on_the_number_of_variables(root):
    limits = root.get("/application/plan_limits").json()
    assert limits["ci_instance_level_variables"] == 0  # the fixture lifted it
    set_limit(root, 3)
    for index in range(3):
        assert create(root, key=f"V{index}", value="v").status_code == 201
    response = create(root, key="V3", value="v")
    assert (response.status_code, response.json()) == (
        400, {"message": {"base": ["Maximum number of ci instance level variables (3) exceeded"]}})
    # The limit applies to creation only.
    assert root.put("/admin/ci/variables/V0", data={"value": "still editable"}).status_code == 200
    root.delete("/admin/ci/variables/V0")
    assert create(root, key="V3", value="v").status_code == 201
    set_limit(root, 0)  # 0 = no limit
    assert create(root, key="V4", value="v").status_code == 201


def test_default_limit_is_25(tmp_path):
    with start_server(tmp_path / "fresh") as fresh, fresh.client() as client:
        assert client.get("/application/plan_limits").json()["ci_instance_level_variables"] == 25
        for index in range(25):
            assert create(client, key=f"VAR_{index}", value="v").status_code == 201
        assert create(client, key="VAR_25", value="v").json() == {
            "message": {"base": ["Maximum number of ci instance level variables (25) exceeded"]}}


def test_plan_limits_entity_and_update(root):
    body = set_limit(root, 40)
    assert list(body)[:3] == ["ci_instance_level_variables", "ci_pipeline_size", "ci_active_jobs"]
    assert body["ci_instance_level_variables"] == 40
    assert body["ci_project_subscriptions"] == 2 and body["ci_pipeline_schedules"] == 10
    assert body["limits_history"] == {}
    assert root.get("/application/plan_limits", params={"plan_name": "default"}).json() == body
    response = root.put("/application/plan_limits", json={"plan_name": "default", "ci_pipeline_schedules": 12,
                                                          "notification_limit": 500})
    assert response.json()["ci_pipeline_schedules"] == 12
    assert response.json()["ci_instance_level_variables"] == 40
    history = response.json()["limits_history"]["notification_limit"]
    assert [(entry["username"], entry["value"]) for entry in history] == [("root", 500)]


@pytest.mark.parametrize(("method", "body", "error"), [
    ("PUT", {"ci_instance_level_variables": 5}, "plan_name is missing"),
    ("PUT", {"plan_name": "platinum"}, "plan_name does not have a valid value"),
    ("PUT", {"plan_name": "default", "ci_instance_level_variables": "many"}, "ci_instance_level_variables is invalid"),
    ("GET", {"plan_name": "platinum"}, "plan_name does not have a valid value"),
])
def test_plan_limits_parameter_errors(root, method, body, error):
    if method == "GET":
        response = root.get("/application/plan_limits", params=body)
    else:
        response = root.put("/application/plan_limits", data=body)
    assert (response.status_code, response.json()) == (400, {"error": error})


def test_pagination_across_pages(root):
    keys = [f"PAGED_{index:02d}" for index in range(45)]
    for key in keys:
        assert create(root, key=key, value="v").status_code == 201
    first = root.get("/admin/ci/variables", params={"per_page": 20})
    assert [v["key"] for v in first.json()] == keys[:20]
    assert first.headers["X-Total"] == "45" and first.headers["X-Total-Pages"] == "3"
    assert first.headers["X-Next-Page"] == "2" and first.headers["X-Prev-Page"] == ""
    assert 'rel="next"' in first.headers["Link"] and 'rel="last"' in first.headers["Link"]
    last = root.get("/admin/ci/variables", params={"per_page": 20, "page": 3})
    assert [v["key"] for v in last.json()] == keys[40:]
    assert last.headers["X-Next-Page"] == "" and last.headers["X-Prev-Page"] == "2"
    # The default page size is 20.
    assert len(root.get("/admin/ci/variables").json()) == 20


def test_python_gitlab_variables_manager(variables_server, root):
    gl = gitlab.Gitlab(variables_server.url, private_token=variables_server.root_token)
    created = gl.variables.create({"key": "GL_VAR", "value": MASKABLE, "masked": True, "protected": True,
                                   "description": "made by python-gitlab"})
    assert (created.key, created.value, created.masked, created.protected, created.raw) == (
        "GL_VAR", MASKABLE, True, True, False)
    fetched = gl.variables.get("GL_VAR")
    assert fetched.description == "made by python-gitlab"
    fetched.value = "another-maskable-value"
    fetched.variable_type = "file"
    fetched.save()
    again = gl.variables.get("GL_VAR")
    assert (again.value, again.variable_type) == ("another-maskable-value", "file")
    gl.variables.update("GL_VAR", {"description": "updated"})
    for index in range(25):
        gl.variables.create({"key": f"GL_{index}", "value": "v"})
    listed = gl.variables.list(get_all=True, per_page=10)
    assert [v.key for v in listed] == ["GL_VAR"] + [f"GL_{index}" for index in range(25)]
    assert listed[0].description == "updated"
    gl.variables.delete("GL_VAR")
    with pytest.raises(gitlab.GitlabGetError) as raised:
        gl.variables.get("GL_VAR")
    assert raised.value.response_code == 404
    with pytest.raises(gitlab.GitlabCreateError) as raised:
        gl.variables.create({"key": "GL_0", "value": "v"})
    assert raised.value.response_code == 400
    assert "(GL_0) has already been taken" in str(raised.value)


def test_values_never_reach_the_log_and_are_encrypted_at_rest(variables_server, root):
    plain_value = "plain-" + unique("v")
    masked_value = "masked-" + unique("m")
    rejected_value = "rejected " + unique("r")
    create(root, key="LOGGED_PLAIN", value=plain_value)
    create(root, key="LOGGED_MASKED", value=masked_value, masked="true")
    root.put("/admin/ci/variables/LOGGED_PLAIN", data={"value": plain_value + "-2"})
    create(root, key="LOGGED_REJECTED", value=rejected_value, masked="true")
    root.get("/admin/ci/variables")
    log = variables_server.log_text()
    assert "/admin/ci/variables/LOGGED_PLAIN" in log  # the requests were logged
    for value in (plain_value, masked_value, rejected_value):
        assert value not in log

    url = database_url_for(variables_server.data_dir) or f"sqlite:///{variables_server.data_dir / 'outpost.sqlite3'}"
    engine = sqlalchemy.create_engine(url)
    with engine.connect() as connection:
        stored = connection.execute(sqlalchemy.text(
            "SELECT key, encrypted_value FROM ci_instance_variables WHERE key LIKE 'LOGGED_%'")).all()
    engine.dispose()
    assert len(stored) == 2
    assert all(plain_value not in row[1] and masked_value not in row[1] for row in stored)


def test_demo_server_has_a_realistic_mix(server):
    with server.client() as client:
        variables = client.get("/admin/ci/variables", params={"per_page": 100}).json()
    by_key = {v["key"]: v for v in variables}
    assert {"DOCKER_AUTH_TOKEN", "DEPLOY_SSH_KEY", "SENTRY_AUTH_TOKEN"} <= set(by_key)
    assert any(v["masked"] for v in variables) and any(v["protected"] for v in variables)
    assert any(v["variable_type"] == "file" for v in variables) and any(v["raw"] for v in variables)


def test_limit_holds_under_concurrent_creation(variables_server, root):
    set_limit(root, 5)
    keys = [f"RACE_{index}" for index in range(20)]

    def attempt(key):
        with variables_server.client() as client:
            return create(client, key=key, value="v").status_code

    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = list(pool.map(attempt, keys))
    assert sorted(statuses) == [201] * 5 + [400] * 15
    assert len(list_all(root)) == 5
