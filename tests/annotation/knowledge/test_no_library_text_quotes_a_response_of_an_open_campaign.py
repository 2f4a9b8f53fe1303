"""No FAQ entry or case quotes a response of a campaign that is not closed (20 characters alike, whitespace aside), however written:
the page, the API, the services; a case may quote only the real response it was made from, which the visibility rules protect."""

import pytest
from django.core.exceptions import ValidationError

from annotation.knowledge.models import Case, FaqEntry
from annotation.knowledge.services.knowledge import (
    CaseContent,
    CaseSource,
    FaqContent,
    create_case,
    create_faq_entry,
    review_faq_entry,
    submit_faq_entry,
)
from annotation.models import Campaign, CampaignResponse
from heartbench_core.models import ModelResponse

pytestmark = pytest.mark.django_db
API = "/api/v1/annotation/library"


def _quote(response: ModelResponse, start: int = 2) -> str:
    """22 characters of the response, split by a line break and a space (whitespace is no part of a quote)."""
    text = "".join(response.text.split())
    return f"{text[start : start + 10]}\n{text[start + 10 : start + 16]} {text[start + 16 : start + 22]}"


def _close(campaign: Campaign) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.CLOSED)


def _content(**changes) -> CaseContent:
    values = {"title": "隐含的共情", "excerpt": "你一定累坏了吧。", "hit": True, "reasoning": "说出了用户的感受。"}
    return CaseContent(**(values | changes))


def test_a_case_written_from_scratch_on_the_page_may_not_quote_a_running_response(cast, library, client_for):
    criterion = library.criterion()
    form = {"criterion": str(criterion.lineage_id), "title": "说出感受", "hit": "hit", "reasoning": "说出了用户的感受。", "publish": "on"}
    form["excerpt"] = f"回复：{_quote(library.entry('dm0002').response)}"  # a response to another item: still the running campaign's
    page = client_for(cast.reviewer).post("/work/library/cases/new/", form)
    assert page.status_code == 400 and "still open" in page.content.decode()
    assert library.campaign.name not in page.content.decode()
    assert not Case.objects.exists()
    _close(library.campaign)
    assert client_for(cast.reviewer).post("/work/library/cases/new/", form).status_code == 302
    assert Case.objects.get().status == Case.Status.PUBLISHED


def test_the_api_refuses_it_naming_the_field_and_not_the_campaign(cast, library, client_for):
    body = {"criterion": str(library.criterion().lineage_id), "title": "说出感受", "hit": True, "excerpt": "你一定累坏了吧。"}
    body["reasoning"] = f"像这样：{_quote(library.entry().response)}"
    answer = client_for(cast.reviewer).post(f"{API}/cases/", body, content_type="application/json")
    assert answer.status_code == 400 and list(answer.json()["errors"]) == ["reasoning"]
    assert library.campaign.name not in answer.content.decode() and "demo-model" not in answer.content.decode()
    assert not Case.objects.exists()


def test_a_hidden_gold_check_of_a_draft_campaign_counts_and_a_closed_campaign_does_not(cast, library):
    _close(library.campaign)
    response = library.entry("dm0003").response
    quoting = _content(excerpt=_quote(response))
    gold = Campaign.objects.create(name="Gold", kind=Campaign.Kind.GOLD_SET, version=library.version, status=Campaign.Status.DRAFT)
    CampaignResponse.objects.create(campaign=gold, response=response, item=library.entry("dm0003").item, is_gold=True)
    with pytest.raises(ValidationError) as refused:
        create_case(author=cast.reviewer, criterion=library.criterion(), content=quoting)
    assert list(refused.value.message_dict) == ["excerpt"]
    _close(gold)
    assert create_case(author=cast.reviewer, criterion=library.criterion(), content=quoting).excerpt


def test_a_case_from_a_decision_quotes_its_own_response_and_no_other(cast, library):
    entry, other = library.entry("dm0001"), library.entry("dm0002")
    source = CaseSource(Case.Source.ADJUDICATION, library.campaign, entry.response)
    own = create_case(author=cast.reviewer, criterion=library.criterion(), content=_content(excerpt=_quote(entry.response)), source=source)
    assert own.excerpt  # hidden from whoever rates it by the visibility rules
    with pytest.raises(ValidationError) as refused:
        create_case(author=cast.reviewer, criterion=library.criterion(), content=_content(title=_quote(other.response)), source=source)
    assert list(refused.value.message_dict) == ["title"]
    invented = _content(excerpt="（虚构的回复）听起来你最近压力很大。", reasoning=f"原话是：{_quote(entry.response, 6)}", invented=True)
    with pytest.raises(ValidationError) as rewritten:  # an invented case reaches experts while the campaign runs: no quote at all
        create_case(author=cast.reviewer, criterion=library.criterion(), content=invented, source=source)
    assert list(rewritten.value.message_dict) == ["reasoning"]


def test_a_faq_entry_is_checked_when_written_and_again_when_published(cast, library):
    response = library.entry("dm0004").response
    with pytest.raises(ValidationError) as refused:
        create_faq_entry(author=cast.author, dataset=library.dataset, content=FaqContent(question="怎样算共情？", answer=_quote(response)))
    assert list(refused.value.message_dict) == ["answer"] and not FaqEntry.objects.exists()
    _close(library.campaign)
    entry = create_faq_entry(
        author=cast.author, dataset=library.dataset, content=FaqContent(question="怎样算共情？", answer=_quote(response))
    )
    submit_faq_entry(entry=entry, author=cast.author)
    Campaign.objects.filter(pk=library.campaign.pk).update(status=Campaign.Status.ACTIVE)  # reopened before the review
    with pytest.raises(ValidationError) as at_review:
        review_faq_entry(entry=entry, reviewer=cast.reviewer, approve=True)
    assert "answer" in at_review.value.message_dict
    assert FaqEntry.objects.get().status == FaqEntry.Status.IN_REVIEW


def test_the_check_reads_an_index_in_three_queries_which_follows_new_campaigns(cast, library, django_assert_num_queries):
    from annotation.knowledge.models import FingerprintedResponse, ResponseFingerprint
    from annotation.knowledge.services.quotes import open_campaign_quotes

    texts = {"title": "隐含的共情", "reasoning": f"回复：{_quote(library.entry('dm0005').response)}"}
    assert set(open_campaign_quotes(texts)) == {"reasoning"}
    sampled = CampaignResponse.objects.filter(campaign=library.campaign).values("response_id").distinct().count()
    assert FingerprintedResponse.objects.count() == sampled and ResponseFingerprint.objects.exists()
    with django_assert_num_queries(3):  # responses still to index; those holding one of the fingerprints; their texts
        assert set(open_campaign_quotes(texts)) == {"reasoning"}
    with django_assert_num_queries(2):  # no response holds one: no text is read
        assert open_campaign_quotes({"title": "隐含的共情也算命中：回复说出了用户的感受却没有提到共情"}) == {}
    _close(library.campaign)
    assert open_campaign_quotes(texts) == {}


def test_a_new_campaign_has_a_background_job_fingerprint_its_responses(cast, library, monkeypatch, django_capture_on_commit_callbacks):
    from django.utils.module_loading import import_string

    from annotation.knowledge.models import FingerprintedResponse
    from annotation.services.campaigns import create_campaign
    from tests.annotation.knowledge.conftest import MODELS

    sent = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda path, **kwargs: sent.append(path) or import_string(path)())
    with django_capture_on_commit_callbacks(execute=True):
        campaign = create_campaign(
            name="Another blind test",
            dataset_name="demo",
            model_names=MODELS,
            sample_fraction=1.0,
            overlap=1,
            expert_usernames=[cast.expert.username],
            requires_qualification=False,
        ).campaign
    assert sent == ["annotation.knowledge.services.quotes.fingerprint_open_responses"]
    responses = set(campaign.responses.values_list("response_id", flat=True))
    assert responses <= set(FingerprintedResponse.objects.values_list("response_id", flat=True))
