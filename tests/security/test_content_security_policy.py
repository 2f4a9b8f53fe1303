"""Every response carries the Content-Security-Policy, and no template needs what it forbids.

The policy allows scripts and styles only from the platform's own files: no inline script, no
`style` attribute, no injected `<style>`, no eval. The browser test
(tests/browser/test_content_security_policy.py) opens each role's pages under it.
"""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client

from heartbench_core.leaderboard.selectors import PALETTE
from tests.security import permissions_table as table
from tests.security.test_permission_matrix import QUERIES, user_for, values_for
from tests.security.urlwalk import build_path, endpoints, probe
from tests.security.world import build_world

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
)
TEMPLATES = Path(settings.BASE_DIR) / "templates"
STYLESHEET = Path(settings.BASE_DIR) / "static" / "css" / "app.css"


def directives(header: str) -> set[str]:
    return {part.strip() for part in header.split(";") if part.strip()}


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["admin", "author", "expert", "anonymous"])
def test_every_url_answers_with_the_policy_whoever_asks(role, cast):
    world = build_world(cast)
    cache.clear()
    client = Client()
    if (user := user_for(role, cast)) is not None:
        client.force_login(user)
    without = []
    for endpoint in endpoints(table.SKIP_PREFIXES):
        if "GET" not in endpoint.methods or endpoint.key not in table.TABLE:
            continue
        path = build_path(endpoint.route, values_for(endpoint, world)) + QUERIES.get(endpoint.key, "")
        response = probe(client, "GET", path)
        if directives(response.get("Content-Security-Policy", "")) != directives(POLICY):
            without.append(f"{path} ({response.status_code}): {response.get('Content-Security-Policy')!r}")
    assert not without, "responses without the policy:\n" + "\n".join(without)


@pytest.mark.django_db
def test_a_page_that_does_not_exist_and_a_refused_page_carry_it_too(cast):
    client = Client()
    client.force_login(cast.expert)
    assert directives(client.get("/no/such/page/")["Content-Security-Policy"]) == directives(POLICY)
    assert directives(client.get("/work/manage/campaigns/")["Content-Security-Policy"]) == directives(POLICY)


def _templates() -> list[Path]:
    return sorted(TEMPLATES.rglob("*.html"))


def test_no_template_has_a_style_attribute_or_a_style_element():
    found = [f"{p.relative_to(TEMPLATES)}: {m.group()}" for p in _templates() for m in re.finditer(r"\sstyle\s*=|<style\b", p.read_text())]
    assert not found, "move these into static/css/app.css:\n" + "\n".join(found)


def test_no_template_has_an_inline_script_or_an_event_handler_attribute():
    inline = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|\son[a-z]+\s*=\s*[\"']|javascript:", re.IGNORECASE)
    found = [f"{p.relative_to(TEMPLATES)}: {m.group()}" for p in _templates() for m in inline.finditer(p.read_text())]
    assert not found, "the policy refuses these; move them into static/js/:\n" + "\n".join(found)


def test_htmx_is_told_to_inject_no_style_and_evaluate_nothing():
    base = (TEMPLATES / "base.html").read_text()
    meta = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", base)
    assert meta, "base.html has no htmx-config meta tag"
    import json

    config = json.loads(meta.group(1))
    assert config["includeIndicatorStyles"] is False and config["allowEval"] is False
    assert base.index('name="htmx-config"') < base.index("{% htmx_script %}")
    assert ".htmx-request .htmx-indicator" in STYLESHEET.read_text()


def test_the_stylesheet_has_a_class_for_every_width_colour_and_depth_the_templates_use():
    css = STYLESHEET.read_text()
    assert all(f".w-{n}{{width:{n}%}}" in css for n in range(101))
    assert all(f".swatch.col-{colour[1:]}{{background:{colour}}}" in css for colour in PALETTE)
    assert all(f".depth-{d}{{" in css for d in range(7))
