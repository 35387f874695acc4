"""The secret key in a backup: sealed with the administrator's passphrase, or left out and named.

The key salts every token digest and seals every stored secret and spool entry, so a restore needs the
very key the data was written with. A backup always carries a check value of it (a keyed digest that
reveals nothing of the key), so a restore can tell a wrong key before it writes anything.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

PASSPHRASE_VARIABLE = "OUTPOST_BACKUP_PASSPHRASE"
# scrypt's cost: 16 MiB and about a tenth of a second per try, so guessing passphrases is slow.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}
LEFT_OUT = ("The secret key is NOT in this backup (no passphrase was given to seal it). Keep the key apart "
            "from the backup, for instance in a password manager: it is OUTPOST_SECRET_KEY, or else the file "
            "secret_key in the data dir. A restore needs it; without it, tokens and stored secrets are lost.")


class WrongPassphrase(Exception):
    pass


def passphrase(file: str | None) -> str | None:
    """--passphrase-file's first line, else OUTPOST_BACKUP_PASSPHRASE, else none."""
    if file:
        text = Path(file).read_text(encoding="utf-8").splitlines()
        return text[0] if text and text[0] else None
    return os.environ.get(PASSPHRASE_VARIABLE) or None


def check_value(secret_key: str) -> str:
    return hmac.new(secret_key.encode(), b"outpost backup key check", hashlib.sha256).hexdigest()[:32]


def seal(secret_key: str, phrase: str) -> dict[str, str]:
    salt, nonce = os.urandom(16), os.urandom(12)
    sealed = AESGCM(_derive(phrase, salt)).encrypt(nonce, secret_key.encode(), b"outpost secret key")
    return {"kdf": "scrypt", "salt": _b64(salt), "nonce": _b64(nonce), "sealed": _b64(sealed)}


def unseal(box: dict[str, str], phrase: str) -> str:
    try:
        salt, nonce, sealed = (base64.b64decode(box[name]) for name in ("salt", "nonce", "sealed"))
        return AESGCM(_derive(phrase, salt)).decrypt(nonce, sealed, b"outpost secret key").decode()
    except (InvalidTag, KeyError, ValueError):
        raise WrongPassphrase() from None


def _derive(phrase: str, salt: bytes) -> bytes:
    return hashlib.scrypt(phrase.encode(), salt=salt, dklen=32, maxmem=64 * 1024**2, **_SCRYPT)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
