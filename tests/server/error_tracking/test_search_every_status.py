"""`is:all` in the error search: every status (the console's "All"), on the integrated store and towards a Sentry."""

from outpost_server.error_tracking.read.search import parse_search, without_every_status


def test_is_all_asks_for_every_status():
    query = parse_search('is:all release:web-1 card "refused"')
    assert query.every_status and query.status is None
    assert query.text == "card refused" and query.filters == {"release": "web-1"}
    assert not parse_search("card").every_status


def test_an_explicit_status_is_kept_beside_is_all():
    query = parse_search("is:all is:resolved")
    assert query.every_status and query.status == "resolved"


def test_a_sentry_gets_the_search_without_is_all():
    assert without_every_status('is:all card is:"all" release:web-1') == "card release:web-1"
    assert without_every_status("is:alligator") == "is:alligator"
