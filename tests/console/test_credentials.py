"""CredentialStore with a working, a failing, a disabled and a broken keyring."""

import threading

import pytest
from keyring.backends import fail, null

from console.core.connection.credentials import CredentialStore, service_name
from tests.console.memkeyring import BrokenKeyring, MemoryKeyring

URL = "https://gitlab.example.com"


class ThreadRecordingKeyring(MemoryKeyring):
    def __init__(self) -> None:
        super().__init__()
        self.threads: set[str] = set()

    def get_password(self, service, username):
        self.threads.add(threading.current_thread().name)
        return super().get_password(service, username)

    def set_password(self, service, username, password):
        self.threads.add(threading.current_thread().name)
        super().set_password(service, username, password)


@pytest.mark.asyncio
async def test_memory_keyring_round_trip(memory_keyring):
    store = CredentialStore(memory_keyring)
    assert await store.save_token(URL, "prod", "glpat-secret") is True
    assert memory_keyring.passwords == {("Outpost https://gitlab.example.com", "prod"): "glpat-secret"}
    assert await store.load_token(URL, "prod") == "glpat-secret"
    await store.delete_token(URL, "prod")
    assert memory_keyring.passwords == {}
    assert await store.load_token(URL, "prod") is None
    assert store.is_persistent and store.warning is None


@pytest.mark.asyncio
async def test_service_name_holds_app_and_url():
    assert service_name(URL) == "Outpost https://gitlab.example.com"


@pytest.mark.asyncio
async def test_system_backend_is_looked_up_by_probe(memory_keyring):
    store = CredentialStore()
    await store.probe()
    assert store.backend is memory_keyring
    assert store.backend_name == "tests.console.memkeyring.MemoryKeyring"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("backend", "reason"),
    [(fail.Keyring(), "no keyring backend is available"), (null.Keyring(), "null backend")],
)
async def test_unusable_backend_keeps_token_for_this_session_and_says_so(backend, reason, memory_keyring):
    store = CredentialStore(backend)
    await store.probe()
    assert not store.is_persistent
    assert reason in store.warning and "this session only" in store.warning
    assert await store.save_token(URL, "prod", "glpat-secret") is False
    assert await store.load_token(URL, "prod") == "glpat-secret"
    assert await CredentialStore(backend).load_token(URL, "prod") is None  # a new run starts empty
    assert memory_keyring.passwords == {}


@pytest.mark.asyncio
@pytest.mark.expected_log(r"WARNING console\.core\.connection\.credentials Keyring \S+BrokenKeyring failed: "
                          r"KeyringLocked")
async def test_keyring_failing_at_call_time_switches_to_session_only():
    store = CredentialStore(BrokenKeyring())
    assert store.is_persistent  # looks fine until used
    assert await store.save_token(URL, "prod", "glpat-secret") is False
    assert not store.is_persistent
    assert "KeyringLocked" in store.warning
    assert await store.load_token(URL, "prod") == "glpat-secret"


@pytest.mark.asyncio
@pytest.mark.expected_log(r"WARNING console\.core\.connection\.credentials Keyring \S+BrokenKeyring failed: "
                          r"KeyringLocked")
async def test_probe_detects_a_broken_keyring():
    store = CredentialStore(BrokenKeyring())
    await store.probe()
    assert store.warning is not None and "this session only" in store.warning


@pytest.mark.asyncio
async def test_keyring_calls_run_off_the_calling_thread():
    backend = ThreadRecordingKeyring()
    store = CredentialStore(backend)
    await store.save_token(URL, "prod", "glpat-secret")
    await store.load_token(URL, "prod")
    assert backend.threads and threading.current_thread().name not in backend.threads


@pytest.mark.asyncio
async def test_a_configured_backend_that_cannot_start_means_session_only(monkeypatch):
    def secret_service_without_dbus():
        raise RuntimeError("Unable to initialize SecretService: DBUS_SESSION_BUS_ADDRESS is unset")

    monkeypatch.setattr("keyring.get_keyring", secret_service_without_dbus)
    store = CredentialStore()
    await store.probe()
    assert not store.is_persistent
    assert "DBUS_SESSION_BUS_ADDRESS" in store.warning
    assert await store.save_token(URL, "prod", "glpat-secret") is False
    assert await store.load_token(URL, "prod") == "glpat-secret"
