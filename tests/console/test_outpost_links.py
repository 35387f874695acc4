"""outpost:// links read and built without Qt: the console's and the server's agree."""

from __future__ import annotations

import pytest

from console.core.outpost_links import NotALink, error_link, parse
from outpost_server.alerts.messages import console_error_link


@pytest.mark.parametrize(("base_url", "expected"), [
    ("http://127.0.0.1:8080", "outpost://127.0.0.1:8080/acme/web%20shop/-/error_tracking/42"),
    ("https://Outpost.Example.com", "outpost://outpost.example.com/acme/web%20shop/-/error_tracking/42"),
    ("https://example.com:443/tools/", "outpost://example.com/tools/acme/web%20shop/-/error_tracking/42"),
    ("http://[::1]:9000", "outpost://[::1]:9000/acme/web%20shop/-/error_tracking/42"),
])
def test_the_console_and_the_server_build_the_same_link(base_url, expected):
    assert error_link(base_url, "acme/web shop", "42") == expected
    assert console_error_link(base_url, "acme/web shop", 42) == expected


def test_a_link_names_its_server_project_and_error():
    link = parse("outpost://example.com:8443/tools/acme/webshop/-/error_tracking/7")
    assert (link.authority, link.path, link.error_id) == ("example.com:8443", "tools/acme/webshop", "7")
    assert link.serves("https://example.com:8443/tools") == "acme/webshop"  # a server below a path
    assert link.serves("https://example.com:8443") == "tools/acme/webshop"
    assert link.serves("https://example.com") is None and link.serves("https://other.example.com:8443") is None
    assert parse("outpost://example.com/a/b/-/error_tracking/7").serves("https://example.com:443") == "a/b"
    assert link.guessed_address() == "https://example.com:8443"
    assert parse("outpost://127.0.0.1:3000/a/b/-/error_tracking/1").guessed_address() == "http://127.0.0.1:3000"


@pytest.mark.parametrize(("text", "reason"), [
    ("https://example.com/a/b/-/error_tracking/7", "is not an outpost:// link"),
    ("outpost:///a/b/-/error_tracking/7", "is not an outpost:// link"),
    ("outpost://example.com:port/a/b/-/error_tracking/7", "port that is not a number"),
    ("outpost://example.com/a/b", "does not name an error"),
    ("outpost://example.com/b/-/error_tracking/7", "does not name an error"),
    ("outpost://example.com/a/b/-/error_tracking/", "does not name an error"),
])
def test_what_is_not_a_link_to_an_error_says_why(text, reason):
    with pytest.raises(NotALink, match=reason):
        parse(text)
