"""The library's API: list, search, create, review and publish, through the same services and rules as the pages."""

import pytest

from annotation.knowledge.models import Case, DatasetGuidelines, FaqEntry, LibraryOpen
from tests.annotation.knowledge.conftest import calibration_item, published_faq, written_case

pytestmark = pytest.mark.django_db
API = "/api/v1/annotation/library"


def test_a_faq_entry_is_created_submitted_reviewed_and_published_through_the_api(cast, library, client_for):
    criterion = library.criterion()
    author = client_for(cast.author)
    bad = author.post(
        f"{API}/faq/", {"dataset": "demo", "question": "", "answer": "a", "criteria": ["nope"]}, content_type="application/json"
    )
    assert bad.status_code == 400 and set(bad.json()["errors"]) == {"question", "criteria"}
    created = author.post(
        f"{API}/faq/",
        {"dataset": "demo", "question": "隐含的共情算吗？", "answer": "算。", "tags": ["共情"], "criteria": [str(criterion.lineage_id)]},
        content_type="application/json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["status"] == "draft" and body["criteria"] == [str(criterion.lineage_id)] and body["author"] == cast.author.username
    pk = body["id"]
    assert author.post(f"{API}/faq/{pk}/submit/").json()["status"] == "in_review"
    assert author.post(f"{API}/faq/{pk}/review/", {"publish": True}, content_type="application/json").status_code == 403
    reviewer = client_for(cast.reviewer)
    back = reviewer.post(f"{API}/faq/{pk}/review/", {"publish": False}, content_type="application/json")
    assert back.status_code == 400 and "note" in back.json()["errors"]
    published = reviewer.post(f"{API}/faq/{pk}/review/", {"publish": True}, content_type="application/json").json()
    assert published["status"] == "published" and published["reviewer"] == cast.reviewer.username


def test_experts_read_the_api_without_any_staff_field_and_their_reads_are_recorded(cast, library, client_for):
    entry = published_faq(cast, library.dataset)
    FaqEntry.objects.create(dataset=library.dataset, question="草稿", answer="x", author=cast.author)
    case = written_case(cast, library.criterion())
    expert = client_for(cast.expert)
    listed = expert.get(f"{API}/faq/").json()
    assert listed["count"] == 1
    assert set(listed["results"][0]) == {
        "id",
        "uid",
        "dataset",
        "question",
        "answer",
        "html",
        "tags",
        "abilities",
        "criteria",
        "published_at",
    }
    one = expert.get(f"{API}/cases/{case.pk}/").json()
    assert not {"status", "cause", "source", "author", "source_campaign", "source_response", "invented"} & set(one)
    assert expert.get(f"{API}/faq/{entry.pk}/").status_code == 200
    assert LibraryOpen.objects.filter(user=cast.expert).count() == 2
    assert (
        expert.post(f"{API}/faq/", {"dataset": "demo", "question": "q", "answer": "a"}, content_type="application/json").status_code == 403
    )


def test_search_answers_ranked_hits_with_marked_segments(cast, library, client_for):
    published_faq(cast, library.dataset, question="怎样算共情？", answer="用户的感受被说出来就算共情。")
    written_case(cast, library.criterion(), title="隐含的共情")
    answer = client_for(cast.expert).get(f"{API}/search/", {"q": "共情"}).json()
    assert answer["terms"] == ["共情"] and answer["faq_total"] == 1 and answer["case_total"] == 1
    hit = answer["faq"][0]
    assert {"text": "共情", "marked": True} in hit["title"] and hit["score"] > 0
    assert client_for(cast.expert).get(f"{API}/search/").status_code == 400  # q is required
    assert client_for(cast.expert).get(f"{API}/search/", {"q": "共情", "key": "not-a-uuid"}).status_code == 400


def test_cases_are_created_from_scratch_or_a_calibration_item_and_published(cast, library, client_for):
    reviewer = client_for(cast.reviewer)
    criterion = library.criterion()
    neither = reviewer.post(f"{API}/cases/", {"title": "t", "excerpt": "e", "reasoning": "r"}, content_type="application/json")
    assert neither.status_code == 400
    made = reviewer.post(
        f"{API}/cases/",
        {
            "criterion": str(criterion.lineage_id),
            "title": "隐含的共情",
            "excerpt": "你一定很累吧。",
            "hit": True,
            "reasoning": "说出了感受。",
        },
        content_type="application/json",
    )
    assert made.status_code == 201 and made.json()["status"] == "draft"
    pk = made.json()["id"]
    assert (
        reviewer.patch(
            f"{API}/cases/{pk}/", {"title": "新", "excerpt": "e", "hit": False, "reasoning": "r"}, content_type="application/json"
        ).json()["hit"]
        is False
    )
    assert reviewer.post(f"{API}/cases/{pk}/publish/").json()["status"] == "published"
    entry = calibration_item(library)
    from_item = reviewer.post(
        f"{API}/cases/",
        {
            "calibration_entry": entry.pk,
            "calibration_criterion": entry.item.criteria.get(position=0).pk,
            "title": "校准",
            "excerpt": "（节选）",
            "reasoning": "参考判定。",
        },
        content_type="application/json",
    ).json()
    assert from_item["hit"] is True and from_item["source"] == "calibration"
    assert Case.objects.count() == 2
    assert client_for(cast.author).post(f"{API}/cases/", {}, content_type="application/json").status_code == 403


def test_dataset_guidelines_are_listed_to_staff_and_published_by_admins_and_authors(cast, library, client_for):
    url = f"{API}/guidelines/demo/"
    assert client_for(cast.author).post(url, {"body": "先写理由。"}, content_type="application/json").status_code == 201
    assert client_for(cast.reviewer).post(url, {"body": "x"}, content_type="application/json").status_code == 403
    assert client_for(cast.reviewer).get(url).json()[0]["revision"] == 1
    assert client_for(cast.expert).get(url).status_code == 403
    assert DatasetGuidelines.objects.count() == 1


def test_beside_an_assignment_the_api_gives_the_criterion_in_focus_and_records_opens(cast, library, client_for):
    from annotation.models import Assignment

    assignment = Assignment.objects.create(campaign_response=library.entry(), expert=cast.expert)
    first = assignment.campaign_response.item.criteria.get(position=0)
    entry = published_faq(cast, library.dataset, criteria=[first.lineage_id])
    case = written_case(cast, first)
    client = client_for(cast.expert)
    url = f"/api/v1/annotation/assignments/{assignment.public_id}/library/"
    body = client.get(url, {"criterion": first.pk, "q": "共情"}).json()
    assert [e["id"] for e in body["faq"]] == [entry.pk] and [c["id"] for c in body["cases"]] == [case.pk]
    assert "source" not in body["cases"][0] and body["search"]["faq_total"] == 1
    opened = client.post(f"{url}opens/", {"faq": entry.pk, "criterion": first.pk}, content_type="application/json")
    assert opened.status_code == 201
    client.post(f"{url}opens/", {"faq": entry.pk, "helped": True}, content_type="application/json")
    row = LibraryOpen.objects.get(faq=entry)
    assert row.campaign == library.campaign and row.lineage_id == first.lineage_id and row.helped is True
    assert client.post(f"{url}opens/", {}, content_type="application/json").status_code == 400
    assert client_for(cast.experts[1]).get(url).status_code == 404  # the same client, now signed in as another expert
