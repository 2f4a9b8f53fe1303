"""Real answers of the typed endpoints conform to the schema their serializers declare.

Schemathesis fuzzes every operation, but on a small world where most of these answers are 4xx;
here each one is driven to its success answer and checked against the generated schema.
"""

import json
from datetime import timedelta
from pathlib import Path

import pytest
import requests
import schemathesis
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from schemathesis import Response

from annotation.models import Assignment, CampaignResponse
from annotation.services.campaigns import create_campaign
from annotation.services.workspace import DraftEntry, save_draft, submit_assignment
from heartbench_core.services.judging import import_judge_verdicts
from tests.factories import FIXTURES, demo_responses, demo_version

pytestmark = pytest.mark.django_db
MODELS = ["demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"]


@pytest.fixture(scope="module")
def schema():
    return schemathesis.openapi.from_dict(json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str)))


def conforms(schema, template: str, response, method: str = "GET", *, status: int | None = None) -> dict:
    """Check the Django test response against the schema of `method template`; return its JSON body."""
    if status is not None:
        assert response.status_code == status, (template, response.status_code, response.content[:500])
    else:
        assert response.status_code < 300, (template, response.status_code, response.content[:500])
    prepared = requests.Request(method, f"http://testserver{template}").prepare()
    schema[template][method].validate_response(
        Response(
            status_code=response.status_code,
            headers={k.lower(): [v] for k, v in response.items()},
            content=response.content,
            request=prepared,
            elapsed=0.0,
            verify=True,
        )
    )
    return response.json()


@pytest.fixture
def campaign(cast):
    demo_version()
    demo_responses()
    return create_campaign(
        name="Typed answers",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=3,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
        rationale_min_chars=10,
    ).campaign


def reserve(campaign, expert) -> Assignment:
    entry = CampaignResponse.objects.filter(campaign=campaign, item__question_id="dm0001").order_by("order_key").first()
    return Assignment.objects.create(campaign_response=entry, expert=expert, expires_at=timezone.now() + timedelta(hours=2))


def judge_fully(assignment: Assignment) -> Assignment:
    criteria = assignment.campaign_response.item.criteria.order_by("position")
    entries = [DraftEntry(criterion_id=c.pk, rationale=f"A considered rationale #{c.position}", hit=True) for c in criteria]
    save_draft(assignment=assignment, expert=assignment.expert, entries=entries)
    return submit_assignment(assignment=assignment, expert=assignment.expert)


@pytest.mark.parametrize("show_weights", [False, True])
def test_an_experts_work_answers_as_declared(schema, cast, client_for, campaign, show_weights):
    campaign.show_weights = show_weights
    campaign.save(update_fields=["show_weights"])
    mine = reserve(campaign, cast.expert)
    client = client_for(cast.expert)
    base = "/api/v1/annotation/assignments/{public_id}/"
    url = f"/api/v1/annotation/assignments/{mine.public_id}/"
    criterion = mine.campaign_response.item.criteria.order_by("position").first()

    detail = conforms(schema, base, client.get(url))
    assert ("weight" in detail["criteria"][0]) is show_weights
    draft = {
        "version": detail["version"],
        "judgments": [{"criterion": criterion.pk, "rationale": "Too short?", "hit": None}],
        "active_seconds": 5,
    }
    conforms(schema, base + "draft/", client.post(url + "draft/", draft, content_type="application/json"), "POST")
    # The same version again, with other text: the draft has moved on, and the 409 says what it holds.
    stale = {**draft, "judgments": [{"criterion": criterion.pk, "rationale": "Another tab's text", "hit": None}]}
    conflict = conforms(schema, base + "draft/", client.post(url + "draft/", stale, content_type="application/json"), "POST", status=409)
    assert conflict["current"]["judgments"] == [{"criterion": criterion.pk, "rationale": "Too short?", "hit": None}]
    assert conforms(schema, base, client.get(url))["judgments"] == [{"criterion": criterion.pk, "rationale": "Too short?", "hit": None}]
    conforms(schema, base + "time/", client.post(url + "time/", {"active_seconds": 7}, content_type="application/json"), "POST")
    unclear = {"criterion": criterion.pk, "comment": "Which turn does it mean?"}
    conforms(schema, base + "unclear/", client.post(url + "unclear/", unclear, content_type="application/json"), "POST")
    conforms(
        schema,
        base + "problem/",
        client.post(url + "problem/", {"comment": "The answer is cut off."}, content_type="application/json"),
        "POST",
    )
    assert conforms(schema, base, client.get(url))["unclear_reported"] == [criterion.pk]

    saved = save_draft(
        assignment=mine,
        expert=cast.expert,
        entries=[DraftEntry(c.pk, "A considered rationale", True) for c in mine.campaign_response.item.criteria.all()],
    )
    submitted = conforms(
        schema, base + "submit/", client.post(url + "submit/", {"version": saved.draft_version}, content_type="application/json"), "POST"
    )
    assert submitted["status"] == "submitted"
    for other in cast.experts[1:]:
        judge_fully(reserve(campaign, other))
    conforms(schema, base + "discussion/", client.get(url + "discussion/"))
    said = {"body": "I read it as a hit.", "criterion": criterion.pk}
    thread = conforms(schema, base + "discussion/", client.post(url + "discussion/", said, content_type="application/json"), "POST")
    assert thread["comments"][0]["own"] is True
    vote = {"criterion": criterion.pk, "hit": False}
    thread = conforms(
        schema, base + "discussion/votes/", client.post(url + "discussion/votes/", vote, content_type="application/json"), "POST"
    )
    assert thread["stances"][0]["mine"] is False


def test_the_next_response_answers_as_declared(schema, cast, client_for, campaign):
    response = client_for(cast.expert).post("/api/v1/annotation/next/", {"campaign": campaign.pk}, content_type="application/json")
    assert conforms(schema, "/api/v1/annotation/next/", response, "POST")["status"] == "reserved"


def test_a_profile_answers_as_its_viewer_sees_it(schema, cast, client_for, campaign):
    template = "/api/v1/annotation/profiles/{username}/"
    url = f"/api/v1/annotation/profiles/{cast.expert.username}/"
    as_admin = conforms(schema, template, client_for(cast.admin).get(url))
    assert "tier" in as_admin and "qualified_for" not in as_admin
    listed = conforms(schema, "/api/v1/annotation/profiles/", client_for(cast.admin).get("/api/v1/annotation/profiles/"))
    assert listed["count"] == 3
    as_expert = conforms(schema, template, client_for(cast.expert).get(url))
    assert "qualified_for" in as_expert and "tier" not in as_expert
    changed = client_for(cast.expert).patch(url, {"availability": "away", "reason": "on leave"}, content_type="application/json")
    assert conforms(schema, template, changed, "PATCH")["availability"] == "away"


def test_scores_verdicts_and_quality_answer_as_declared(schema, cast, client_for):
    demo_version()
    demo_responses()
    outcome = import_judge_verdicts(
        source=FIXTURES / "verdicts" / "demo-model-aurora.jsonl", dataset_name="demo", model_name="demo-model-aurora", judge="j"
    )
    client = client_for(cast.admin)
    scores = client.get("/api/v1/scores/", {"dataset": "demo", "model": "demo-model-aurora", "questions": "true"})
    assert conforms(schema, "/api/v1/scores/", scores)["questions"]
    verdicts = client.get(f"/api/v1/judge-runs/{outcome.run.pk}/verdicts/")
    assert len(conforms(schema, "/api/v1/judge-runs/{id}/verdicts/", verdicts)) == 56
    quality = conforms(schema, "/api/v1/rubrics/quality/", client.get("/api/v1/rubrics/quality/", {"dataset": "demo"}))
    assert quality["criteria"]


REPORTS = "/api/v1/validation/campaigns/{campaign_id}/reports/"
REPORT = "/api/v1/validation/reports/{id}/"


@pytest.mark.parametrize("with_judge", [True, False])
def test_the_agreement_report_answers_as_declared(schema, cast, client_for, with_judge):
    from tests.validation.builders import blind_test

    campaign = blind_test(cast, with_judge=with_judge)
    client = client_for(cast.admin)
    url = f"/api/v1/validation/campaigns/{campaign.pk}/reports/"
    computed = conforms(schema, REPORTS, client.post(url, {"wait": True, "resamples": 50}, content_type="application/json"), "POST")
    result = computed["result"]
    assert result["item_agreement"]["rate"]["n"] == result["pairs"] and result["item_agreement"]["ci95"]["resampled"]["unit"] == "item"
    if not with_judge:  # undefined, with its reason, never 0
        assert result["item_agreement"]["rate"]["value"] is None and result["item_agreement"]["rate"]["reason"]
        assert result["no_judge_reason"] and computed["agreement_rate"]["value"] is None
    detail = conforms(schema, REPORT, client.get(f"/api/v1/validation/reports/{computed['id']}/"))
    assert detail["result"] == result and detail["inputs"]["campaign"]["k"] == campaign.overlap
    listed = conforms(schema, REPORTS, client.get(url))
    assert listed["results"][0]["agreement_rate"] == result["item_agreement"]["rate"]
    queued = conforms(schema, REPORTS, client.post(url, {"seed": 2}, content_type="application/json"), "POST")
    assert queued["exploratory"] is True
    conforms(schema, "/api/v1/validation/jobs/{id}/", client.get(f"/api/v1/validation/jobs/{queued['job']}/"))


def test_a_report_stored_by_an_earlier_version_answers_as_declared(schema, cast, client_for):
    from tests.validation.builders import blind_test
    from validation.models import AgreementReport

    campaign = blind_test(cast)
    stored = json.loads((Path(__file__).parent.parent / "lib" / "stored_reports" / "v1_first_reports.json").read_text())
    inputs = {
        "campaign": {"id": campaign.pk, "name": campaign.name, "version": "v1", "k": 3},
        "judge_runs": [],
        "criterion_revisions": {},
        "judgments": 17,
        "last_judgment_at": None,
        "adjudications": 0,
        "computed_at": "2026-11-22T02:00:00+00:00",
    }
    old = AgreementReport.objects.create(
        campaign=campaign, judge="gpt-judge", parameters=stored["parameters"], inputs=inputs, result=stored
    )
    detail = conforms(schema, REPORT, client_for(cast.admin).get(f"/api/v1/validation/reports/{old.pk}/"))
    assert detail["result"]["item_agreement"]["ci95"]["resampled"]["unit"] == "response"
    assert detail["result"]["over_time"][0]["krippendorff_alpha"]["n"] is None  # not recorded then: not invented
