"""Demo data, loaded once by `outpost-server serve --demo`.

The accounts seeder runs first; each domain then adds its own data through DEMO_SEEDERS,
functions called as seed(session, demo).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from outpost_server.accounts import access, namespaces, users
from outpost_server.accounts.models import Group, Project, User
from outpost_server.application_settings.store import get_setting, set_setting
from outpost_server.config import ServerConfig
from outpost_server.error_tracking import demo as error_tracking_demo
from outpost_server.variables import demo as variables_demo
from outpost_server.vulnerabilities import demo as vulnerabilities_demo

DEMO_MARKER = "demo_data_loaded"


@dataclass
class Demo:
    config: ServerConfig
    secret_key: str
    admin: User
    users: dict[str, User] = field(default_factory=dict)
    groups: dict[str, Group] = field(default_factory=dict)
    projects: dict[str, Project] = field(default_factory=dict)


DEMO_SEEDERS: tuple[Callable[[Session, Demo], None], ...] = (
    variables_demo.seed,
    vulnerabilities_demo.seed,
    error_tracking_demo.seed,
)


def seed_demo_once(session: Session, *, config: ServerConfig, secret_key: str) -> None:
    if get_setting(session, DEMO_MARKER):
        return
    demo = seed_accounts(session, config=config, secret_key=secret_key)
    for seed in DEMO_SEEDERS:
        seed(session, demo)
    set_setting(session, DEMO_MARKER, True)


def seed_accounts(session: Session, *, config: ServerConfig, secret_key: str) -> Demo:
    admin = session.scalar(select(User).where(User.username == "root"))
    if admin is None:
        admin = users.create_user(session, username="root", name="Administrator", email="admin@example.com",
                                    is_admin=True)
    demo = Demo(config=config, secret_key=secret_key, admin=admin)
    people = [
        ("amelia", "Amelia Maintainer", access.MAINTAINER),
        ("dave", "Dave Developer", access.DEVELOPER),
        ("rita", "Rita Reporter", access.REPORTER),
        ("gus", "Gus Guest", access.GUEST),
    ]
    for username, name, _ in people:
        demo.users[username] = users.create_user(session, username=username, name=name,
                                                   email=f"{username}@example.com")
    acme = namespaces.create_group(session, name="Acme", path="acme", creator=admin,
                                description="Acme Corporation")
    platform = namespaces.create_group(session, name="Platform", path="platform", creator=admin, parent=acme,
                                    description="Shared platform services")
    tools = namespaces.create_group(session, name="Tools", path="tools", creator=admin, visibility="internal")
    demo.groups.update({"acme": acme, "acme/platform": platform, "tools": tools})
    for path, name, group, description in (
        ("webshop", "Webshop", acme, "The customer-facing shop"),
        ("api-gateway", "API Gateway", platform, "Edge routing and authentication"),
        ("billing", "Billing", platform, "Invoices and payments"),
        ("scanner-lab", "Scanner Lab", tools, "Playground for security scanners"),
    ):
        project = namespaces.create_project(session, name=name, path=path, creator=admin, namespace=group,
                                         description=description)
        demo.projects[project.full_path] = project
    for username, _, level in people:
        namespaces.add_member(session, target=acme, user=demo.users[username], access_level=level)
    namespaces.add_member(session, target=tools, user=demo.users["dave"], access_level=access.MAINTAINER)
    return demo
