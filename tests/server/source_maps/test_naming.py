"""A mapped frame's name, as Sentry's symbolicator picks it: the scope's name, the call site's name for an
unhelpful one, the minified name outside any function, and repeated member parts folded."""

from __future__ import annotations

import pytest

from outpost_server.source_maps.naming import fold, function_name


@pytest.mark.parametrize(("scope", "minified", "call_site", "expected"), [
    ("Cart.checkout", "i.checkout", "checkout", "Cart.checkout"),
    ("<anonymous>", "n", "onClick", "onClick"),
    ("<anonymous>", "n", None, "n"),
    ("<anonymous>", None, None, "<anonymous>"),
    ("__webpack_require__", "r", "loadModule", "loadModule"),
    ("<unknown>", "Object.<anonymous>", "main", "Object.<anonymous>"),
    ("<unknown>", None, None, "<unknown>"),
])
def test_the_name_comes_from_the_scope_then_the_call_site_then_the_minified_name(scope, minified, call_site,
                                                                                 expected):
    assert function_name(scope=scope, minified=minified, call_site=call_site) == expected


@pytest.mark.parametrize(("name", "folded"), [
    ("foo", "foo"), ("foo.foo", "foo.foo"), ("foo.foo.foo", "{foo#2}.foo"), ("bar.foo.foo.foo", "bar.{foo#2}.foo"),
    ("bar.bar.bar.foo.foo.onError", "{bar#3}.{foo#2}.onError"),
])
def test_repeated_member_parts_fold(name, folded):
    assert fold(name) == folded
