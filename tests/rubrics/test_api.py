import pytest

from rubrics.models import CriterionRevision

pytestmark = pytest.mark.django_db

API = "/api/v1/rubrics"


def test_experts_and_outsiders_get_403_on_every_rubric_endpoint(cast, client_for, criterion):
    for user in (cast.expert, cast.outsider):
        client = client_for(user)
        for url in ("criteria/", "revisions/", "audit/", "stale/?dataset=demo", "quality/?dataset=demo", "worklist/?dataset=demo"):
            assert client.get(f"{API}/{url}").status_code == 403, (user, url)
        assert client.post(f"{API}/revisions/", {"key": str(criterion.lineage_id)}).status_code == 403


def test_criteria_list_their_current_and_head_revision(cast, client_for, criterion):
    body = client_for(cast.reviewer).get(f"{API}/criteria/", {"dataset": "demo", "question_id": "dm0001"}).json()
    first = body["results"][0]
    assert first["key"] == str(criterion.lineage_id) and (first["current_revision"], first["head"]) == (1, 1)
    assert "model" not in first


def test_an_author_proposes_submits_and_the_panel_approves_through_the_api(cast, client_for, criterion):
    key = str(criterion.lineage_id)
    author = client_for(cast.author)
    created = author.post(
        f"{API}/revisions/",
        {"key": key, "text": criterion.text, "ability": "情绪感知", "weight": 4, "reason": "核心能力", "base_revision": 1},
        content_type="application/json",
    )
    assert created.status_code == 201 and created.json()["change_kind"] == "semantic"
    rev = created.json()["id"]
    assert author.post(f"{API}/revisions/{rev}/approve/").status_code == 403  # authors do not review
    assert author.post(f"{API}/revisions/{rev}/submit/").json()["status"] == "submitted"
    for reviewer in cast.reviewers:
        response = client_for(reviewer).post(f"{API}/revisions/{rev}/approve/", {"comment": ""}, content_type="application/json")
        assert response.status_code == 200
    assert response.json()["status"] == "approved" and response.json()["approvals"] == 4
    again = client_for(cast.reviewer).post(f"{API}/revisions/{rev}/approve/")
    assert again.status_code == 400


def test_the_api_refuses_bad_input_with_field_errors(cast, client_for, criterion):
    client = client_for(cast.author)
    response = client.post(
        f"{API}/revisions/",
        {"key": str(criterion.lineage_id), "text": "", "ability": "勇气", "weight": 0, "reason": "", "base_revision": 1},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"text", "ability", "weight", "reason"}
    assert not CriterionRevision.objects.exists()


def test_a_stale_base_revision_is_a_409_conflict(cast, client_for, criterion):
    payload = {
        "key": str(criterion.lineage_id),
        "text": "AI识别出用户的疲惫",
        "ability": "情绪感知",
        "weight": 3,
        "reason": "x",
        "base_revision": 1,
    }
    assert client_for(cast.author).post(f"{API}/revisions/", payload, content_type="application/json").status_code == 201
    payload["text"] = "AI识别出用户的倦怠"
    response = client_for(cast.author2).post(f"{API}/revisions/", payload, content_type="application/json")
    assert response.status_code == 409 and response.json()["head"] == 2 and "Conflict" in response.json()["detail"]


def test_reject_needs_a_comment_and_comments_thread(cast, client_for, criterion):
    client = client_for(cast.author)
    rev = client.post(
        f"{API}/revisions/",
        {
            "key": str(criterion.lineage_id),
            "text": criterion.text + "。",
            "ability": "情绪感知",
            "weight": 3,
            "reason": "标点",
            "base_revision": 1,
        },
        content_type="application/json",
    ).json()["id"]
    client.post(f"{API}/revisions/{rev}/submit/")
    reviewer = client_for(cast.reviewer)
    assert reviewer.post(f"{API}/revisions/{rev}/reject/", {}, content_type="application/json").status_code == 400
    assert (
        reviewer.post(f"{API}/revisions/{rev}/reject/", {"comment": "没必要"}, content_type="application/json").json()["status"]
        == "rejected"
    )
    posted = reviewer.post(f"{API}/revisions/{rev}/comments/", {"body": "补充说明"}, content_type="application/json")
    assert posted.status_code == 201
    thread = client_for(cast.admin).get(f"{API}/revisions/{rev}/comments/").json()
    assert [c["body"] for c in thread] == ["[Reject] 没必要", "补充说明"]


def test_an_addition_and_a_retirement_through_the_api(cast, client_for, criterion):
    client = client_for(cast.author)
    added = client.post(
        f"{API}/revisions/",
        {
            "action": "add",
            "dataset": "demo",
            "question_id": "dm0001",
            "text": "AI询问感受",
            "ability": "好奇心",
            "weight": 2,
            "reason": "gap",
        },
        content_type="application/json",
    )
    assert added.status_code == 201 and added.json()["change_kind"] == "addition"
    retired = client.post(
        f"{API}/revisions/",
        {"action": "retire", "key": str(criterion.lineage_id), "reason": "saturated", "base_revision": 1},
        content_type="application/json",
    )
    assert retired.status_code == 201 and retired.json()["change_kind"] == "retirement"
    missing = client.post(
        f"{API}/revisions/",
        {"action": "add", "dataset": "demo", "question_id": "nope", "text": "x", "ability": "好奇心", "weight": 2, "reason": "r"},
        content_type="application/json",
    )
    assert missing.status_code == 400 and "question_id" in missing.json()["errors"]
