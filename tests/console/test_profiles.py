"""Connection profiles in QSettings and the dialog's profile picker."""

from PySide6.QtCore import Qt

from console.connection.dialog import NEW_PROFILE, ConnectionDialog
from console.connection.profiles import Profile, ProfileStore


def test_profiles_are_saved_sorted_and_replaced_by_name(settings):
    store = ProfileStore(settings)
    store.save(Profile("staging", "https://staging.example.com"))
    store.save(Profile("Production", "https://gitlab.example.com"))
    store.save(Profile("staging", "https://staging2.example.com"))
    assert store.load() == [Profile("Production", "https://gitlab.example.com"),
                            Profile("staging", "https://staging2.example.com")]
    store.delete("Production")
    assert store.load() == [Profile("staging", "https://staging2.example.com")]


def test_last_used_profile_is_remembered(settings):
    store = ProfileStore(settings)
    assert store.last_used == ""
    store.last_used = "staging"
    assert ProfileStore(settings).last_used == "staging"


def test_settings_hold_no_token(settings, tmp_path):
    ProfileStore(settings).save(Profile("prod", "https://gitlab.example.com"))
    settings.sync()
    text = (tmp_path / "settings.ini").read_text()
    assert "https://gitlab.example.com" in text and "token" not in text.lower()


def test_dialog_offers_saved_profiles_and_forgets_one(qtbot, qloop_running, context, credentials, settings,
                                                      memory_keyring):
    store = ProfileStore(settings)
    store.save(Profile("prod", "https://gitlab.example.com"))
    store.save(Profile("staging", "https://staging.example.com"))
    store.last_used = "staging"
    memory_keyring.set_password("Outpost https://staging.example.com", "staging", "glpat-staging")

    dialog = ConnectionDialog(context, store, credentials)
    qtbot.addWidget(dialog)
    dialog.open()
    names = [dialog.profile_box.itemText(i) for i in range(dialog.profile_box.count())]
    assert names == [NEW_PROFILE, "prod", "staging"]
    assert dialog.profile_box.currentText() == "staging"
    assert dialog.url_edit.text() == "https://staging.example.com"
    qtbot.waitUntil(lambda: dialog.token_edit.text() == "glpat-staging")

    qtbot.mouseClick(dialog.forget_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.profile_box.count() == 2)
    assert store.load() == [Profile("prod", "https://gitlab.example.com")]
    assert memory_keyring.passwords == {}

    dialog.profile_box.setCurrentText(NEW_PROFILE)
    assert dialog.url_edit.text() == "" and dialog.token_edit.text() == ""
    assert not dialog.forget_button.isEnabled()


def test_application_settings_stay_out_of_the_users_config(private_user_settings):
    from pathlib import Path

    from console.settings import app_settings

    store = app_settings()
    store.setValue("probe", 1)
    store.sync()
    assert Path(store.fileName()).is_relative_to(private_user_settings)


def test_saving_the_profile_list_keeps_what_each_profile_remembers(settings):
    from console.core.settings_keys import LAST_TAB, profile_setting

    key = profile_setting("https://gitlab.example.com#root", LAST_TAB)
    settings.setValue(key, "errors")
    store = ProfileStore(settings)
    store.save(Profile("prod", "https://gitlab.example.com"))
    store.save(Profile("staging", "https://staging.example.com"))
    store.delete("staging")
    assert settings.value(key) == "errors"
    assert store.load() == [Profile("prod", "https://gitlab.example.com")]
