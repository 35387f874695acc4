"""The real SDK requests recorded in tests/fixtures/sentry (see its README), loaded for replay."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path

FIXTURES_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "sentry"


@dataclass(frozen=True)
class Capture:
    name: str  # path relative to the fixtures directory, without the suffix
    path: str  # request path as the SDK sent it
    query: dict[str, str]
    headers: list[tuple[str, str]]  # order and case as received
    body: bytes  # raw body, byte for byte
    decoded: bytes  # body after undoing the content encoding

    @property
    def endpoint(self) -> str:
        return "store" if "/store" in self.path else "envelope"

    @property
    def lower_headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers}

    def decoded_items(self) -> list[tuple[dict, dict]]:
        """(item header, payload) pairs of an envelope capture, or the store event as one pair."""
        if self.endpoint == "store":
            return [({"type": "event"}, json.loads(self.decoded))]
        lines = self.decoded.split(b"\n")
        items = []
        for line_no in range(1, len(lines) - 1, 2):
            if lines[line_no].strip():
                items.append((json.loads(lines[line_no]), json.loads(lines[line_no + 1])))
        return items

    def events(self) -> list[dict]:
        return [payload for header, payload in self.decoded_items() if header["type"] == "event"]


def load_captures() -> list[Capture]:
    captures = []
    for record_path in sorted(FIXTURES_DIR.rglob("*.request.json")):
        record = json.loads(record_path.read_text())
        stem = str(record_path.relative_to(FIXTURES_DIR))[: -len(".request.json")]
        captures.append(
            Capture(
                name=stem,
                path=record["path"],
                query={name: values[0] for name, values in record["query"].items()},
                headers=[(name, value) for name, value in record["headers"]],
                body=base64.b64decode(record["body_b64"]),
                decoded=record_path.with_name(record_path.name.replace(".request.json", ".decoded.txt")).read_bytes(),
            )
        )
    # An empty list would silently parametrize every replay test away.
    assert captures, f"no recorded requests under {FIXTURES_DIR}"
    return captures


CAPTURES = load_captures()
