"""Walk every URL pattern of the project and probe it as a given user."""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from itertools import product
from urllib.parse import urljoin, urlparse

from django.conf import settings
from django.db import transaction
from django.shortcuts import resolve_url
from django.urls import URLPattern, URLResolver, get_resolver

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
ROLES = ("admin", "author", "reviewer", "expert", "other_expert", "outsider", "anonymous")

_ROUTE_ARG = re.compile(r"<(?:(?P<conv>\w+):)?(?P<name>\w+)>")
_REGEX_ARG = re.compile(r"\(\?P<(?P<name>\w+)>[^)]*\)")


@dataclass(frozen=True)
class Endpoint:
    key: str  # the URL name (namespaced), or the route when the name is missing or shared
    name: str | None
    route: str
    args: tuple[str, ...]
    methods: tuple[str, ...]  # the methods the view handles at all (others answer 405 to everyone)


def handled_methods(callback) -> tuple[str, ...]:
    """The methods a view handles: from DRF actions/handlers, a class view, or require_http_methods.

    A class view answers HEAD as GET (Django's View.setup) and has an OPTIONS handler.
    """
    if getattr(callback, "actions", None):
        names = {m.upper() for m in callback.actions} | {"OPTIONS"}
        return tuple(m for m in METHODS if m in names or (m == "HEAD" and "GET" in names))
    cls = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
    if cls is not None:
        names = {m.upper() for m in cls.http_method_names if hasattr(cls, m)}
        return tuple(m for m in METHODS if m in names or (m == "HEAD" and "GET" in names))
    func = callback
    while func is not None:
        closure = getattr(func, "__closure__", None) or ()
        names = getattr(getattr(func, "__code__", None), "co_freevars", ())
        for name, cell in zip(names, closure):
            if name == "request_method_list":
                return tuple(m for m in METHODS if m in cell.cell_contents)
        func = getattr(func, "__wrapped__", None)
    return METHODS


def _walk(patterns, prefix="", namespace=None):
    for p in patterns:
        if isinstance(p, URLResolver):
            ns = namespace
            if p.namespace:
                ns = f"{namespace}:{p.namespace}" if namespace else p.namespace
            yield from _walk(p.url_patterns, prefix + str(p.pattern), ns)
        elif isinstance(p, URLPattern):
            name = p.name and (f"{namespace}:{p.name}" if namespace else p.name)
            yield prefix + str(p.pattern), name, p.callback


def endpoints(skip_prefixes: tuple[str, ...] = ()) -> list[Endpoint]:
    """Every URL pattern of the project, except format-suffix twins and the given prefixes."""
    found = []
    for route, name, callback in _walk(get_resolver().url_patterns):
        if "format" in route and ("(?P<format>" in route or "drf_format_suffix" in route):
            continue  # DRF's `.json` twins of a route: same view, same permissions
        if route.startswith(skip_prefixes):
            continue
        args = tuple(m.group("name") for m in _ROUTE_ARG.finditer(route)) + tuple(m.group("name") for m in _REGEX_ARG.finditer(route))
        found.append((route, name, args, handled_methods(callback)))
    names = [n for _, n, _, _ in found]
    return [
        Endpoint(key=name if name and names.count(name) == 1 else route, name=name, route=route, args=args, methods=methods)
        for route, name, args, methods in found
    ]


def build_path(route: str, values: dict[str, object]) -> str:
    """The concrete path of a route with its arguments replaced by the given values."""
    path = route.replace("^", "").replace("$", "")
    path = _REGEX_ARG.sub(lambda m: str(values[m.group("name")]), path)
    path = _ROUTE_ARG.sub(lambda m: str(values[m.group("name")]), path)
    return "/" + path


def allowed_roles(rules: dict[str, tuple[str, ...]], method: str) -> tuple[str, ...]:
    """The roles a table entry allows for a method: HEAD follows GET unless declared; OPTIONS is nobody's unless declared."""
    if method == "HEAD" and "HEAD" not in rules:
        return rules.get("GET", ())
    return rules.get(method, ())


def outcome(response) -> str:
    """'allowed', 'denied' or 'error' for one response."""
    status = response.status_code
    if status >= 500 or status == 429:
        return "error"
    if status in (401, 403, 404, 405):
        return "denied"
    if status in (301, 302, 303, 307, 308):
        login = resolve_url(settings.LOGIN_URL)
        location = response.get("Location", "")
        if location.startswith(login) and "next=" in location:
            return "denied"
    return "allowed"


class _Rollback(Exception):
    pass


def probe(client, method: str, path: str):
    """Send one request with an empty body, undoing whatever it wrote (logging out included)."""
    holder = {}
    cookies = {name: morsel.value for name, morsel in client.cookies.items()}
    try:
        with transaction.atomic():
            if method == "GET":
                holder["r"] = client.get(path)
            elif method == "HEAD":
                holder["r"] = client.head(path)
            elif method == "OPTIONS":
                holder["r"] = client.options(path)
            elif method == "POST":
                holder["r"] = client.post(path, {})
            else:
                holder["r"] = client.generic(method, path, b"{}", content_type="application/json")
            raise _Rollback
    except _Rollback:
        pass
    client.cookies = SimpleCookie(cookies)
    return holder["r"]


# --- crawling as one user: follow every link and every URL pattern, checking each answer -------

_LINK = re.compile(r'(?:href|action|hx-get|hx-post|data-time-url|src)="([^"#]+)"')


def response_text(response) -> str:
    """Headers and body of a response as one unescaped text, streamed bodies included."""
    body = b"".join(response.streaming_content) if getattr(response, "streaming", False) else response.content
    headers = "\n".join(f"{k}: {v}" for k, v in response.items())
    return headers + "\n" + unescape(body.decode("utf-8", "replace"))


def links_in(page_url: str, text: str) -> set[str]:
    """The project's own URLs a page links to, posts to or loads (static files and the Django admin left out)."""
    found = set()
    for raw in _LINK.findall(text):
        parsed = urlparse(urljoin(page_url, raw))
        if parsed.netloc not in ("", "testserver") or parsed.path.startswith(("/static/", "/admin/")):
            continue
        found.add(parsed.path + (f"?{parsed.query}" if parsed.query else ""))
    return found


def every_get_url(values: dict[str, list[str]], skip_prefixes: tuple[str, ...] = ()) -> set[str]:
    """Every URL pattern answering GET (path and regex routes, the API routers' too) with each combination of values."""
    urls = set()
    for endpoint in endpoints(skip_prefixes):
        if "GET" not in endpoint.methods:
            continue
        for combination in product(*[values.get(arg) or ["1", "x"] for arg in endpoint.args]):
            urls.add(build_path(endpoint.route, dict(zip(endpoint.args, combination))))
    return urls


def crawl(client, start: set[str], leaks: Callable[[str], list[str]]) -> list[str]:
    """Request every start URL and every link of every page reached; fail on the first answer `leaks` finds anything in.

    Returns the URLs that answered 200, so a test can check the crawl really reached the user's work.
    """
    queue, seen, reached = set(start) | {"/", "/work/"}, set(), []
    while queue:
        url = queue.pop()
        if url in seen or "logout" in url:
            continue
        seen.add(url)
        response = client.get(url, follow=False)
        text = response_text(response)
        found = leaks(text)
        assert not found, f"{url} ({response.status_code}) reveals {found}"
        if response.status_code == 200:
            reached.append(url)
            if "html" in response.get("Content-Type", ""):
                queue |= links_in(url, text) - seen
    return reached


# --- the forms of a page: where they send what -------------------------------------------------


@dataclass
class Form:
    action: str  # the path it is sent to
    method: str  # "get" or "post"
    fields: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)


class _FormParser(HTMLParser):
    def __init__(self, page_url: str) -> None:
        super().__init__()
        self.page_url, self.forms, self.current = page_url, [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            method = (a.get("method") or ("post" if a.get("hx-post") else "get")).lower()
            target = a.get("action") or a.get("hx-post") or a.get("hx-get") or self.page_url
            self.current = Form(action=urlparse(urljoin(self.page_url, target)).path, method=method)
            self.forms.append(self.current)
        elif tag in ("input", "select", "textarea", "button") and self.current is not None and a.get("name"):
            if a.get("type") == "file":
                self.current.files.add(a["name"])
            elif a["name"] != "csrfmiddlewaretoken":
                self.current.fields.add(a["name"])

    def handle_endtag(self, tag):
        if tag == "form":
            self.current = None


def forms_in(page_url: str, html: str) -> list[Form]:
    """Every form of a page, with the path it is sent to and the names of its fields and file inputs."""
    parser = _FormParser(page_url)
    parser.feed(html)
    return parser.forms
