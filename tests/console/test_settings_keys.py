"""The names the console's settings are kept under and how kept values read back (console.core.settings_keys),
without Qt. The names are what users' settings files already hold: changing one loses what was remembered."""

from __future__ import annotations

import pytest

from console.core import settings_keys as keys


def test_profile_settings_live_under_the_profile_key_and_nowhere_without_one():
    assert keys.profile_setting("0123abcd", keys.LAST_TAB) == "profiles/0123abcd/last_tab"
    assert keys.profile_setting("0123abcd", keys.WATCH_INTERVAL) == "profiles/0123abcd/watch/interval_seconds"
    assert keys.profile_setting(None, keys.LAST_TAB) is None


def test_the_names_already_in_settings_files():
    assert (keys.PROFILES, keys.PROFILE_NAME, keys.PROFILE_BASE_URL, keys.LAST_PROFILE) == (
        "profiles", "name", "base_url", "last_profile")
    assert keys.WINDOW_GEOMETRY == "main_window/geometry"
    assert (keys.ERRORS_PROJECT, keys.WATCH_ENABLED, keys.WATCH_PROJECTS) == (
        "errors/project", "watch/enabled", "watch/projects")


def test_views_are_kept_per_tab_by_name_or_by_number():
    assert keys.table_columns("exports", "exportsTable") == "views/exports/exportsTable/columns"
    assert keys.table_sort("errors", "errorTable") == "views/errors/errorTable/sort"
    assert keys.unnamed_table_sort("variables", 0) == "views/variables/table0/sort"
    assert keys.splitter("errors", "detailSplitter") == "views/errors/detailSplitter"
    assert keys.unnamed_splitter("errors", 1) == "views/errors/splitter1"
    assert keys.sort_chooser("errors", 0) == "views/errors/sort_chooser0"


def test_sort_orders_round_trip_and_anything_else_is_none():
    assert keys.sort_text(3, True) == "3:1" and keys.sort_text(0, False) == "0:0"
    assert keys.sort_order("3:1") == (3, True) and keys.sort_order("0:0") == (0, False)
    for saved in (None, "", "3", "x:1", "-1:1", 31):
        assert keys.sort_order(saved) is None


@pytest.mark.parametrize(("value", "flag"), [(True, True), ("true", True), ("1", True), (1, True),
                                             (False, False), ("false", False), ("0", False), (None, False)])
def test_flags_read_back_from_ini_text(value, flag):
    assert keys.as_flag(value) is flag


def test_texts_numbers_and_lists_read_back():
    assert keys.as_text("acme/web") == "acme/web" and keys.as_text("") is None and keys.as_text(None) is None
    assert keys.as_number("90", 60) == 90 and keys.as_number("soon", 60) == 60 and keys.as_number(None, 60) == 60
    assert keys.as_texts("acme/web") == ["acme/web"]  # QSettings' lone string for a one-element list
    assert keys.as_texts("") == [] and keys.as_texts(None) == []
    assert keys.as_texts(["acme/web", "acme/api"]) == ["acme/web", "acme/api"]


def test_the_watch_interval_is_never_below_the_shortest_offered():
    assert keys.watch_seconds(None) == keys.DEFAULT_WATCH_SECONDS == 60
    assert keys.watch_seconds("5") == keys.MIN_WATCH_SECONDS == 15
    assert keys.watch_seconds(300) == 300 and keys.watch_seconds("often") == 60
