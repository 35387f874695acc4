"""A project's alert rules and each rule's delivery log, as the server last said them; no Qt here.

The Alerts page (its list, Save, Delete, the log it shows) and the watcher's look for failing deliveries both
read and write through :class:`AlertsRepository`, and the page renders what is held: a rule the watcher read
changed shows in the page, and the log the page shows is the one the watcher judged. Which deliveries fail is
worked out from the held logs when asked (:meth:`AlertsRepository.failing_deliveries`), never kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from console.core.api.alerts import AlertDelivery, AlertRule, AlertsApi, RuleDraft, delivery_failing
from console.core.repositories.base import Repository
from console.core.store import Kind

RULES: Kind[AlertRule] = Kind("alert_rule")  # by the rule's id
# A rule's delivery log (newest first), by the rule's id.
DELIVERIES: Kind[tuple[AlertDelivery, ...]] = Kind("alert_delivery")


class FailingDelivery(NamedTuple):
    rule: AlertRule
    delivery: AlertDelivery


class AlertsRepository(Repository):
    kind = RULES
    deliveries_kind = DELIVERIES
    kinds = (RULES, DELIVERIES)

    # what is held ------------------------------------------------------------------------------------------
    def rules(self, project: str) -> list[AlertRule]:
        """The project's rules by id (the server's order); empty when not read on this connection."""
        return sorted(self.store.items(RULES, project).values(), key=lambda rule: rule.id)

    def rule(self, project: str, rule_id: int | None) -> AlertRule | None:
        return None if rule_id is None else self.store.get(RULES, project, str(rule_id))

    def deliveries(self, project: str, rule_id: int | None) -> list[AlertDelivery]:
        """A rule's delivery log, newest first; empty when not read (or no rule)."""
        held = None if rule_id is None else self.store.get(DELIVERIES, project, str(rule_id))
        return list(held or ())

    def failing_deliveries(self, project: str) -> dict[int, FailingDelivery]:
        """The held logs' failed (or failing) deliveries by id, test sends left out (the user saw those)."""
        return {delivery.id: FailingDelivery(rule, delivery)
                for rule in self.rules(project) for delivery in self.deliveries(project, rule.id)
                if delivery_failing(delivery) and delivery.trigger != "test"}

    # reads and writes --------------------------------------------------------------------------------------
    async def fetch(self, api: AlertsApi, project: str) -> list[AlertRule]:
        """The project's whole list; the logs of rules no longer listed go with them."""
        current = self.scope_guard()
        listed = await api.rules(project)
        if current():
            self._hold_rules(project, listed)
            self.read_now(project)
        return listed

    def _hold_rules(self, project: str, listed: Iterable[AlertRule]) -> None:
        by_id = {str(rule.id): rule for rule in listed}
        self.store.replace_all(RULES, project, by_id)
        self.store.remove(DELIVERIES, project, set(self.store.items(DELIVERIES, project)) - set(by_id))

    async def fetch_deliveries(self, api: AlertsApi, project: str, rule_id: int) -> list[AlertDelivery]:
        current = self.scope_guard()
        log = await api.deliveries(project, rule_id)
        if current():
            self.store.put(DELIVERIES, project, str(rule_id), tuple(log))
            self.read_now((project, rule_id))
        return log

    async def save(self, api: AlertsApi, project: str, draft: RuleDraft, rule_id: int | None) -> AlertRule:
        """Creates (``rule_id`` None) or replaces the rule; the held list takes the answer at once."""
        current = self.scope_guard()
        saved = await api.save(project, draft, rule_id)
        if current():
            self.store.put(RULES, project, str(saved.id), saved)
        return saved

    async def delete(self, api: AlertsApi, project: str, rule_id: int) -> None:
        current = self.scope_guard()
        await api.delete(project, rule_id)
        if current():
            self.store.remove(RULES, project, [str(rule_id)])
            self.store.remove(DELIVERIES, project, [str(rule_id)])
