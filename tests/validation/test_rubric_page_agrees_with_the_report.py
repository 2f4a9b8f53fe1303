"""The rubric page's judge–human agreement of a criterion equals the agreement report's figure for it.

They once disagreed (0.5 on the page, 1.0 in the report) on the same data: the page took the
majority of any two or more judgments, so a response whose third expert had not yet submitted
already counted with the two who had; the report waits for all k = 3 ratings of the blind test.
Both now call the same majority rule and agreement function of `heartbench_core.lib.agreement`.

They also differed on their units: the page pooled a response's judgments from anywhere, hidden
gold checks included, and always waited for 3 ratings. It now takes the report's units: each
blind-test campaign response, at its campaign's k, gold checks left out.
"""

import pytest
from django.urls import reverse

from annotation.models import Campaign, CampaignResponse
from heartbench_core.models import Criterion
from rubrics.selectors import quality_signals
from tests.factories import demo_responses, demo_version
from tests.rubrics.conftest import human_judgments, judge
from validation.services.agreement_reports import create_agreement_report

pytestmark = pytest.mark.django_db


@pytest.fixture
def criterion_data(cast):
    """dm0001's first criterion: the judge says hit on two responses; three experts judged one, two the other."""
    version = demo_version()
    demo_responses()
    criterion = Criterion.objects.select_related("lineage").get(item__version=version, item__question_id="dm0001", position=0)
    judge(version, "dm0001", {"demo-model-aurora": {0: True}, "demo-model-borealis": {0: True}})
    human_judgments(version, "dm0001", "demo-model-aurora", cast.experts, [{0: True}, {0: True}, {0: False}])
    # Two of the campaign's three experts have submitted, and both say miss: the unit is not complete.
    human_judgments(version, "dm0001", "demo-model-borealis", cast.experts[:2], [{0: False}, {0: False}])
    return version, criterion


def test_the_rubric_signal_equals_the_report_s_figure_for_the_criterion(cast, criterion_data):
    version, criterion = criterion_data
    page_figure = quality_signals(version.dataset)[criterion.lineage_id]["judge_human"]
    campaign = version.campaigns.get(name="blind")
    assert campaign.overlap == 3
    report = create_agreement_report(campaign=campaign, resamples=0)
    row = next(r for r in report.typed_result.by_criterion if r.key == str(criterion.lineage_id))
    assert (page_figure.value, page_figure.n) == (row.item_agreement.rate.value, row.pairs) == (1.0, 1)
    assert page_figure.extra["incomplete"] == 1 and report.typed_result.units.incomplete >= 1


def test_the_editor_page_and_the_api_show_the_report_s_figure(cast, client_for, criterion_data):
    _, criterion = criterion_data
    client = client_for(cast.author)
    editor = client.get(reverse("rubrics:editor", args=["demo", "dm0001"])).content.decode()
    assert "judge–human 100% <small>n=1</small>" in editor
    api = client.get("/api/v1/rubrics/quality/", {"dataset": "demo", "question_id": "dm0001"}).json()
    signal = api["criteria"][str(criterion.lineage_id)]["judge_human"]
    assert (signal["value"], signal["n"], signal["without_majority"]) == (1.0, 1, 1)


def report_row(campaign, criterion):
    report = create_agreement_report(campaign=campaign, resamples=0)
    return next(r for r in report.typed_result.by_criterion if r.key == str(criterion.lineage_id))


def test_a_hidden_gold_check_counts_on_neither_page(cast, criterion_data):
    """Before, the page counted this gold check, which the judge contradicts: 0.5 over 2 where the report says 1.0 over 1."""
    version, criterion = criterion_data
    judge(version, "dm0001", {"demo-model-cirrus": {0: True}})
    cirrus = human_judgments(version, "dm0001", "demo-model-cirrus", cast.experts, [{0: False}, {0: False}, {0: False}])
    assert CampaignResponse.objects.filter(campaign__name="blind", response=cirrus).update(is_gold=True) == 1
    page_figure = quality_signals(version.dataset)[criterion.lineage_id]["judge_human"]
    row = report_row(version.campaigns.get(name="blind"), criterion)
    assert (page_figure.value, page_figure.n) == (row.item_agreement.rate.value, row.pairs) == (1.0, 1)


def test_a_campaign_of_two_experts_per_response_is_compared_at_its_own_k(cast):
    """Before, the page waited for 3 ratings whatever the campaign: with k = 2 it showed no figure where the report showed 0.5."""
    version = demo_version()
    demo_responses()
    criterion = Criterion.objects.select_related("lineage").get(item__version=version, item__question_id="dm0001", position=0)
    campaign = Campaign.objects.create(name="pairs", version=version, overlap=2)
    judge(version, "dm0001", {"demo-model-aurora": {0: True}, "demo-model-borealis": {0: True}})
    human_judgments(version, "dm0001", "demo-model-aurora", cast.experts[:2], [{0: True}, {0: True}], campaign_name="pairs")
    human_judgments(version, "dm0001", "demo-model-borealis", cast.experts[:2], [{0: False}, {0: False}], campaign_name="pairs")
    page_figure = quality_signals(version.dataset)[criterion.lineage_id]["judge_human"]
    row = report_row(campaign, criterion)
    assert (page_figure.value, page_figure.n) == (row.item_agreement.rate.value, row.pairs) == (0.5, 2)
    assert page_figure.extra["without_majority"] == 0


def test_each_campaign_waits_for_its_own_k_when_a_criterion_has_units_in_two(cast, criterion_data):
    """A pair of a k = 2 campaign is complete while a blind test's response still waits for its third rating."""
    version, criterion = criterion_data
    Campaign.objects.create(name="pairs", version=version, overlap=2)
    human_judgments(version, "dm0001", "demo-model-borealis", cast.experts[1:], [{0: True}, {0: True}], campaign_name="pairs")
    page_figure = quality_signals(version.dataset)[criterion.lineage_id]["judge_human"]
    assert (page_figure.value, page_figure.n) == (1.0, 2)
    assert (page_figure.extra["incomplete"], page_figure.extra["without_majority"]) == (1, 1)
