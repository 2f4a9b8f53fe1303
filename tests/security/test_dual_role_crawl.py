"""The blindness crawl, run as a user who is expert *and* every kind of staff, in the open campaign they judge in.

As in test_expert_blindness.py: follow every link and form target from the user's pages and
request every URL pattern with the world's ids substituted. Nothing may carry the judge's
rationale on the campaign's responses, another rater's rationale on them, a gold explanation,
the staff identity of one of its responses (its public id), or one of its response texts next
to a model name. The Django admin (superusers and is_staff users only) is out of the crawl: it is
the operators' tool, not a page of the platform.
"""

import re

import pytest
from django.test import Client

from annotation.models import Assignment, CorrectionRequest
from heartbench_core.judging.models import EndpointRun
from heartbench_core.models import JudgeRun, LanguageModel
from tests.security.dual_role_world import CASE_SECRET, GOLD_SECRET, JUDGE_SECRET, OTHER_SECRET, build_dual_role_world
from tests.security.permissions_table import SKIP_PREFIXES
from tests.security.urlwalk import crawl, every_get_url

pytestmark = pytest.mark.django_db


def _leaks(text: str, world) -> list[str]:
    lowered = text.lower()
    found = [s for s in (JUDGE_SECRET, OTHER_SECRET, GOLD_SECRET, CASE_SECRET) if s.lower() in lowered]
    found += [f"public id of C's response {e.response.public_id}" for e in world.c_entries if e.response.public_id.lower() in lowered]
    models = [m.lower() for m in LanguageModel.objects.values_list("name", flat=True)]
    # "gold" as a word of its own (is_gold, gold-check, Gold): not inside a CSRF token or a random public id,
    # which are letters and digits and once held "GoLd" by chance.
    if any(m in lowered for m in models) or re.search(r"(?<![a-z0-9])gold(?![a-z0-9])", lowered):
        found += [
            f"text of C's response {e.pk} next to a model name or 'gold'" for e in world.c_entries if e.response.text.lower() in lowered
        ]
        found += [f"assignment {a} of C next to a model name or 'gold'" for a in world.c_assignment_ids() if a.lower() in lowered]
    return found


def _crawl(world, user, extra=frozenset()) -> list[str]:
    client = Client()
    client.force_login(user)
    c, d, e = world.open_campaign, world.closed_campaign, world.elsewhere
    entries = [world.c_entries[0], world.d_queued_hidden, world.d_queued_open, world.e_queued]
    criteria = [str(e.item.criteria.order_by("position").first().pk) for e in entries]
    values = {
        "campaign_id": [str(c.pk), str(d.pk), str(e.pk)],
        "entry_id": [str(e.pk) for e in entries],
        "criterion_id": criteria,
        "report_id": [str(r) for r in c.agreement_reports.values_list("pk", flat=True)]
        + [str(r) for r in d.agreement_reports.values_list("pk", flat=True)]
        + [str(r) for r in e.agreement_reports.values_list("pk", flat=True)],
        "public_id": [a.public_id for a in Assignment.objects.filter(campaign_response__campaign=c)]
        + [e.response.public_id for e in world.c_entries[:2]],
        "correction_id": [str(pk) for pk in CorrectionRequest.objects.values_list("pk", flat=True)] or ["1"],
        "pk": [str(pk) for pk in JudgeRun.objects.values_list("pk", flat=True)]
        + [str(c.pk), str(d.pk), str(e.pk)]
        + [str(r) for r in c.agreement_reports.values_list("pk", flat=True)]
        + [str(pk) for pk in EndpointRun.objects.values_list("pk", flat=True)],
        "id": [str(c.pk), str(d.pk), str(e.pk)],
        "name": ["demo", "demo-elsewhere", "dual-judge", "heartbench-zh"],
        "revision": ["1"],
        "label": [world.version.label],
        "question_id": sorted({e.item.question_id for e in world.c_entries})[:2],
        "model": list(LanguageModel.objects.values_list("name", flat=True)),
        "what": ["judgments", "golden", "report"],
        "fmt": ["csv", "jsonl"],
        "username": [user.username, world.cast.experts[1].username],
    }
    values["public_id"] += [a.public_id for a in Assignment.objects.filter(campaign_response__campaign=d)[:2]]
    start = every_get_url(values, SKIP_PREFIXES) | set(extra)
    return crawl(client, start, lambda text: _leaks(text, world))


def _library_start(world, user) -> set[str]:
    """The library's lists and searches, as staff and in the judging page's panel, with words of the hidden cases."""
    library = world.library
    start = {
        f"/work/library/faq/{library['faq'].pk}/",
        f"/work/library/cases/{library['visible'].pk}/",
        "/work/library/?kind=cases",
        "/work/library/?kind=cases&status=published",
        "/api/v1/annotation/library/cases/",
    }
    for case in library["hidden"]:
        start |= {f"/work/library/cases/{case.pk}/", f"/api/v1/annotation/library/cases/{case.pk}/"}
    mine = Assignment.objects.filter(expert=user, campaign_response__campaign=world.open_campaign)
    for word in ("CASE", "running", "shared", "Lesson"):
        start |= {f"/work/library/?q={word}", f"/work/library/?q={word}&kind=cases", f"/api/v1/annotation/library/search/?q={word}"}
        for a in mine:
            for criterion in a.campaign_response.item.criteria.all():
                start |= {
                    f"/work/a/{a.public_id}/library/?criterion={criterion.pk}",
                    f"/work/a/{a.public_id}/library/?criterion={criterion.pk}&q={word}",
                }
                for case in library["hidden"]:
                    start.add(f"/work/a/{a.public_id}/library/entry/?case={case.pk}&criterion={criterion.pk}")
    return start


@pytest.mark.parametrize("combination", ["expert+all", "superuser"])
def test_a_dual_role_user_crawling_everything_finds_nothing_of_the_campaign_they_judge_in(combination, cast):
    world = build_dual_role_world(cast, platform_runs=True)
    user = world.users[combination]
    reached = _crawl(world, user, _library_start(world, user))
    # The crawl really went through the staff pages and the user's own blind work, not only 403s.
    mine = world.mine[combination]
    assert f"/work/a/{mine.public_id}/" in reached
    assert "/validation/" in reached and f"/validation/campaigns/{world.elsewhere.pk}/adjudication/" in reached
    assert "/api/v1/responses/" in reached and "/work/manage/dual-roles/" in reached
    assert any(u.startswith("/datasets/demo-elsewhere/") for u in reached)
    # The judging pages were crawled: the run on the other dataset is shown, the runs on C's dataset are not.
    open_run = EndpointRun.objects.get(version__dataset__name="demo-elsewhere")
    assert "/judging/" in reached and f"/judging/runs/{open_run.pk}/" in reached and "/api/v1/endpoint-runs/" in reached
    # The library: its lists and the case from D on a response of no open campaign, but none of C's.
    assert f"/work/library/cases/{world.library['visible'].pk}/" in reached and "/work/library/?kind=cases" in reached
    assert f"/work/a/{mine.public_id}/library/?criterion={mine.campaign_response.item.criteria.order_by('position').first().pk}" in reached
