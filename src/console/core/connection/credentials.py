"""Access tokens in the operating system's keyring, or in memory for this run only.

Keyring backends can block (a locked Secret Service waiting for an unlock prompt), so
every call runs in an executor with a timeout, never on the UI thread. When no secure
backend exists (the ``fail`` and ``null`` backends, plaintext stores, or errors at call
time) tokens are kept in memory for this run and :attr:`CredentialStore.warning` says so;
there is deliberately no fallback to a file.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, TypeVar

from console.core.operations import blocking

# asyncio is imported by the code that runs on the loop: the window's first frame is painted without it.
if TYPE_CHECKING:  # keyring is imported by the first probe, in the executor, not at start-up
    import keyring.backend

log = logging.getLogger(__name__)

T = TypeVar("T")

KEYRING_TIMEOUT = 20.0
SESSION_ONLY_WARNING = (
    "No usable system keyring was found ({reason}). Tokens are kept for this session only; "
    "you will need to enter them again next time."
)


def _errors() -> ModuleType:
    """keyring's exceptions (imported on first use; an ``except`` clause evaluates this only on failure)."""
    import keyring.errors

    return keyring.errors


def _system_backend() -> keyring.backend.KeyringBackend:
    import keyring

    return keyring.get_keyring()


def _failing_backend() -> keyring.backend.KeyringBackend:
    from keyring.backends import fail

    return fail.Keyring()


def service_name(base_url: str) -> str:
    """The keyring service for a server: the application name plus the server URL."""
    return f"Outpost {base_url}"


def backend_problem(backend: keyring.backend.KeyringBackend) -> str | None:
    """Why ``backend`` cannot keep secrets safely, or None when it can."""
    from keyring.backends import chainer, fail, null

    if isinstance(backend, fail.Keyring):
        return "no keyring backend is available"
    if isinstance(backend, null.Keyring):
        return "the keyring is disabled (null backend)"
    if "plaintext" in type(backend).__name__.lower():
        return "the only keyring stores secrets as plain text"
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return "no keyring backend is available"
    return None


def describe_backend(backend: keyring.backend.KeyringBackend) -> str:
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}"


class CredentialStore:
    """Tokens per (server URL, profile name)."""

    def __init__(self, backend: keyring.backend.KeyringBackend | None = None) -> None:
        """``backend`` None means the system's choice, looked up (in an executor) by :meth:`probe`."""
        self.backend = backend
        self._problem = None if backend is None else backend_problem(backend)
        self._session_tokens: dict[tuple[str, str], str] = {}

    @property
    def is_persistent(self) -> bool:
        """True while tokens are saved to a secure system store."""
        return self._problem is None

    @property
    def warning(self) -> str | None:
        """The visible explanation when tokens are kept for this session only."""
        return None if self._problem is None else SESSION_ONLY_WARNING.format(reason=self._problem)

    @property
    def backend_name(self) -> str:
        return "(not checked yet)" if self.backend is None else describe_backend(self.backend)

    async def probe(self) -> None:
        """Check that the backend answers; a failure switches to session-only storage."""
        if self.backend is None:
            # Backend discovery can touch D-Bus, so it runs in a worker thread too.
            try:
                self.backend = await blocking(_system_backend)
                self._problem = backend_problem(self.backend)
            except (_errors().KeyringError, RuntimeError, OSError) as exc:
                # A backend named by PYTHON_KEYRING_BACKEND or keyringrc that cannot start
                # (e.g. SecretService without D-Bus) raises here instead of at call time.
                self.backend = _failing_backend()
                self._problem = f"the configured keyring could not start: {exc}"
        if self.is_persistent:
            try:
                await self._call(self.backend.get_password, service_name("probe"), "probe")
            except _errors().KeyringError:
                pass  # _call switched to session-only storage and recorded why

    async def load_token(self, base_url: str, profile: str) -> str | None:
        backend = await self._ensure_backend()
        key = (service_name(base_url), profile)
        if key in self._session_tokens or not self.is_persistent:
            return self._session_tokens.get(key)
        try:
            return await self._call(backend.get_password, *key)
        except _errors().KeyringError:
            return None

    async def save_token(self, base_url: str, profile: str, token: str) -> bool:
        """Store ``token``; return True when it was saved to the system keyring."""
        backend = await self._ensure_backend()
        key = (service_name(base_url), profile)
        if self.is_persistent:
            try:
                await self._call(backend.set_password, *key, token)
            except _errors().KeyringError:
                pass  # _call switched to session-only storage and recorded why
            else:
                self._session_tokens.pop(key, None)
                return True
        self._session_tokens[key] = token
        return False

    async def delete_token(self, base_url: str, profile: str) -> None:
        backend = await self._ensure_backend()
        key = (service_name(base_url), profile)
        self._session_tokens.pop(key, None)
        if self.is_persistent:
            try:
                await self._call(backend.delete_password, *key)
            except _errors().KeyringError:
                pass  # nothing was stored, or the keyring failed and _call recorded why

    async def _ensure_backend(self) -> keyring.backend.KeyringBackend:
        if self.backend is None:
            await self.probe()
        assert self.backend is not None, "probe() always settles on a backend"
        return self.backend

    async def _call(self, fn: Callable[..., T], *args: str) -> T:
        import asyncio

        try:
            return await asyncio.wait_for(blocking(fn, *args), KEYRING_TIMEOUT)
        except _errors().PasswordDeleteError:
            raise
        except (_errors().KeyringError, RuntimeError, OSError, TimeoutError) as exc:
            log.warning("Keyring %s failed: %s", self.backend_name, type(exc).__name__)
            self._problem = f"the system keyring failed: {type(exc).__name__}"
            if isinstance(exc, _errors().KeyringError):
                raise
            raise _errors().KeyringError(str(exc)) from exc
