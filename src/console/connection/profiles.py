"""Connection profiles (name and server URL) kept in QSettings under console.core.settings_keys' names; tokens live
in the keyring."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QSettings

from console.core.settings_keys import LAST_PROFILE, PROFILE_BASE_URL, PROFILE_NAME, PROFILES


@dataclass(frozen=True)
class Profile:
    name: str
    base_url: str


class ProfileStore:
    """Reads and writes the profile list; the most recently used profile is remembered."""

    def __init__(self, settings: QSettings) -> None:
        self._settings = settings

    def load(self) -> list[Profile]:
        size = self._settings.beginReadArray(PROFILES)
        profiles = []
        for index in range(size):
            self._settings.setArrayIndex(index)
            profiles.append(Profile(str(self._settings.value(PROFILE_NAME, "")),
                                    str(self._settings.value(PROFILE_BASE_URL, ""))))
        self._settings.endArray()
        return [p for p in profiles if p.name]

    def _write(self, profiles: list[Profile]) -> None:
        # Only the list's own entries go: each profile's remembered state lives in the same group
        # (profiles/<profile key>/...) and must survive saving the list.
        stored = self._settings.beginReadArray(PROFILES)
        self._settings.endArray()
        for index in range(1, stored + 1):  # QSettings numbers array entries from 1
            for name in (PROFILE_NAME, PROFILE_BASE_URL):
                self._settings.remove(f"{PROFILES}/{index}/{name}")
        self._settings.remove(f"{PROFILES}/size")
        self._settings.beginWriteArray(PROFILES, len(profiles))
        for index, profile in enumerate(profiles):
            self._settings.setArrayIndex(index)
            self._settings.setValue(PROFILE_NAME, profile.name)
            self._settings.setValue(PROFILE_BASE_URL, profile.base_url)
        self._settings.endArray()
        self._settings.sync()

    def save(self, profile: Profile) -> None:
        """Add ``profile`` or replace the one with the same name."""
        profiles = [p for p in self.load() if p.name != profile.name]
        profiles.append(profile)
        self._write(sorted(profiles, key=lambda p: p.name.lower()))

    def delete(self, name: str) -> None:
        self._write([p for p in self.load() if p.name != name])

    @property
    def last_used(self) -> str:
        return str(self._settings.value(LAST_PROFILE, ""))

    @last_used.setter
    def last_used(self, name: str) -> None:
        self._settings.setValue(LAST_PROFILE, name)
        self._settings.sync()
