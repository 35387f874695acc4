"""What resolvers get as `info.context`: the database session, the caller, and server facts."""

from __future__ import annotations

from dataclasses import dataclass

from graphql import GraphQLResolveInfo
from sqlalchemy.orm import Session

from outpost_server.accounts.models import User


@dataclass(frozen=True)
class GraphContext:
    session: Session
    user: User | None
    base_url: str
    secret_key: str
    external_timeout: float


def context_of(info: GraphQLResolveInfo) -> GraphContext:
    return info.context
