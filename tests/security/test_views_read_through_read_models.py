"""Pages and API views reach a campaign's data only through the read-model layer (heartbench_core.read_models).

Blindness lives in the read models: each takes the `Viewer` and applies its blind scope inside. A
view module that queried the database itself (a manager, a queryset method, `get_object_or_404`,
raw SQL) or called a selector (any function of the project that reads the database and is neither
a read model nor a service) could show a campaign's data to one of its experts because its author
forgot a check. This test reads every view module and fails on such a call, naming file and line.

Which modules are views is read from the URL table (every module a URL routes to), and every
`views.py` and `api*.py` beside them.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from pathlib import Path
from typing import Any

import pytest
from django.urls import URLResolver, get_resolver

from heartbench_core.read_models import READ_MODELS, Viewer

ROOT = Path(__file__).resolve().parents[2]
APPS = ("heartbench_core", "annotation", "rubrics", "validation")

# Attributes that reach the database from a model class or instance.
MANAGERS = {"objects", "_default_manager", "_base_manager"}
# Methods only a queryset or a manager has (a dict's get/values/update, a list's count are left out).
QUERYSET_METHODS = {
    "filter", "exclude", "annotate", "alias", "select_related", "prefetch_related", "values_list", "only", "defer",
    "aggregate", "in_bulk", "iterator", "exists", "distinct", "order_by", "select_for_update", "bulk_create",
    "bulk_update", "get_or_create", "update_or_create", "none", "earliest", "latest", "first", "last", "all", "raw",
}  # fmt: skip
SHORTCUTS = {"get_object_or_404", "get_list_or_404", "connection", "connections"}
# Modules of the project a view may import from whatever they do: the layer itself, writers, and the request plumbing.
ALWAYS_ALLOWED = (
    "heartbench_core.read_models",
    "heartbench_core.roles",  # role checks read the user's groups (cached per request)
    "heartbench_core.http",
)


def view_modules() -> list[Path]:
    """Every module a URL of the project routes to (its views and viewsets), and every views.py and api*.py beside them."""
    found = set()
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if {"migrations", "management", "services"} & set(path.parts):
                continue
            if path.name == "views.py" or (path.name.startswith("api") and path.name != "api_urls.py"):
                found.add(path)
    for module in _routed_modules(get_resolver().url_patterns):
        if module.split(".")[0] in APPS:
            spec = importlib.util.find_spec(module)
            if spec and spec.origin:
                found.add(Path(spec.origin))
    return sorted(found)


def _routed_modules(patterns: list[Any]) -> set[str]:
    modules = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            modules |= _routed_modules(pattern.url_patterns)
            continue
        callback = pattern.callback
        view = getattr(callback, "view_class", None) or getattr(callback, "cls", None) or callback
        modules.add(view.__module__)
    return modules


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def orm_calls(source: str, filename: str) -> list[tuple[int, str]]:
    """(line, what) of every direct database access in a module's source."""
    tree = ast.parse(source, filename=filename)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in MANAGERS:
            found.append((node.lineno, f".{node.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in QUERYSET_METHODS:
            found.append((node.lineno, f".{node.func.attr}()"))
        elif isinstance(node, ast.Name) and node.id in SHORTCUTS:
            found.append((node.lineno, node.id))
    return sorted(set(found))


def _reads_the_database(module_name: str) -> bool:
    spec = importlib.util.find_spec(module_name)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return False
    path = Path(spec.origin)
    return bool(orm_calls(path.read_text(encoding="utf-8"), str(path)))


def _allowed_module(module_name: str) -> bool:
    parts = module_name.split(".")
    return (
        module_name.startswith(ALWAYS_ALLOWED)
        or "services" in parts  # services write; what they read, they read for the write
        or parts[-1] in {"models", "forms", "read_models"}  # model classes for their choices; forms validate input
        or not _reads_the_database(module_name)
    )


def selector_imports(source: str, filename: str) -> list[tuple[int, str]]:
    """(line, name) of every project function a view imports from a module that reads the database outside the layer."""
    tree = ast.parse(source, filename=filename)
    guarded = _type_checking_lines(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module or node.lineno in guarded:
            continue
        if node.module.split(".")[0] not in APPS:
            continue
        module = importlib.import_module(node.module)
        for alias in node.names:
            obj = getattr(module, alias.name, None)
            if obj is None or getattr(obj, "__read_model__", False):
                continue
            if inspect.ismodule(obj):  # `from annotation.workspace import selectors`: the module itself is what is called
                if not _allowed_module(obj.__name__):
                    found.append((node.lineno, f"{node.module}.{alias.name}"))
                continue
            if _allowed_module(node.module):
                continue
            defined_in = getattr(obj, "__module__", node.module) or node.module
            if inspect.isfunction(obj) and not _allowed_module(defined_in):
                found.append((node.lineno, f"{node.module}.{alias.name}"))
    return sorted(set(found))


def violations(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    rel = path.relative_to(ROOT)
    return [f"{rel}:{line} {what}" for line, what in orm_calls(source, str(path)) + selector_imports(source, str(path))]


def test_views_reach_data_only_through_read_models():
    outside = [line for path in view_modules() for line in violations(path)]
    assert outside == [], "views that query the database or call a selector outside the read-model layer"


def test_every_routed_view_module_is_read():
    """The modules the URLs route to are found from the URL table, not only by name (needs_action.py, …)."""
    names = {_module_name(path) for path in view_modules()}
    assert {"annotation.manage.needs_action", "annotation.manage.needs_action_api", "validation.views", "rubrics.api"} <= names


def test_every_read_model_takes_the_viewer_and_uses_it():
    get_resolver().url_patterns  # noqa: B018 - importing every view imports every read model it calls
    wrong = []
    for name, func in READ_MODELS.items():
        parameters = list(inspect.signature(func).parameters.values())
        if not parameters or parameters[0].name != "viewer":
            wrong.append(f"{name}: its first parameter is not the viewer")
            continue
        body = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
        if not any(isinstance(node, ast.Name) and node.id == "viewer" for node in ast.walk(body)):
            wrong.append(f"{name}: never uses the viewer")
    assert wrong == []


def test_the_viewer_is_one_per_request(rf, django_user_model):
    request = rf.get("/")
    request.user = django_user_model(username="v")
    assert Viewer.of(request) is Viewer.of(request)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("Campaign.objects.get(pk=1)", [(1, ".objects")]),
        ("campaign.agreement_reports.filter(x=1)", [(1, ".filter()")]),
        ("get_object_or_404(X, pk=1)", [(1, "get_object_or_404")]),
        ("request.GET.get('page'); d.values(); xs.count(1)", []),
    ],
)
def test_the_check_sees_a_query(source, expected):
    assert orm_calls(source, "x.py") == expected


def test_the_check_sees_a_selector_import():
    source = (
        "from validation.selectors import latest_report\nfrom heartbench_core.paging import encode_keyset\n"
        "from annotation.workspace import selectors\n"
    )
    found = [name for _, name in selector_imports(source, "x.py")]
    assert found == ["validation.selectors.latest_report", "annotation.workspace.selectors"]
