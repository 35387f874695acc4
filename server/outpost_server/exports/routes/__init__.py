"""Vulnerability exports (exports.py) and archive exports (archive.py); exports/router.py mounts them."""
