"""What the exports tab says about a saved PDF: its pages and size, read from the file's bytes. No Qt.

The console does not depend on a PDF library: a page is a ``/Type /Page`` object (``/Pages`` is the page
tree, not a page). Pages in compressed object streams are not seen; the server's PDFs (reportlab) keep
them as plain objects.
"""

from __future__ import annotations

import re
from pathlib import Path

_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z0-9])")


def count_pages(data: bytes) -> int:
    return len(_PAGE.findall(data))


def describe(path: Path) -> tuple[int, int]:
    """(pages, bytes) of the PDF at ``path``; it blocks on the file (run it in a worker thread)."""
    data = path.read_bytes()
    return count_pages(data), len(data)


def summary(pages: int, size: int) -> str:
    return f"PDF, {pages} page{'' if pages == 1 else 's'}, {size:,} bytes"
