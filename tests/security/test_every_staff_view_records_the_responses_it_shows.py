"""Every staff view that shows a response with its model, the judge, other raters or gold status records an exposure.

Crawled as a superuser whom no campaign lists and as a user holding every staff role and the
expert role (also in no campaign yet): every link and every URL pattern with the world's ids,
the Django admin's pages of responses, assignments, judgments and verdicts included. Whatever a
page showed of a response (its staff public id, or its text on a page naming a model, the judge
or gold) must be recorded for that user. Then the user becomes an expert of the open campaign and
pulls until nothing is left: none of what they were shown is ever served to them blind.
"""

import json
import re

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from annotation.models import Assignment, CampaignResponse
from annotation.services.assignment import assign_next_response
from heartbench_core.judging.models import EndpointRun
from heartbench_core.models import JudgeRun, LanguageModel, StaffExposure
from heartbench_core.roles import Role
from tests.conftest import make_user
from tests.security.dual_role_world import build_dual_role_world
from tests.security.permissions_table import SKIP_PREFIXES
from tests.security.urlwalk import crawl, every_get_url

pytestmark = pytest.mark.django_db

ADMIN_PAGES = (
    "/admin/heartbench_core/modelresponse/",
    "/admin/heartbench_core/judgeverdict/",
    "/admin/annotation/campaignresponse/",
    "/admin/annotation/assignment/",
    "/admin/annotation/judgment/",
    "/admin/annotation/goldlabel/",
)


def _values(world) -> dict[str, list[str]]:
    c, d, e = world.open_campaign, world.closed_campaign, world.elsewhere
    entries = [world.c_entries[0], world.c_entries[-1], world.d_queued_hidden, world.d_queued_open, world.e_queued]
    campaigns = [str(c.pk), str(d.pk), str(e.pk)]
    reports = [str(r.pk) for x in (c, d, e) for r in x.agreement_reports.all()]
    return {
        "campaign_id": campaigns,
        "entry_id": [str(x.pk) for x in entries],
        "criterion_id": [str(x.item.criteria.order_by("position").first().pk) for x in entries],
        "report_id": reports,
        "public_id": [a.public_id for a in Assignment.objects.all()[:6]] + [x.response.public_id for x in entries],
        "pk": [str(pk) for pk in JudgeRun.objects.values_list("pk", flat=True)]
        + campaigns
        + reports
        + [str(pk) for pk in EndpointRun.objects.values_list("pk", flat=True)],
        "id": campaigns,
        "name": ["demo", "demo-elsewhere", "dual-judge"],
        "label": [world.version.label],
        "question_id": sorted({x.item.question_id for x in entries}),
        "model": list(LanguageModel.objects.values_list("name", flat=True)),
        "what": ["judgments", "golden", "report"],
        "fmt": ["csv", "jsonl"],
    }


def _pieces(text: str) -> list[str]:
    """A page's table rows and list items, or a JSON answer's objects, each as one lowered text."""
    data = None
    for line in text.split("\n"):  # the API renders its JSON on one line, after the headers
        if line.startswith(("{", "[")):
            try:
                data = json.loads(line)
            except ValueError:
                continue
    if data is None:
        return [p.lower() for p in re.findall(r"<(?:tr|li)\b.*?</(?:tr|li)>", text, flags=re.S)]
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            found.append(json.dumps(value, ensure_ascii=False).lower())
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(data)
    return found


def _in(needle: str, haystack: str) -> bool:
    return re.search(rf"(?<![a-z0-9_-]){re.escape(needle)}(?![a-z0-9_-])", haystack) is not None


def _shown(text: str, entries: list[CampaignResponse], models: list[str]) -> set[int]:
    """Ids of the responses a page showed with what unblinds them.

    Shown: its staff public id; its text on a page naming a model, the judge or gold; or its
    question and its model in one table row, list item or JSON object (as an assignment overview
    shows them).
    """
    lowered = text.lower()
    shown = set()
    for piece in _pieces(text):
        for entry in entries:
            response = entry.response
            if _in(response.model.name.lower(), piece) and _in(response.question_id.lower(), piece):
                shown.add(response.pk)
    unblinding = any(m in lowered for m in models) or re.search(r"(?<![a-z0-9])gold(?![a-z0-9])", lowered) or "judge" in lowered
    for entry in entries:
        response = entry.response
        if response.public_id.lower() in lowered or (unblinding and response.text.lower() in lowered):
            shown.add(response.pk)
    for public_id, response_id in Assignment.objects.values_list("public_id", "campaign_response__response_id"):
        if unblinding and public_id.lower() in lowered:
            shown.add(response_id)
    return shown


def _look_everywhere(world, user) -> set[int]:
    client = Client()
    client.force_login(user)
    entries = list(CampaignResponse.objects.select_related("response__model", "response__dataset"))
    models = [m.lower() for m in LanguageModel.objects.values_list("name", flat=True)]
    shown: set[int] = set()

    def note(text: str) -> list[str]:
        shown.update(_shown(text, entries, models))
        return []

    start = every_get_url(_values(world), SKIP_PREFIXES) | set(ADMIN_PAGES)
    reached = crawl(client, start, note)
    assert "/validation/" in reached and f"/validation/campaigns/{world.open_campaign.pk}/adjudication/" in reached
    return shown


@pytest.mark.parametrize("kind", ["superuser", "every staff role and expert"])
def test_what_any_staff_view_showed_is_recorded_and_never_served_blind(kind, cast):
    world = build_dual_role_world(cast, platform_runs=True)
    if kind == "superuser":
        user = make_user("root_looker", is_superuser=True, is_staff=True)
    else:
        user = make_user("all_looker", Role.ADMIN, Role.RUBRIC_AUTHOR, Role.SENIOR_REVIEWER, Role.EXPERT, is_staff=True)
    shown = _look_everywhere(world, user)
    c_responses = world.c_response_ids()
    assert shown & c_responses, "the crawl showed nothing of the open campaign: it proves nothing"
    recorded = set(StaffExposure.objects.filter(user=user).values_list("response_id", flat=True))
    assert shown <= recorded, f"shown but not recorded: {sorted(shown - recorded)}"
    # Now an expert of the open campaign: nothing they were shown comes back to them blind.
    user.groups.add(Group.objects.get_or_create(name=Role.EXPERT.value)[0])
    world.open_campaign.experts.add(user)
    expert = type(user).objects.get(pk=user.pk)
    served = []
    while (a := assign_next_response(expert=expert, campaign=world.open_campaign)) is not None:
        served.append(a.campaign_response.response_id)
        Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.SUBMITTED)
    assert not set(served) & recorded
