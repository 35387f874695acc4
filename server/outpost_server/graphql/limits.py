"""Query depth and complexity capped the way GitLab caps them (app/graphql/gitlab_schema.rb).

GitLab allows depth 15 anonymously and 20 signed in; complexity 200 anonymously (217 for the
introspection query), 250 signed in and 300 for administrators. Complexity is graphql-ruby's with
GitLab's field rules (app/graphql/types/base_field.rb, app/graphql/resolvers/base_resolver.rb): a
field costs 1 plus its selections; a field backed by a resolver costs its selections plus 1 (plus 1
when sorted), and a connection adds 1% of that per requested item (`first`/`last`, at most 100)
unless it is looked up by `iid`/`iids`. The check runs with validation, before anything executes,
and a query over a cap gets GitLab's message as a GraphQL error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationRule,
    VariableNode,
    get_named_type,
    is_composite_type,
)
from graphql.type.introspection import SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef

DEFAULT_MAX_DEPTH = 15
AUTHENTICATED_MAX_DEPTH = 20
DEFAULT_MAX_COMPLEXITY = 200
AUTHENTICATED_MAX_COMPLEXITY = 250
ADMIN_MAX_COMPLEXITY = 300
INTROSPECTION_MAX_COMPLEXITY = 217
INTROSPECTION_OPERATION = "IntrospectionQuery"
MAX_PAGE_SIZE = 100

# Fields GitLab resolves with a resolver class (their cost follows the resolver rule above).
RESOLVER_FIELDS = {
    ("Query", "project"),
    ("Project", "sentryErrors"),
    ("Project", "sentryDetailedError"),
    ("SentryErrorCollection", "detailedError"),
    ("SentryErrorCollection", "errorStackTrace"),
    ("SentryErrorCollection", "errors"),
}
CONNECTION_FIELDS = {("SentryErrorCollection", "errors")}


@dataclass(frozen=True)
class Limits:
    max_depth: int
    max_complexity: int


def limits_for(*, signed_in: bool, admin: bool, operation_name: str | None) -> Limits:
    if admin:
        complexity = ADMIN_MAX_COMPLEXITY
    elif signed_in:
        complexity = AUTHENTICATED_MAX_COMPLEXITY
    elif operation_name == INTROSPECTION_OPERATION:
        complexity = INTROSPECTION_MAX_COMPLEXITY
    else:
        complexity = DEFAULT_MAX_COMPLEXITY
    return Limits(AUTHENTICATED_MAX_DEPTH if signed_in else DEFAULT_MAX_DEPTH, complexity)


class _Measure:
    """Depth and complexity of one operation; fragments are measured once per parent type."""

    def __init__(self, schema: GraphQLSchema, document: DocumentNode, variables: dict[str, Any]):
        self.schema = schema
        self.variables = variables
        self.fragments = {definition.name.value: definition for definition in document.definitions
                          if isinstance(definition, FragmentDefinitionNode)}
        self.memo: dict[tuple[str, str], tuple[int, int]] = {}
        self.visiting: set[str] = set()

    def selection_set(self, node: SelectionSetNode, parent: Any) -> tuple[int, int]:
        depth = complexity = 0
        for selection in node.selections:
            if isinstance(selection, FieldNode):
                field_depth, field_complexity = self.field(selection, parent)
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                scope = self.schema.get_type(condition.name.value) if condition else parent
                field_depth, field_complexity = (self.selection_set(selection.selection_set, scope)
                                                 if scope is not None else (0, 0))
            elif isinstance(selection, FragmentSpreadNode):
                field_depth, field_complexity = self.spread(selection.name.value)
            else:
                continue
            depth = max(depth, field_depth)
            complexity += field_complexity
        return depth, complexity

    def spread(self, name: str) -> tuple[int, int]:
        fragment = self.fragments.get(name)
        if fragment is None or name in self.visiting:  # unknown or cyclic: validation reports it
            return 0, 0
        scope = self.schema.get_type(fragment.type_condition.name.value)
        if scope is None:
            return 0, 0
        key = (name, scope.name)
        if key not in self.memo:
            self.visiting.add(name)
            self.memo[key] = self.selection_set(fragment.selection_set, scope)
            self.visiting.discard(name)
        return self.memo[key]

    def field(self, node: FieldNode, parent: Any) -> tuple[int, int]:
        name = node.name.value
        definition = _field_definition(self.schema, parent, name)
        if definition is None:  # unknown field: validation reports it
            return 0, 0
        child_type = get_named_type(definition.type)
        child_depth = child_complexity = 0
        if node.selection_set is not None and is_composite_type(child_type):
            child_depth, child_complexity = self.selection_set(node.selection_set, child_type)
        key = (getattr(parent, "name", ""), name)
        if key not in RESOLVER_FIELDS:
            return 1 + child_depth, 1 + child_complexity
        arguments = {argument.name.value: argument.value for argument in node.arguments or ()}
        complexity: float = child_complexity + 1 + (1 if "sort" in arguments else 0)
        if key in CONNECTION_FIELDS and not {"iid", "iids"} & set(arguments):
            sizes = [self._int(arguments[name]) for name in ("first", "last") if name in arguments]
            page = min([size for size in sizes if size is not None] + [MAX_PAGE_SIZE])
            complexity += complexity * max(page, 0) * 0.01
        return 1 + child_depth, int(complexity)

    def _int(self, value: Any) -> int | None:
        if isinstance(value, IntValueNode):
            return int(value.value)
        if isinstance(value, VariableNode):
            given = self.variables.get(value.name.value)
            return given if isinstance(given, int) and not isinstance(given, bool) else None
        return None


def _field_definition(schema: GraphQLSchema, parent: Any, name: str) -> Any:
    if name == "__typename":
        return TypeNameMetaFieldDef
    if parent is schema.query_type and name == "__schema":
        return SchemaMetaFieldDef
    if parent is schema.query_type and name == "__type":
        return TypeMetaFieldDef
    if isinstance(parent, GraphQLObjectType) or hasattr(parent, "fields"):
        return parent.fields.get(name)
    return None


def measure(schema: GraphQLSchema, document: DocumentNode, operation_name: str | None,
            variables: dict[str, Any] | None) -> tuple[int, int]:
    """(depth, complexity) of the operation that would run (the largest when the choice is ambiguous)."""
    meter = _Measure(schema, document, variables or {})
    results = []
    for definition in document.definitions:
        if not isinstance(definition, OperationDefinitionNode):
            continue
        if operation_name is not None and (definition.name is None or definition.name.value != operation_name):
            continue
        root = schema.get_root_type(definition.operation)
        if root is not None:
            results.append(meter.selection_set(definition.selection_set, root))
    return max((depth for depth, _ in results), default=0), max((cost for _, cost in results), default=0)


def limits_rule(limits: Limits, operation_name: str | None, variables: dict[str, Any] | None
                ) -> type[ValidationRule]:
    class QueryLimits(ValidationRule):
        def leave_document(self, node: DocumentNode, *_args: Any) -> None:
            depth, complexity = measure(self.context.schema, node, operation_name, variables)
            if depth > limits.max_depth:
                self.report_error(GraphQLError(
                    f"Query has depth of {depth}, which exceeds max depth of {limits.max_depth}"))
            if complexity > limits.max_complexity:
                self.report_error(GraphQLError(
                    f"Query has complexity of {complexity}, which exceeds max complexity of {limits.max_complexity}"))

    return QueryLimits
