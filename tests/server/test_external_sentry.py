"""The external Sentry backend, through a fake of Sentry's web API on 127.0.0.1.

A private server keeps the instance-wide "allow local requests" setting from leaking into other tests,
and its short external timeout keeps the timeout case quick.
"""

from __future__ import annotations

import datetime as dt
import socket
import ssl
import threading

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from outpost_server.accounts import access
from outpost_server.error_tracking.read.external.client import SentryClient, SentryError
from outpost_server.error_tracking.read.external.sentry_settings import address_pin
from outpost_server.outbound.url_policy import BlockedUrl, check_url
from tests.fake_sentry import FakeSentry
from tests.support import ApiHelper, start_server

GOOD_TOKEN = "sntrys-good-token"
PROJECT_KEYS = {"id", "name", "status", "slug", "organization_name", "organization_id", "organization_slug"}


@pytest.fixture(scope="module")
def private_server(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("external"),
                      extra_env={"OUTPOST_ERROR_TRACKING_EXTERNAL_TIMEOUT": "1"}) as running:
        yield running


@pytest.fixture(scope="module")
def helper(private_server):
    return ApiHelper(private_server)


@pytest.fixture(scope="module")
def fake():
    with FakeSentry(tokens=(GOOD_TOKEN,)) as running:
        yield running


@pytest.fixture
def web(private_server):
    with httpx.Client(base_url=private_server.url, headers={"PRIVATE-TOKEN": private_server.root_token},
                      timeout=30) as client:
        yield client


@pytest.fixture
def allow_local(helper):
    helper.root.put("/application/settings",
                    json={"allow_local_requests_from_web_hooks_and_services": True}).raise_for_status()
    yield
    helper.root.put("/application/settings",
                    json={"allow_local_requests_from_web_hooks_and_services": False}).raise_for_status()


def _projects(web, path: str, api_host: str, token: str) -> httpx.Response:
    return web.get(f"/{path}/-/error_tracking/projects.json", params={"api_host": api_host, "token": token})


def test_application_setting_is_admin_only(private_server, helper):
    body = helper.root.get("/application/settings").json()
    assert body["allow_local_requests_from_web_hooks_and_services"] is False
    _, token = helper.user()
    with httpx.Client(base_url=private_server.api_url, headers={"PRIVATE-TOKEN": token}) as user:
        assert user.put("/application/settings",
                        json={"allow_local_requests_from_web_hooks_and_services": True}).status_code == 403
    invalid = helper.root.put("/application/settings", json={"allow_local_requests_from_web_hooks_and_services": "x"})
    assert invalid.status_code == 400
    assert invalid.json() == {"error": "allow_local_requests_from_web_hooks_and_services is invalid"}


def test_local_addresses_are_refused_unless_allowed(helper, web, fake):
    path = helper.project()["path_with_namespace"]
    # The fake serves the whole module: count only what this test's requests reached.
    earlier = len(fake.requests)
    refused = _projects(web, path, fake.url, GOOD_TOKEN)
    assert refused.status_code == 400
    assert refused.json() == {"message": "Api url is blocked: Requests to localhost are not allowed"}
    private = _projects(web, path, "http://10.1.2.3", GOOD_TOKEN)
    assert private.json() == {"message": "Api url is blocked: Requests to the local network are not allowed"}
    metadata = _projects(web, path, "http://169.254.169.254", GOOD_TOKEN)
    assert metadata.json() == {"message": "Api url is blocked: Requests to the link local network are not allowed"}
    assert not any(request[1] == "/api/0/projects/" for request in fake.requests[earlier:])


def test_missing_parameters(helper, web):
    path = helper.project()["path_with_namespace"]
    response = web.get(f"/{path}/-/error_tracking/projects.json")
    assert response.status_code == 400
    assert response.json() == {"message": "Api url is a required field, Token is a required field"}


def test_projects_of_the_external_system(helper, web, fake, allow_local):
    path = helper.project()["path_with_namespace"]
    response = _projects(web, path, fake.url, GOOD_TOKEN)
    assert response.status_code == 200
    projects = response.json()["projects"]
    assert [p["slug"] for p in projects] == ["storefront", "billing-api"]
    assert set(projects[0]) == PROJECT_KEYS
    assert projects[0]["organization_slug"] == "acme" and projects[0]["organization_name"] == "Acme"
    assert fake.requests[-1][3] == f"Bearer {GOOD_TOKEN}"


@pytest.mark.parametrize(("case", "message"), [
    ("bad token", "Sentry response status code: 401"),
    ("refused", "Connection refused"),
    ("timeout", "Connection to Sentry timed out"),
])
def test_connection_failures(helper, web, fake, allow_local, case, message):
    path = helper.project()["path_with_namespace"]
    api_host, token = fake.url, GOOD_TOKEN
    if case == "bad token":
        token = "wrong"
    elif case == "refused":
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            api_host = f"http://127.0.0.1:{probe.getsockname()[1]}"
    else:
        fake.delay = 3
    try:
        response = _projects(web, path, api_host, token)
    finally:
        fake.delay = 0
    assert response.status_code == 400
    assert response.json() == {"message": message}


def test_projects_need_maintainer_and_monitor(helper, private_server, web, fake, allow_local):
    project, tokens = helper.project_with_roles({"developer": access.DEVELOPER, "maintainer": access.MAINTAINER})
    path = project["path_with_namespace"]
    for role, status in (("developer", 404), ("maintainer", 200)):
        with httpx.Client(base_url=private_server.url, headers={"PRIVATE-TOKEN": tokens[role]}) as client:
            assert _projects(client, path, fake.url, GOOD_TOKEN).status_code == status
    helper.root.put(f"/projects/{project['id']}", json={"monitor_access_level": "disabled"}).raise_for_status()
    assert _projects(web, path, fake.url, GOOD_TOKEN).status_code == 404


@pytest.fixture
def external_project(helper, fake, allow_local):
    """A project whose error tracking reads the fake Sentry's "storefront" project."""
    project = helper.project()
    response = helper.root.put(f"/projects/{project['id']}/error_tracking/settings",
                               json={"active": True, "integrated": False, "api_url": fake.api_url(),
                                     "token": GOOD_TOKEN})
    assert response.status_code == 200, response.text
    assert response.json()["api_url"] == fake.api_url(), (
        "the settings API ignored api_url/token: its PATCH and PUT handlers must call "
        "outpost_server.error_tracking.read.external.sentry_settings.apply_external_params")
    return project


def test_settings_store_the_external_backend(helper, web, fake, external_project):
    setting = helper.root.get(f"/projects/{external_project['id']}/error_tracking/settings").json()
    assert setting == {"active": True, "integrated": False, "api_url": fake.api_url(), "project_name": "Storefront",
                       "sentry_external_url": f"{fake.url}/acme/storefront/", "allowed_origins": [],
                       "rejected_origins": {"count": 0, "last_origin": None, "last_at": None}}
    assert GOOD_TOKEN not in str(setting)
    # The masked token stands for the stored one.
    masked = _projects(web, external_project["path_with_namespace"], fake.url, "*****")
    assert masked.status_code == 200 and fake.requests[-1][3] == f"Bearer {GOOD_TOKEN}"


def test_the_stored_token_is_never_sent_to_another_host(web, fake, external_project):
    with FakeSentry(tokens=(GOOD_TOKEN,)) as elsewhere:
        masked = _projects(web, external_project["path_with_namespace"], elsewhere.url, "*****")
        assert (masked.status_code, masked.json()) == (400, {"message": "Token is a required field"})
        assert elsewhere.requests == []
    # Towards the stored host the masked token still stands for the stored one.
    before = len(fake.requests)
    assert _projects(web, external_project["path_with_namespace"], fake.url, "*****").status_code == 200
    assert [request[3] for request in fake.requests[before:]] == [f"Bearer {GOOD_TOKEN}"]


def test_external_settings_are_validated(helper, allow_local):
    project = helper.project()
    response = helper.root.put(f"/projects/{project['id']}/error_tracking/settings",
                               json={"active": True, "integrated": False})
    assert response.status_code == 400
    assert response.json() == {"message": {"api_url": ["is a required field"], "token": ["is a required field"]}}


def test_list_pages_through_the_external_issues(web, fake, external_project):
    path = external_project["path_with_namespace"]
    first = web.get(f"/{path}/-/error_tracking.json", params={"sort": "frequency"})
    assert first.status_code == 200, first.text
    body = first.json()
    assert len(body["errors"]) == 20
    assert body["external_url"] == f"{fake.url}/acme/storefront/"
    assert set(body["pagination"]) == {"next"}
    second = web.get(f"/{path}/-/error_tracking.json",
                     params={"sort": "frequency", "cursor": body["pagination"]["next"]["cursor"]}).json()
    assert len(second["errors"]) == 10
    assert "previous" in second["pagination"]


def test_list_asks_sentry_for_the_status_and_order(web, fake, external_project):
    web.get(f"/{external_project['path_with_namespace']}/-/error_tracking.json",
            params={"sort": "frequency"}).raise_for_status()
    _method, path, query, *_ = fake.requests[-1]
    assert path == "/api/0/projects/acme/storefront/issues/"
    assert query["query"] == ["is:unresolved"]
    assert query["sort"] == ["freq"]
    assert query["limit"] == ["20"]


def test_list_maps_a_sentry_issue_to_gitlabs_error(web, fake, external_project):
    top = web.get(f"/{external_project['path_with_namespace']}/-/error_tracking.json",
                  params={"sort": "frequency"}).json()["errors"][0]
    assert top["id"] == "1030"
    assert top["count"] == "90"
    assert top["user_count"] == 30
    assert top["message"] == "divided by 0 (#30)"
    assert top["short_id"] == "STOREFRONT-30"
    assert top["external_url"] == f"{fake.url}/acme/storefront/issues/1030"
    assert len(top["frequency"]) == 24


def test_details_of_an_external_issue(web, fake, external_project):
    path = external_project["path_with_namespace"]
    detail = web.get(f"/{path}/-/error_tracking/1030/details.json").json()["error"]
    assert detail["first_release_short_version"] == "storefront@1.0.0"
    assert detail["last_release_short_version"] == "storefront@1.2.0"
    assert detail["tags"] == {"level": "error", "logger": None}
    assert detail["external_base_url"] == f"{fake.url}/acme/storefront"


def test_stack_trace_of_an_external_issue(web, external_project):
    path = external_project["path_with_namespace"]
    trace = web.get(f"/{path}/-/error_tracking/1030/stack_trace.json").json()["error"]
    assert trace["issue_id"] == "1030"
    assert [frame["lineNo"] for frame in trace["stack_trace_entries"]] == [135, 42]
    assert trace["exceptions"][0]["frames"][1]["in_app"] is True


def _error_ids(web, path: str, **params) -> list[str]:
    return [error["id"] for error in web.get(f"/{path}/-/error_tracking.json", params=params).json()["errors"]]


def test_resolving_an_external_issue_updates_it_in_sentry(web, fake, external_project):
    path = external_project["path_with_namespace"]
    resolved = web.put(f"/{path}/-/error_tracking/1030.json", json={"status": "resolved"})
    try:
        assert resolved.json() == {"result": {"updated": True, "closed_issue_iid": None, "status": "success"}}
        assert fake.requests[-1][:2] == ("PUT", "/api/0/issues/1030/")
        assert "1030" not in _error_ids(web, path, sort="frequency")
        assert _error_ids(web, path, issue_status="resolved") == ["1030"]
    finally:
        web.put(f"/{path}/-/error_tracking/1030.json", json={"status": "unresolved"}).raise_for_status()


def test_sentrys_list_and_bulk_update_of_an_external_project_are_carried_out_by_its_sentry(
        private_server, fake, external_project):
    organization, slug = external_project["path_with_namespace"].split("/")
    with httpx.Client(base_url=private_server.url + "/api/0", timeout=30,
                      headers={"Authorization": f"Bearer {private_server.root_token}"}) as sentry:
        listed = sentry.get(f"/projects/{organization}/{slug}/issues/", params={"query": "is:unresolved", "limit": 5})
        assert [issue["id"] for issue in listed.json()] == ["1030", "1029", "1028", "1027", "1026"]
        assert fake.requests[-1][:3] == ("GET", "/api/0/projects/acme/storefront/issues/",
                                         {"query": ["is:unresolved"], "limit": ["5"]})
        # Issue 2001 is another Sentry project's: the bulk update, made on the configured project, leaves it.
        updated = sentry.put(f"/projects/{organization}/{slug}/issues/", params={"id": ["1029", "2001"]},
                             json={"status": "ignored"})
        try:
            assert (updated.status_code, updated.json()) == (200, {"status": "ignored", "statusDetails": {}})
            assert fake.requests[-1][:3] == ("PUT", "/api/0/projects/acme/storefront/issues/",
                                             {"id": ["1029", "2001"]})
            assert (fake.issues["1029"]["status"], fake.issues["2001"]["status"]) == ("ignored", "unresolved")
            nothing = sentry.put(f"/projects/{organization}/{slug}/issues/", params={"id": "2001"},
                                 json={"status": "resolved"})
            assert nothing.status_code == 204
        finally:
            fake.issues["1029"]["status"] = "unresolved"


def test_an_issue_of_another_sentry_project_stays_out_of_reach(web, fake, external_project):
    # Issue 2001 belongs to another project the same token can read.
    path = external_project["path_with_namespace"]
    outside = {"message": "The Sentry issue appers to be outside of the configured Sentry project"}
    for response in (web.get(f"/{path}/-/error_tracking/2001/details.json"),
                     web.get(f"/{path}/-/error_tracking/2001/stack_trace.json"),
                     web.put(f"/{path}/-/error_tracking/2001.json", json={"status": "resolved"})):
        assert (response.status_code, response.json()) == (400, outside)
    assert fake.issues["2001"]["status"] == "unresolved"


def test_a_missing_external_issue_answers_sentrys_status(web, external_project):
    missing = web.get(f"/{external_project['path_with_namespace']}/-/error_tracking/424242/details.json")
    assert (missing.status_code, missing.json()) == (400, {"message": "Sentry response status code: 404"})


def test_external_failure_reaches_the_list(helper, web, fake, external_project):
    fake.tokens.discard(GOOD_TOKEN)
    try:
        response = web.get(f"/{external_project['path_with_namespace']}/-/error_tracking.json")
    finally:
        fake.tokens.add(GOOD_TOKEN)
    assert response.status_code == 400 and response.json() == {"message": "Sentry response status code: 401"}


def test_relayed_issue_resources_answer_sentrys_failures(private_server, fake, external_project):
    """A's `/api/0/projects/:org/:project/issues/:id/...` relays to the external Sentry: a missing issue is
    Sentry's 404, another Sentry project's issue is not relayed, and other failures carry GitLab's message."""
    organization, slug = external_project["path_with_namespace"].split("/")
    prefix = f"/api/0/projects/{organization}/{slug}/issues/"
    with httpx.Client(base_url=private_server.url, timeout=30,
                      headers={"Authorization": f"Bearer {private_server.root_token}"}) as api:
        latest = api.get(f"{prefix}1001/events/latest/")
        assert latest.status_code == 200 and latest.json()["groupID"] == "1001"
        for missing in ("424242/", "2001/", "2001/events/latest/"):
            response = api.get(prefix + missing)
            assert (response.status_code, response.json()) == (404, {"detail": "The requested resource does not exist"})
        fake.override = lambda method, url_path: ((500, {"detail": "Internal Error"}, {})
                                                  if url_path.endswith("/events/latest/") else None)
        try:
            failed = api.get(f"{prefix}1002/events/latest/")
        finally:
            fake.override = None
        assert (failed.status_code, failed.json()) == (400, {"detail": "Sentry response status code: 500"})
        fake.tokens.discard(GOOD_TOKEN)
        try:
            refused = api.get(f"{prefix}1003/")
        finally:
            fake.tokens.add(GOOD_TOKEN)
        assert (refused.status_code, refused.json()) == (400, {"detail": "Sentry response status code: 401"})


@pytest.mark.parametrize(("answer", "message"), [
    ((200, b"[" + b" " * (1024 * 1024) + b"]", {}),
     "Sentry API response is too big. Limit is 1 MB. Got 1048578 bytes."),
    ((200, [{"id": "9", "slug": "x", "organization": {"name": "O", "slug": "o"}}], {}),
     'Sentry API response is missing keys. key not found: "name"'),
    ((302, {}, {"Location": "http://169.254.169.254/latest/meta-data/"}), "Sentry response status code: 302"),
    ((500, {"detail": "Internal Error"}, {}), "Sentry response status code: 500"),
    ((200, b"<html>not json</html>", {}), "Unexpected Error"),
])
def test_unusable_answers(helper, web, fake, allow_local, answer, message):
    path = helper.project()["path_with_namespace"]
    fake.override = lambda method, url_path: answer if url_path == "/api/0/projects/" else None
    try:
        response = _projects(web, path, fake.url, GOOD_TOKEN)
    finally:
        fake.override = None
    expected_status = 500 if "missing keys" in message else 400
    assert response.status_code == expected_status
    assert response.json() == {"message": message}


@pytest.mark.parametrize(("url", "reason"), [
    ("http://127.0.0.1:9000/", "Requests to localhost are not allowed"),
    ("http://localhost/", "Requests to localhost are not allowed"),
    ("http://[::1]/", "Requests to localhost are not allowed"),
    ("http://[::ffff:10.0.0.1]/", "Requests to the local network are not allowed"),
    ("http://0.0.0.0/", "Requests to localhost are not allowed"),
    ("http://192.168.1.20/", "Requests to the local network are not allowed"),
    ("http://100.64.0.1/", "Requests to the local network are not allowed"),
    ("http://169.254.169.254/", "Requests to the link local network are not allowed"),
    # IPv6 forms that carry an IPv4 address reach it: 6to4, NAT64, IPv4-compatible and Teredo.
    ("http://[2002:7f00:1::]/", "Requests to localhost are not allowed"),
    ("http://[64:ff9b::a00:1]/", "Requests to the local network are not allowed"),
    ("http://[::127.0.0.1]/", "Requests to localhost are not allowed"),
    ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "Requests to localhost are not allowed"),
    ("ftp://sentry.example.com/", "Only allowed schemes are http, https"),
    ("http://no-such-host.invalid/", "Host cannot be resolved or invalid"),
])
def test_url_policy(url, reason):
    with pytest.raises(BlockedUrl) as refused:
        check_url(url, allow_local=False)
    assert str(refused.value) == reason
    if reason != "Only allowed schemes are http, https":
        check_url(url, allow_local=True)
    check_url("https://93.184.215.14/", allow_local=False)


PUBLIC_ADDRESS = "93.184.215.14"


class RebindingResolver:
    """A DNS server under an attacker's control: a public address for the check, loopback afterwards."""

    def __init__(self, *answers: str):
        self.answers = list(answers)
        self.questions: list[tuple[str, int]] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.questions.append((host, port))
        return [self.answers[min(len(self.questions), len(self.answers)) - 1]]


def test_dns_rebinding_cannot_reach_loopback(fake):
    """Resolved once and checked: the connection goes to the public address, never to the fake on 127.0.0.1."""
    resolver = RebindingResolver(PUBLIC_ADDRESS, "127.0.0.1")
    host = f"sentry.rebinding.test:{fake.url.rsplit(':', 1)[1]}"
    client = SentryClient(f"http://{host}/api/0/projects/acme/storefront/", GOOD_TOKEN,
                          pin=address_pin(allow_local=False, resolve=resolver),
                          timeout=httpx.Timeout(2.0, connect=1.0))
    before = len(fake.requests)
    with pytest.raises(SentryError):
        client.list_projects()
    assert len(resolver.questions) == 1
    assert len(fake.requests) == before


def test_pinned_connection_keeps_the_host_name(fake):
    """Connected to the checked address, the request still names the original host (Host header, TLS SNI)."""
    resolver = RebindingResolver("127.0.0.1")
    host = f"sentry.pinned.test:{fake.url.rsplit(':', 1)[1]}"
    allowed = SentryClient(f"http://{host}/api/0/projects/acme/storefront/", GOOD_TOKEN,
                           pin=address_pin(allow_local=True, resolve=resolver))
    assert [project["slug"] for project in allowed.list_projects()] == ["storefront", "billing-api"]
    assert fake.requests[-1][4] == host and fake.requests[-1][3] == f"Bearer {GOOD_TOKEN}"
    refused = SentryClient(f"http://{host}/api/0/projects/acme/storefront/", GOOD_TOKEN,
                           pin=address_pin(allow_local=False, resolve=resolver))
    with pytest.raises(SentryError) as blocked:
        refused.issue_details("1001")
    assert blocked.value.message == "Url is blocked: Requests to localhost are not allowed"
    assert len(resolver.questions) == 2


def _self_signed(directory) -> tuple[str, str]:
    """A throwaway certificate for `localhost` (any name would do: the test watches the client's hello)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now)
                   .not_valid_after(now + dt.timedelta(hours=1)).sign(key, hashes.SHA256()))
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_path), str(key_path)


def test_pinned_tls_connection_sends_the_original_server_name(tmp_path):
    """Over HTTPS the pinned connection still names the Sentry host in its TLS hello (SNI)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*_self_signed(tmp_path))
    names: list[str | None] = []
    context.sni_callback = lambda _socket, server_name, _context: names.append(server_name)
    listener = socket.create_server(("127.0.0.1", 0))

    def handshake_once() -> None:
        connection, _ = listener.accept()
        try:
            with context.wrap_socket(connection, server_side=True):
                pass
        except (ssl.SSLError, OSError):
            pass  # the client refuses the self-signed certificate after its hello

    server = threading.Thread(target=handshake_once, daemon=True)
    server.start()
    port = listener.getsockname()[1]
    client = SentryClient(f"https://sentry.pinned.test:{port}/api/0/projects/acme/storefront/", GOOD_TOKEN,
                          pin=address_pin(allow_local=True, resolve=RebindingResolver("127.0.0.1")),
                          timeout=httpx.Timeout(5.0))
    with pytest.raises(SentryError) as refused:
        client.list_projects()
    server.join(timeout=10)
    listener.close()
    assert names == ["sentry.pinned.test"]
    assert refused.value.message == "Sentry returned invalid SSL data"
