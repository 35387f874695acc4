"""No route answers a body built by hand: every success body is an outpost_model entity (or a list of them),
so the JSON, the OpenAPI document and the console's reading cannot drift apart. test_entities_declared.py
reads the real answers into their entities. Here, every route handler must be annotated to return a
Response, so that mypy checks what each returns (a dict, or an entity not given to EntityResponse, fails
`make lint`, and EntityResponse's content is typed: entity_json.Answer); and a scan finds the hand-built
bodies mypy cannot see, in code whose values are untyped.

Error bodies keep GitLab's and Sentry's shapes through http_errors and each router's error helper, which
answer with a 4xx or 5xx status. GraphQL is left out: its answers follow its own schema (GitLab's SDL).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import TypeGuard

SERVER = Path(__file__).resolve().parents[2] / "server" / "outpost_server"
LEFT_OUT = ("graphql", "migrations")
ROUTE_DECORATORS = {"get", "post", "put", "patch", "delete", "head", "api_route"}
# What encodes an entity; a dict given to one is a body built by hand all the same.
ENCODERS = {"EntityResponse", "sentry_json"}
HAND_BUILT = (ast.Dict, ast.DictComp)
# Calls that make a dict of an object.
DICT_MAKERS = {"as_dict", "as_json", "asdict", "dict"}


def _modules(root: Path) -> Iterator[tuple[str, ast.Module]]:
    for source in sorted(root.rglob("*.py")):
        relative = source.relative_to(root)
        if relative.parts[0] not in LEFT_OUT:
            yield str(relative), ast.parse(source.read_text(), str(source))


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


Function = ast.FunctionDef | ast.AsyncFunctionDef


def _is_route(function: ast.AST) -> TypeGuard[Function]:
    return isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        isinstance(decorator, ast.Call) and _name(decorator.func) in ROUTE_DECORATORS
        for decorator in function.decorator_list)


def _status(call: ast.Call) -> ast.expr | None:
    return next((keyword.value for keyword in call.keywords if keyword.arg == "status_code"), None)


def _answered(value: ast.expr) -> Iterator[ast.expr]:
    """What a return statement answers: the value, or what is awaited or run in the thread pool."""
    if isinstance(value, ast.Await):
        value = value.value
    yield value
    if isinstance(value, ast.Call) and _name(value.func) == "run_in_threadpool" and value.args:
        yield ast.Call(func=value.args[0], args=[], keywords=[])


def _handler_answers(module: ast.Module) -> list[str]:
    """Returns of the route handlers, and of the module's own functions whose result a handler returns."""
    functions = {node.name: node for node in module.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    pending: list[Function] = [node for node in ast.walk(module) if _is_route(node)]
    seen: set[str] = set()
    found = []
    while pending:
        function = pending.pop()
        if function.name in seen:
            continue
        seen.add(function.name)
        for inner in ast.walk(function):
            if not isinstance(inner, ast.Return) or inner.value is None:
                continue
            for answered in _answered(inner.value):
                if isinstance(answered, (*HAND_BUILT, ast.List)):
                    found.append(f"{inner.lineno} {function.name} returns a {type(answered).__name__}")
                elif isinstance(answered, ast.Call) and _name(answered.func) in DICT_MAKERS:
                    found.append(f"{inner.lineno} {function.name} returns {_name(answered.func)}()")
                elif isinstance(answered, ast.Call) and isinstance(answered.func, ast.Name) \
                        and answered.func.id in functions:
                    pending.append(functions[answered.func.id])
    return found


def hand_built_answers(root: Path) -> list[str]:
    """Where a module under `root` answers a hand-built body: a handler (or a helper whose result it
    returns) returning a dict or a list literal, an entity encoder given a dict, or a JSONResponse that is
    not an error."""
    found = []
    for name, module in _modules(root):
        found += [f"{name}:{line}" for line in _handler_answers(module)]
        for node in ast.walk(module):
            if not isinstance(node, ast.Call):
                continue
            called = _name(node.func)
            if called in ENCODERS and node.args and isinstance(node.args[0], HAND_BUILT):
                found.append(f"{name}:{node.lineno} {called} is given a {type(node.args[0]).__name__}")
            if called == "JSONResponse":
                status = _status(node)
                if status is None or (isinstance(status, ast.Constant) and isinstance(status.value, int)
                                      and status.value < 400):
                    found.append(f"{name}:{node.lineno} JSONResponse answers success")
    return sorted(found, key=lambda line: (line.split(":")[0], int(line.split(":")[1].split(" ")[0])))


def unannotated_handlers(root: Path) -> list[str]:
    """Route handlers without a Response (or subclass) return annotation, which mypy would not check."""
    return [f"{name}:{node.lineno} {node.name}" for name, module in _modules(root) for node in ast.walk(module)
            if _is_route(node) and not (node.returns is not None and _name(node.returns).endswith("Response"))]


def test_every_route_handler_returns_a_response_that_mypy_checks():
    assert sum(1 for name, module in _modules(SERVER) for node in ast.walk(module) if _is_route(node)) > 100
    assert unannotated_handlers(SERVER) == []


def test_no_route_answers_a_body_built_by_hand():
    assert sum(1 for _ in _modules(SERVER)) > 50, "the scan reads the server's modules"
    assert hand_built_answers(SERVER) == []


def test_the_scan_finds_each_kind_of_hand_built_answer(tmp_path):
    """The scan is not blind: each way a hand-built answer could come back is found."""
    (tmp_path / "routes.py").write_text(
        "@router.get('/a')\n"
        "def a():\n"
        "    return {'version': '1'}\n"
        "@router.post('/b')\n"
        "async def b():\n"
        "    return [{'state': 'ok'}]\n"
        "def c():\n"
        "    return EntityResponse({'exists': True})\n"
        "def d():\n"
        "    return JSONResponse({'to': 'x'}, status_code=201)\n"
        "def e():\n"
        "    return JSONResponse({'message': 'gone'}, status_code=410)\n"
        "def f(body):\n"
        "    if body:\n"
        "        return {'state': 'created'}\n"
        "    return service.summary().as_dict()\n"
        "@router.put('/g')\n"
        "async def g():\n"
        "    return await run_in_threadpool(f, None)\n")
    assert [line.split(" ", 1)[0] for line in hand_built_answers(tmp_path)] == [
        "routes.py:3", "routes.py:6", "routes.py:8", "routes.py:10", "routes.py:15", "routes.py:16"]
    assert unannotated_handlers(tmp_path) == ["routes.py:2 a", "routes.py:5 b", "routes.py:18 g"]
