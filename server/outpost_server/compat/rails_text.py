"""ActiveSupport's String helpers that GitLab's output goes through."""

from __future__ import annotations

import re
import unicodedata


def humanize(text: str) -> str:
    """String#humanize for snake_case values: `false_positive` -> `False positive`."""
    spaced = text.replace("_", " ").strip()
    return spaced[:1].upper() + spaced[1:]


def titleize(slug: str) -> str:
    """String#titleize for slugs: `acme-web_shop` -> `Acme Web Shop`."""
    return " ".join(word.capitalize() for word in re.split(r"[-_\s]+", slug) if word)


def parameterize(text: str) -> str:
    """String#parameterize: ASCII, runs of other characters as one '-', lower case."""
    ascii_text = "".join(
        ch if ord(ch) < 128 else "?"
        for ch in unicodedata.normalize("NFKD", text)
        if not unicodedata.combining(ch)
    )
    dashed = re.sub(r"[^a-z0-9\-_]+", "-", ascii_text, flags=re.IGNORECASE)
    dashed = re.sub(r"-{2,}", "-", dashed)
    return dashed.strip("-").lower()
