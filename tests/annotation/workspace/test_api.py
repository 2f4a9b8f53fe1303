"""The workspace API: the same rules as the pages, for the expert's own work only."""

from annotation.models import Assignment, CorrectionRequest, Judgment

from .conftest import judge_fully


def test_next_then_draft_then_submit_through_the_api(workspace, cast, client_for):
    client = client_for(cast.expert)
    detail = client.post("/api/v1/annotation/next/", {"campaign": workspace.campaign.pk}, content_type="application/json").json()
    pid = detail["id"]
    assert "model" not in str(detail.keys()) and "weight" not in detail["criteria"][0]
    assert next(t["role"] for t in detail["dialogue"]) == "A"
    criteria = [c["id"] for c in detail["criteria"]]
    half = [{"criterion": c, "rationale": "A long enough rationale", "hit": True} for c in criteria[:2]]
    saved = client.post(
        f"/api/v1/annotation/assignments/{pid}/draft/",
        {"version": detail["version"], "judgments": half, "active_seconds": 20},
        content_type="application/json",
    )
    assert saved.status_code == 200 and saved.json()["active_seconds"] == 20
    version = saved.json()["version"]
    assert version == detail["version"] + 1
    refused = client.post(f"/api/v1/annotation/assignments/{pid}/submit/", {"version": version}, content_type="application/json")
    assert refused.status_code == 400 and refused.json()["detail"] == "nothing was written"
    assert f"criterion_{criteria[2]}" in refused.json()["errors"]
    rest = [{"criterion": c, "rationale": "A long enough rationale", "hit": False} for c in criteria[2:]]
    done = client.post(
        f"/api/v1/annotation/assignments/{pid}/submit/", {"version": version, "judgments": rest}, content_type="application/json"
    )
    assert done.status_code == 200 and done.json()["status"] == "submitted"
    assert Judgment.objects.filter(assignment__public_id=pid).count() == len(criteria)
    mine = client.get("/api/v1/annotation/assignments/?status=submitted").json()
    assert mine["count"] == 1 and [a["id"] for a in mine["results"]] == [pid]


def test_a_draft_for_a_foreign_criterion_names_the_field(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert, "dm0001")
    foreign = workspace.response_of("dm0002").item.criteria.first()
    response = client_for(cast.expert).post(
        f"/api/v1/annotation/assignments/{assignment.public_id}/draft/",
        {"version": 0, "judgments": [{"criterion": foreign.pk, "rationale": "x"}]},
        content_type="application/json",
    )
    assert response.status_code == 400 and "judgments[0].criterion" in response.json()["errors"]


def test_weights_appear_only_when_the_campaign_shows_them(workspace, cast, client_for):
    workspace.campaign.show_weights = True
    workspace.campaign.save()
    assignment = workspace.reserve(cast.expert, "dm0001")
    detail = client_for(cast.expert).get(f"/api/v1/annotation/assignments/{assignment.public_id}/").json()
    assert [c["weight"] for c in detail["criteria"]] == [3, 3, 2, 3, -3, None]
    assert [c["kind"] for c in detail["criteria"]][-2:] == ["penalty", "catastrophic"]


def test_reports_corrections_and_decisions_through_the_api(workspace, cast, client_for):
    assignment = judge_fully(workspace.reserve(cast.expert, "dm0001"))
    first = assignment.campaign_response.item.criteria.order_by("position").first()
    client = client_for(cast.expert)
    base = f"/api/v1/annotation/assignments/{assignment.public_id}"
    assert client.post(f"{base}/unclear/", {"criterion": first.pk, "comment": "vague"}, content_type="application/json").status_code == 201
    assert client.post(f"{base}/problem/", {"comment": "cut off"}, content_type="application/json").status_code == 201
    created = client.post(
        f"{base}/corrections/",
        {"reason": "misread", "judgments": [{"criterion": first.pk, "rationale": "It does not, on a second read", "hit": False}]},
        content_type="application/json",
    )
    assert created.status_code == 201 and created.json()["status"] == "pending"
    assert client.get("/api/v1/annotation/corrections/").status_code == 403
    admin = client_for(cast.admin)
    listed = admin.get("/api/v1/annotation/corrections/").json()["results"]
    assert listed[0]["expert"] == cast.expert.username
    decided = admin.post(f"/api/v1/annotation/corrections/{listed[0]['id']}/decide/", {"accept": True}, content_type="application/json")
    assert decided.status_code == 200 and decided.json()["status"] == "accepted"
    assert CorrectionRequest.objects.get().status == "accepted"


def test_the_discussion_api_is_404_before_all_judgments_then_open(workspace, cast, client_for):
    mine = judge_fully(workspace.reserve(cast.experts[0], "dm0001", "demo-model-cirrus"))
    url = f"/api/v1/annotation/assignments/{mine.public_id}/discussion/"
    client = client_for(cast.experts[0])
    assert client.get(url).status_code == 404
    assert client.post(url, {"body": "early"}, content_type="application/json").status_code == 404
    judge_fully(workspace.reserve(cast.experts[1], "dm0001", "demo-model-cirrus"))
    judge_fully(workspace.reserve(cast.experts[2], "dm0001", "demo-model-cirrus"))
    posted = client.post(url, {"body": "now we can talk"}, content_type="application/json")
    assert posted.status_code == 201 and posted.json()["comments"][0]["author"] == "You"
    first = mine.campaign_response.item.criteria.first()
    voted = client.post(url + "votes/", {"criterion": first.pk, "hit": True}, content_type="application/json").json()
    assert {s["criterion"]: s["hit"] for s in voted["stances"]}[first.pk] == 1


def test_another_experts_assignment_is_404_on_every_endpoint(workspace, cast, client_for):
    theirs = judge_fully(workspace.reserve(cast.experts[1], "dm0001"))
    client = client_for(cast.expert)
    base = f"/api/v1/annotation/assignments/{theirs.public_id}"
    assert client.get(f"{base}/").status_code == 404
    for suffix in ("draft/", "submit/", "time/", "unclear/", "problem/", "corrections/", "discussion/", "discussion/votes/"):
        assert client.post(f"{base}/{suffix}", {}, content_type="application/json").status_code == 404, suffix
    assert Assignment.objects.get(pk=theirs.pk).status == "submitted"
