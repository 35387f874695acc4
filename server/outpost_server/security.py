"""Token digests and encryption of stored secrets."""

from __future__ import annotations

import base64
import hashlib
import secrets

from cryptography.fernet import Fernet, InvalidToken

PAT_PREFIX = "glpat-"


def new_personal_access_token() -> str:
    return PAT_PREFIX + secrets.token_urlsafe(15)


def token_digest(token: str, secret_key: str) -> str:
    """Salted SHA-256, Base64-encoded, as GitLab stores token digests."""
    return base64.b64encode(hashlib.sha256((token + secret_key).encode()).digest()).decode()


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    derived = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)
    return f"scrypt${salt.hex()}${derived.hex()}"


class SecretBox:
    """Encrypts secrets kept in the database (e.g. an external system's auth token)."""

    def __init__(self, secret_key: str):
        key = hashlib.sha256(("outpost-secret-box:" + secret_key).encode()).digest()
        self._fernet = Fernet(base64.urlsafe_b64encode(key))

    def encrypt(self, plaintext: str) -> str:
        return self._fernet.encrypt(plaintext.encode()).decode()

    def decrypt(self, ciphertext: str) -> str | None:
        try:
            return self._fernet.decrypt(ciphertext.encode()).decode()
        except InvalidToken:
            return None
