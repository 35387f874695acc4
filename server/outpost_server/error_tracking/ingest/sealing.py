"""Queued request bodies are sealed (AES-GCM) with a key derived from the server's secret key.

Events may carry passwords, cookies and Authorization values until they are scrubbed at digest; the
spool's file, its WAL and its free pages therefore only ever hold ciphertext.
"""

from __future__ import annotations

import hashlib
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

NONCE_BYTES = 12


class Unsealable(Exception):
    """A body sealed with another key (the secret key changed) or damaged."""


class Sealer:
    def __init__(self, secret_key: str):
        key = hashlib.sha256(b"outpost ingest spool\0" + secret_key.encode()).digest()
        self._aead = AESGCM(key)

    def seal(self, data: bytes) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        return nonce + self._aead.encrypt(nonce, data, None)

    def open(self, sealed: bytes) -> bytes:
        try:
            return self._aead.decrypt(sealed[:NONCE_BYTES], sealed[NONCE_BYTES:], None)
        except (InvalidTag, ValueError):
            raise Unsealable() from None
