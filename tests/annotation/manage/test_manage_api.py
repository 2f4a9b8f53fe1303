import json

import pytest
from django.utils import timezone

from annotation.models import Assignment, Campaign, ExpertProfile, ExpertQuality
from annotation.services.assignment import assign_next_response
from annotation.services.campaigns import create_calibration
from tests.factories import demo_responses, demo_version

from .helpers import MODELS, demo_campaign, gold_file, gold_set, judge, qualify

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation"


def test_an_expert_lists_only_their_own_profile_without_measured_quality_or_tier(cast, client_for):
    for e in cast.experts:
        ExpertProfile.objects.create(user=e, degree=f"degree of {e.username}")
    ExpertQuality.objects.create(profile=cast.expert.expert_profile, gold_accuracy=0.5, gold_checks=4)
    body = client_for(cast.expert).get(f"{API}/profiles/").json()
    assert [p["username"] for p in body["results"]] == [cast.expert.username]
    text = json.dumps(body)
    for leak in ("gold", "tier", "quality", cast.experts[1].username):
        assert leak not in text


def test_an_expert_cannot_read_another_experts_profile(cast, client_for):
    ExpertProfile.objects.create(user=cast.experts[1])
    r = client_for(cast.expert).get(f"{API}/profiles/{cast.experts[1].username}/")
    assert r.status_code == 404


def test_an_expert_changes_only_their_availability(cast, client_for):
    c = client_for(cast.expert)
    me = c.get(f"{API}/profiles/me/").json()
    assert me["availability"] == "active"
    r = c.patch(f"{API}/profiles/{cast.expert.username}/", {"availability": "away", "reason": "holiday"}, content_type="application/json")
    assert r.status_code == 200 and r.json()["availability"] == "away"
    r = c.patch(f"{API}/profiles/{cast.expert.username}/", {"availability": "active", "capacity": 99}, content_type="application/json")
    assert r.status_code == 403
    assert ExpertProfile.objects.get(user=cast.expert).capacity == 10


def test_a_paused_expert_sees_no_reason_naming_quality_checks(cast, client_for):
    ExpertProfile.objects.create(
        user=cast.expert, availability="paused", availability_reason="Paused automatically: accuracy on the last 3 quality checks was 40%"
    )
    body = client_for(cast.expert).get(f"{API}/profiles/me/").json()
    assert "quality checks" not in json.dumps(body) and body["availability"] == "paused"


def test_outsiders_and_staff_without_roles_are_refused(cast, client_for):
    assert client_for(cast.outsider).get(f"{API}/profiles/").status_code == 403
    for path in ("manage/campaigns/", "manage/assignments/", "manage/alerts/"):
        assert client_for(cast.expert).get(f"{API}/{path}").status_code == 403
        assert client_for(cast.reviewer).get(f"{API}/{path}").status_code == 403


def test_an_admin_edits_a_profile_overrides_the_tier_and_qualifies(cast, client_for):
    c = client_for(cast.admin)
    url = f"{API}/profiles/{cast.expert.username}/"
    assert c.get(f"{API}/profiles/").json()["count"] == 3
    r = c.patch(url, {"capacity": 3, "specialties": ["Warmth", "Emotion"], "languages": ["zh"]}, content_type="application/json")
    assert r.status_code == 200 and r.json()["specialties"] == ["温暖", "Emotion"]
    r = c.post(url + "override-tier/", {"tier": 3, "reason": ""}, content_type="application/json")
    assert r.status_code == 400
    r = c.post(url + "override-tier/", {"tier": 3, "reason": "leads supervision"}, content_type="application/json")
    assert r.json()["effective_tier"] == 3
    r = c.post(url + "qualify/", {"dimension": "Emotion", "reason": "licensed"}, content_type="application/json")
    assert r.json()["qualifications"] == [{"dimension": "Emotion", "source": "admin", "reason": "licensed"}]


def test_an_admin_creates_a_campaign_and_bad_input_names_the_field(cast, client_for):
    demo_version()
    demo_responses()
    qualify(*cast.experts)
    c = client_for(cast.admin)
    body = {"name": "API blind", "dataset": "demo", "models": MODELS, "sample_fraction": 0.5, "seed": 2}
    r = c.post(f"{API}/manage/campaigns/", body, content_type="application/json")
    assert r.status_code == 201 and r.json()["responses"] == 9 and r.json()["eligible_experts"] == 3
    r = c.post(f"{API}/manage/campaigns/", {**body, "name": "x", "overlap": 4}, content_type="application/json")
    assert r.status_code == 400
    assert "k=4 is larger than the number of eligible experts: 3 of the 3" in r.json()["errors"]["overlap"][0]
    r = c.post(f"{API}/manage/campaigns/", {**body, "name": "x", "models": ["nope"]}, content_type="application/json")
    assert "unknown model(s): nope" in r.json()["errors"]["models"][0]
    assert Campaign.objects.count() == 1


def test_progress_bulk_assign_release_and_payments_through_the_api(cast, client_for):
    campaign = demo_campaign(cast, overlap=1, piece_rate=1)
    ExpertProfile.objects.update(capacity=100)
    c = client_for(cast.admin)
    assert c.post(f"{API}/manage/campaigns/{campaign.pk}/bulk-assign/").json() == {
        "assigned": 18,
        "open_slots": 18,
        "unfilled_slots": 0,
        "summary": "",
        "unfilled": [],
    }
    progress = c.get(f"{API}/manage/campaigns/{campaign.pk}/progress/").json()
    assert progress["by_submitted_judgments"] == {"0": 18, "1": 0}
    assert progress["projected_finish"] is None and progress["projected_reason"]
    listed = c.get(f"{API}/manage/assignments/", {"campaign": campaign.pk, "status": "reserved"}).json()
    assert listed["count"] == 18 and listed["results"][0]["model"] in MODELS
    public_id = listed["results"][0]["public_id"]
    assert c.post(f"{API}/manage/assignments/{public_id}/release/").json()["status"] == "released"
    Assignment.objects.filter(status="reserved").update(status="submitted", submitted_at=timezone.now())
    csv = c.get(f"{API}/manage/campaigns/{campaign.pk}/payments/").content.decode()
    assert csv.strip().splitlines()[-1].endswith(",TOTAL,,17,0,17,0,0,,1.00,17.00,,review")


def test_calibration_results_show_an_expert_only_their_own_misses(cast, client_for):
    import io

    version = demo_version()
    demo_responses()
    c = client_for(cast.admin)
    upload = gold_file(version)
    r = c.post(f"{API}/manage/calibrations/", {"name": "Cal", "dataset": "demo", "file": upload}, format="multipart")
    assert r.status_code == 201
    campaign = Campaign.objects.get(name="Cal")
    for expert, wrong in ((cast.experts[0], 1), (cast.experts[1], 0)):
        while (a := assign_next_response(expert=expert, campaign=campaign)) is not None:
            judge(a, wrong=wrong)
    mine = client_for(cast.experts[0]).get(f"{API}/calibration-results/").json()["results"]
    assert len(mine) == 1 and mine[0]["expert"] == cast.experts[0].username
    assert len(mine[0]["misses"]) == 2 and all(m["gold_hit"] != m["expert_hit"] for m in mine[0]["misses"])
    bad = io.BytesIO(b'{"question_id": "dm0001", "model": "demo-model-aurora", "labels": "all"}\n')
    bad.name = "gold.jsonl"
    c = client_for(cast.admin)
    r = c.post(f"{API}/manage/calibrations/", {"name": "Cal2", "dataset": "demo", "file": bad}, format="multipart")
    assert r.status_code == 400
    assert r.json()["errors"][0] == {
        "file": "gold.jsonl",
        "line": 1,
        "field": "labels",
        "message": "must be a non-empty list of {position, hit}",
    }


def test_nothing_an_expert_can_reach_reveals_gold_checks_or_models(cast, client_for):
    version = demo_version()
    demo_responses()
    create_calibration(name="Cal", dataset_name="demo", source=gold_file(version, picks=[("dm0001", "demo-model-cirrus")]))
    pool = gold_set(version, picks=[("dm0001", "demo-model-aurora"), ("dm0002", "demo-model-aurora")])
    qualify(*cast.experts)
    from annotation.services.campaigns import create_campaign

    campaign = create_campaign(
        name="Blind",
        dataset_name="demo",
        model_names=MODELS[1:],
        sample_fraction=1.0,
        gold_source=pool,
        gold_rate=0.5,
        expert_usernames=[e.username for e in cast.experts],
    ).campaign
    for _ in range(4):
        judge(assign_next_response(expert=cast.expert, campaign=campaign))
    c = client_for(cast.expert)
    pages = [c.get(f"{API}/profiles/me/").content, c.get(f"{API}/calibration-results/").content, c.get("/work/profile/").content]
    for content in pages:
        text = content.decode()
        assert "gold" not in text.lower()
        for model in MODELS:
            assert model not in text


def test_the_profile_page_of_a_paused_expert_shows_neither_the_reason_nor_the_tier(cast, client_for):
    ExpertProfile.objects.create(
        user=cast.expert,
        availability="paused",
        availability_reason="Paused automatically: accuracy on the last 3 quality checks was 40%",
        tier=3,
    )
    html = client_for(cast.expert).get("/work/profile/").content.decode()
    assert "paused by an admin" in html
    assert "quality checks" not in html and "Tier" not in html
