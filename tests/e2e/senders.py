"""Concurrent Sentry SDK-like senders that record exactly which events the server accepted."""

from __future__ import annotations

import ssl
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx

from tests.e2e.flows import sentry_event, store_path, store_request


@dataclass
class Ledger:
    """What the senders saw: ids answered 200, other statuses, and requests left unanswered."""

    accepted: list[str] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    unanswered: int = 0
    # Refusals (429, 503) that did not say when to retry.
    without_retry_after: int = 0
    latencies: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, event_id: str, status: int | None, latency: float, retry_after: str | None = None) -> None:
        with self.lock:
            if status is None:
                self.unanswered += 1
                return
            self.statuses[status] += 1
            if status in (429, 503) and not retry_after:
                self.without_retry_after += 1
            self.latencies.append(latency)
            if status == 200:
                self.accepted.append(event_id)


class Senders:
    """`count` threads posting gzip'd store events to one or more servers until stopped."""

    def __init__(self, base_urls: list[str], project_id: int, public_key: str, *, count: int,
                 groups: int = 10, max_events: int | None = None, verify: bool | ssl.SSLContext = True):
        self.base_urls = base_urls
        self.project_id = project_id
        self.public_key = public_key
        self.groups = groups
        self.max_events = max_events
        self.verify = verify
        self.ledger = Ledger()
        self.stop_event = threading.Event()
        self._sent = 0
        self._sent_lock = threading.Lock()
        self._threads = [threading.Thread(target=self._run, args=(index,), daemon=True) for index in range(count)]

    def __enter__(self) -> Senders:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def stop(self) -> None:
        self.stop_event.set()
        for thread in self._threads:
            thread.join(timeout=60)

    def finish(self) -> None:
        """Waits until a bounded run (max_events) has sent everything."""
        for thread in self._threads:
            thread.join(timeout=120)

    def wait_for_accepted(self, count: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while len(self.ledger.accepted) < count:
            assert time.monotonic() < deadline, f"only {len(self.ledger.accepted)} events accepted: {self.ledger}"
            time.sleep(0.01)

    def _next_number(self) -> int | None:
        with self._sent_lock:
            if self.max_events is not None and self._sent >= self.max_events:
                return None
            self._sent += 1
            return self._sent

    def _run(self, index: int) -> None:
        base_url = self.base_urls[index % len(self.base_urls)]
        path = store_path(self.project_id)
        with httpx.Client(base_url=base_url, timeout=30, verify=self.verify) as client:
            while not self.stop_event.is_set():
                number = self._next_number()
                if number is None:
                    return
                event = sentry_event(message=f"event {number}", group=number % self.groups)
                headers, body = store_request(self.public_key, event)
                started = time.perf_counter()
                retry_after = None
                try:
                    response = client.post(path, headers=headers, content=body)
                    status, retry_after = response.status_code, response.headers.get("retry-after")
                except httpx.HTTPError:
                    # The server went away mid-request: no answer, so nothing was promised.
                    status = None
                    time.sleep(0.05)
                self.ledger.record(event["event_id"], status, time.perf_counter() - started, retry_after)
                if status in (429, 503):
                    time.sleep(0.05)  # as an SDK backs off (briefly: the tests watch the recovery)
