"""Failed token authentications per address, and the temporary ban they lead to (GitLab's failed
authentication ban: `maxretry` failures within `findtime` seconds ban the address for `bantime`)."""

from __future__ import annotations

import datetime as dt
import ipaddress
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from outpost_server.accounts.models import AuthFailure


@dataclass(frozen=True)
class BanPolicy:
    max_failures: int
    find_seconds: float
    ban_seconds: float
    # Addresses never banned (GitLab's ip_whitelist; its default is 127.0.0.1).
    allowlist: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    @property
    def enabled(self) -> bool:
        return self.max_failures > 0

    def exempt(self, ip: str) -> bool:
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            return False
        return any(address in network for network in self.allowlist)

    @staticmethod
    def parse_allowlist(text: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in text.split(",") if entry.strip())


def record_failure(session: Session, *, ip: str, policy: BanPolicy, now: dt.datetime) -> dt.datetime | None:
    """Counts one failure from `ip`; returns when its ban ends if the address is (now) banned."""
    row = session.get(AuthFailure, ip, with_for_update=True)
    if row is None:
        row = AuthFailure(ip=ip, window_started_at=now, failures=0)
        try:
            with session.begin_nested():
                session.add(row)
        except IntegrityError:  # another process counted this address's first failure meanwhile
            row = session.get(AuthFailure, ip, with_for_update=True, populate_existing=True)
            assert row is not None
    if (now - row.window_started_at).total_seconds() > policy.find_seconds:
        row.window_started_at, row.failures = now, 0
    row.failures += 1
    if row.failures >= policy.max_failures and (row.banned_until is None or row.banned_until <= now):
        row.banned_until = now + dt.timedelta(seconds=policy.ban_seconds)
        row.window_started_at, row.failures = now, 0
    return row.banned_until if row.banned_until is not None and row.banned_until > now else None


def active_bans(session: Session, *, now: dt.datetime) -> dict[str, dt.datetime]:
    rows = session.execute(select(AuthFailure.ip, AuthFailure.banned_until).where(AuthFailure.banned_until > now))
    return {ip: until for ip, until in rows if until is not None}
