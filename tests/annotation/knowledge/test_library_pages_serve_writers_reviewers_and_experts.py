"""The library's pages: writers draft and submit FAQ entries, another writer reviews them, experts read and search."""

import re

import pytest
from django.urls import reverse

from annotation.knowledge.models import Case, DatasetGuidelines, FaqEntry, LibraryOpen
from tests.annotation.knowledge.conftest import calibration_item, published_faq, written_case

pytestmark = pytest.mark.django_db


def test_a_faq_entry_goes_from_draft_to_review_to_published_through_the_pages(cast, library, client_for):
    criterion = library.criterion("dm0001", 1)
    client = client_for(cast.author)
    form = client.get(reverse("annotation:faq_create") + f"?criterion={criterion.lineage_id}")
    assert form.status_code == 200 and str(criterion.lineage_id) in form.content.decode()
    refused = client.post(reverse("annotation:faq_create"), {"dataset": "demo", "question": "", "answer": "a", "criteria": "dm0001#99"})
    assert refused.status_code == 400 and not FaqEntry.objects.exists()
    body = refused.content.decode()
    assert "This field is required." in body and "dm0001#99" in body
    created = client.post(
        reverse("annotation:faq_create"),
        {
            "dataset": "demo",
            "question": "隐含的共情算命中吗？",
            "answer": "**算**：说出感受即可。",
            "tags": "共情, 命中",
            "criteria": "dm0001#2",
            "abilities": [criterion.ability],
        },
    )
    entry = FaqEntry.objects.get()
    assert created.status_code == 302 and created["Location"] == reverse("annotation:faq", args=[entry.pk])
    assert list(entry.lineages.all()) == [criterion.lineage] and entry.tags == ["共情", "命中"]
    assert client.post(reverse("annotation:faq_submit", args=[entry.pk])).status_code == 302
    # Its author cannot review it; another writer can.
    assert client.post(reverse("annotation:faq_review", args=[entry.pk]), {"decision": "publish"}).status_code == 403
    entry.refresh_from_db()
    assert entry.status == FaqEntry.Status.IN_REVIEW
    reviewer = client_for(cast.reviewer)
    page = reviewer.get(reverse("annotation:faq", args=[entry.pk])).content.decode()
    assert 'value="publish"' in page
    assert entry.question in reviewer.get(reverse("annotation:faq_review_queue")).content.decode()
    reviewer.post(reverse("annotation:faq_review", args=[entry.pk]), {"decision": "publish"})
    entry.refresh_from_db()
    assert entry.status == FaqEntry.Status.PUBLISHED and entry.reviewer == cast.reviewer


def test_experts_read_published_entries_and_their_opening_is_recorded(cast, library, client_for):
    entry = published_faq(cast, library.dataset, answer="**说出感受**即可。")
    draft = FaqEntry.objects.create(dataset=library.dataset, question="草稿", answer="x", author=cast.author)
    client = client_for(cast.expert)
    listing = client.get(reverse("annotation:library")).content.decode()
    assert entry.question in listing and "草稿" not in listing
    page = client.get(reverse("annotation:faq", args=[entry.pk]))
    assert page.status_code == 200 and "<strong>说出感受</strong>" in page.content.decode()
    assert "rita_author" not in page.content.decode()  # experts are not told who wrote it
    assert client.get(reverse("annotation:faq", args=[draft.pk])).status_code == 404
    assert LibraryOpen.objects.filter(user=cast.expert, faq=entry, campaign=None).count() == 1
    assert client.get(reverse("annotation:faq_create")).status_code == 403


def test_searching_the_library_page_marks_the_matches(cast, library, client_for):
    published_faq(cast, library.dataset, question="怎样算共情？", answer="用户的感受被说出来。")
    written_case(cast, library.criterion(), title="隐含的共情")
    page = client_for(cast.expert).get(reverse("annotation:library") + "?q=共情").content.decode()
    assert "<mark>共情</mark>" in page and "隐含的<mark>共情</mark>" in page
    partial = client_for(cast.expert).get(reverse("annotation:library") + "?q=共情", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and "<mark>共情</mark>" in partial


def test_senior_reviewers_write_cases_from_scratch_and_from_calibration_items(cast, library, client_for):
    client = client_for(cast.reviewer)
    criterion = library.criterion("dm0001", 0)
    url = reverse("annotation:case_create") + f"?criterion={criterion.lineage_id}"
    assert criterion.text in client.get(url).content.decode()
    posted = client.post(
        reverse("annotation:case_create"),
        {
            "criterion": str(criterion.lineage_id),
            "title": "说出感受",
            "excerpt": "你一定很累吧。",
            "hit": "hit",
            "reasoning": "说出了感受。",
            "cause": "other",
            "publish": "on",
        },
    )
    case = Case.objects.get()
    assert posted.status_code == 302 and case.status == Case.Status.PUBLISHED and case.lineage == criterion.lineage
    entry = calibration_item(library)
    second = entry.item.criteria.get(position=1)
    url = reverse("annotation:case_create") + f"?entry={entry.pk}&item_criterion={second.pk}"
    form = client.get(url).content.decode()
    assert "参考判定：第2条的理由。" in form and re.search(r'value="miss"[^>]*checked', form)
    client.post(
        reverse("annotation:case_create"),
        {
            "entry": entry.pk,
            "item_criterion": second.pk,
            "title": "校准题",
            "excerpt": "（节选）",
            "hit": "miss",
            "reasoning": "参考判定。",
            "cause": "other",
        },
    )
    made = Case.objects.get(source=Case.Source.CALIBRATION)
    assert made.hit is False and made.status == Case.Status.DRAFT and made.source_campaign == entry.campaign
    assert client_for(cast.author).get(reverse("annotation:case_create")).status_code == 403


def test_admins_and_authors_publish_dataset_guidelines_and_reviewers_read_them(cast, library, client_for):
    url = reverse("annotation:dataset_guidelines", args=["demo"])
    posted = client_for(cast.author).post(url, {"body": "# 总则\n先写理由。", "change_note": "初版"})
    assert posted.status_code == 302 and DatasetGuidelines.objects.get().revision == 1
    page = client_for(cast.reviewer).get(url).content.decode()
    assert "<h1>总则</h1>" in page and 'name="body"' not in page
    assert client_for(cast.reviewer).post(url, {"body": "x"}).status_code == 403
    assert client_for(cast.expert).get(url).status_code == 403


def test_a_senior_reviewer_turns_an_adjudication_decision_into_a_case(cast, library, client_for):
    from annotation.models import Assignment
    from validation.models import Adjudication

    entry = library.entry("dm0001")
    criterion = entry.item.criteria.get(position=0)
    decision = Adjudication.objects.create(
        campaign_response=entry,
        criterion=criterion,
        hit=True,
        cause="ambiguous_criterion",
        note="隐含的共情算命中。",
        expert_hits=1,
        expert_ratings=2,
        decided_by=cast.reviewer,
    )
    client = client_for(cast.reviewers[1])
    url = reverse("validation:unit-case", args=[library.campaign.pk, entry.pk, criterion.pk])
    form = client.get(url).content.decode()
    assert "隐含的共情算命中。" in form and entry.response.text[:10] in form
    refused = client.post(
        url, {"title": "隐含的共情", "excerpt": "（节选）", "hit": "miss", "reasoning": "r", "cause": "ambiguous_criterion"}
    )
    assert refused.status_code == 400 and not Case.objects.exists()
    client.post(
        url, {"title": "隐含的共情", "excerpt": "你一定很累吧。", "hit": "hit", "reasoning": "说出了感受。", "cause": "ambiguous_criterion"}
    )
    case = Case.objects.get()
    assert (case.source, case.source_adjudication_id, case.source_campaign, case.source_response) == (
        Case.Source.ADJUDICATION,
        decision.pk,
        library.campaign,
        entry.response,
    )
    Assignment.objects.create(campaign_response=entry, expert=cast.reviewers[2])
    assert client_for(cast.reviewers[2]).get(url).status_code == 403  # a rater of the response writes no case on it
    assert client_for(cast.author).get(url).status_code == 403
