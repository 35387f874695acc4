"""How a project's alert rules and their delivery logs are held in the console's store (console.core.store); no
Qt here. The Alerts page and the watcher both write what the server said there, and the page shows it."""

from __future__ import annotations

from collections.abc import Iterable

from console.core.api.alerts import AlertRule, Delivery
from console.core.store import Kind, Store

RULES: Kind[AlertRule] = Kind("alert_rule")  # by the rule's id
# A rule's delivery log (newest first), by the rule's id.
DELIVERIES: Kind[tuple[Delivery, ...]] = Kind("alert_delivery")


def rules(store: Store, path: str) -> list[AlertRule]:
    return sorted(store.items(RULES, path).values(), key=lambda rule: rule.id or 0)


def rule(store: Store, path: str, rule_id: int | None) -> AlertRule | None:
    return store.get(RULES, path, str(rule_id))


def deliveries(store: Store, path: str, rule_id: int | None) -> list[Delivery]:
    held = store.get(DELIVERIES, path, str(rule_id))
    return list(held or ())


def write_rules(store: Store, path: str, listed: Iterable[AlertRule]) -> None:
    """The project's whole list; the logs of rules no longer listed are dropped with them."""
    by_id = {str(item.id): item for item in listed}
    store.replace_all(RULES, path, by_id)
    store.remove(DELIVERIES, path, set(store.items(DELIVERIES, path)) - set(by_id))


def write_rule(store: Store, path: str, saved: AlertRule) -> None:
    store.put(RULES, path, str(saved.id), saved)


def forget_rule(store: Store, path: str, rule_id: int) -> None:
    store.remove(RULES, path, [str(rule_id)])
    store.remove(DELIVERIES, path, [str(rule_id)])


def write_deliveries(store: Store, path: str, rule_id: int, log: Iterable[Delivery]) -> None:
    store.put(DELIVERIES, path, str(rule_id), tuple(log))
