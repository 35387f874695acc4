"""What a server process's routes and middleware are handed, typed: `Services` (the configuration, the
secret key, the database, and each domain's running parts), and the Annotated dependencies that give
them to a route.

app.py builds the Services when its lifespan opens the database and registers each part (a background
worker, a cache) as it starts it; a domain declares the dependency of its own parts with `part_of`, so
this module names none of them and imports nothing above the shared layer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar, cast

from fastapi import Depends, FastAPI, Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker
from starlette.types import ASGIApp, Receive, Scope, Send

from outpost_server.config import ServerConfig

T = TypeVar("T")


@dataclass
class Services:
    config: ServerConfig
    secret_key: str
    engine: Engine
    sessions: sessionmaker[Session]
    parts: dict[type, object] = field(default_factory=dict)

    def provide(self, part: T) -> T:
        """Registers one of a domain's running parts, found again by its class; returns it."""
        self.parts[type(part)] = part
        return part

    def part(self, kind: type[T]) -> T:
        return cast(T, self.parts[kind])

    def optional(self, kind: type[T]) -> T | None:
        """The part, or None when this process does not run it (switched off by the configuration)."""
        return cast(T | None, self.parts.get(kind))


class OutpostApp(FastAPI):
    """The application; `services` is set when its lifespan has opened the database (app.py), before
    the first request is served. `fronts` are ASGI applications served ahead of the framework's
    middleware and routing, each for the HTTP requests its test takes (the collector's hot path)."""

    services: Services

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fronts: list[tuple[Callable[[Scope], bool], ASGIApp]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for takes, front in self.fronts:
                if takes(scope):
                    scope["app"] = self
                    await front(scope, receive, send)
                    return
        await super().__call__(scope, receive, send)


def services_of(app: Any) -> Services:
    """The Services of the application a request or ASGI scope (`scope["app"]`) belongs to."""
    return cast(OutpostApp, app).services


def get_services(request: Request) -> Services:
    return services_of(request.app)


def get_config(request: Request) -> ServerConfig:
    return services_of(request.app).config


def get_secret_key(request: Request) -> str:
    return services_of(request.app).secret_key


ServicesDep = Annotated[Services, Depends(get_services)]
ConfigDep = Annotated[ServerConfig, Depends(get_config)]
SecretKeyDep = Annotated[str, Depends(get_secret_key)]


def part_of(kind: type[T]) -> Callable[[Request], T]:
    """The dependency handing a route the process's running `kind`: `Annotated[Kind, Depends(part_of(Kind))]`."""

    def dependency(request: Request) -> T:
        return services_of(request.app).part(kind)

    return dependency
