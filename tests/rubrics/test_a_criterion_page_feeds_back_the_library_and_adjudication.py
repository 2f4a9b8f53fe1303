"""A criterion's page in the rubric editor lists its FAQ entries, its cases and the causes decided against it; many
"ambiguous criterion" decisions raise it, with high severity, in the authors' work list. Nothing of a campaign the
viewer rates in is counted."""

import pytest

from annotation.knowledge.models import Case
from annotation.knowledge.services.knowledge import CaseContent, FaqContent, create_case, create_faq_entry
from annotation.services.campaigns import create_campaign
from heartbench_core.blindness import blind_scope
from heartbench_core.models import Criterion
from heartbench_core.roles import Role
from rubrics import selectors
from tests.conftest import make_user
from tests.factories import demo_responses, demo_version
from validation.models import Adjudication

pytestmark = pytest.mark.django_db
MODELS = ["demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"]


@pytest.fixture
def decided(cast):
    """A blind test with four units of one criterion decided as "ambiguous criterion" and one as "rater error"."""
    demo_version()
    demo_responses()
    campaign = create_campaign(
        name="Decided",
        dataset_name="demo",
        model_names=MODELS,
        sample_fraction=1.0,
        overlap=1,
        expert_usernames=[e.username for e in cast.experts],
        requires_qualification=False,
    ).campaign
    entries = list(campaign.responses.select_related("item").order_by("item__question_id", "order_key"))
    criterion = Criterion.objects.get(item=entries[0].item, position=0)
    same_item = [e for e in entries if e.item_id == criterion.item_id]
    causes = ["ambiguous_criterion", "ambiguous_criterion", "rater_error"]
    for entry, cause in zip(same_item, causes):
        Adjudication.objects.create(
            campaign_response=entry,
            criterion=criterion,
            hit=True,
            cause=cause,
            note="n",
            expert_hits=1,
            expert_ratings=2,
            decided_by=cast.reviewer,
        )
    # A unit decided twice counts once, by its newest cause.
    Adjudication.objects.create(
        campaign_response=same_item[2],
        criterion=criterion,
        hit=False,
        cause="ambiguous_criterion",
        note="n2",
        expert_hits=1,
        expert_ratings=2,
        decided_by=cast.reviewer,
    )
    return campaign, criterion, same_item


def test_many_ambiguous_criterion_causes_raise_the_criterion_with_high_severity(cast, decided):
    campaign, criterion, _entries = decided
    items = selectors.work_list(campaign.version.dataset, kind="adjudicated")
    assert [(w.criterion_key, w.severity_name, w.strength) for w in items] == [(str(criterion.lineage_id), "high", 3)]
    assert "3 adjudicated units" in items[0].detail and items[0].question_id == criterion.item.question_id
    everything = selectors.work_list(campaign.version.dataset)
    assert everything[0].kind in ("ambiguous", "adjudicated")  # high severity, listed first


def test_fewer_than_the_threshold_raise_nothing(cast, decided, settings):
    campaign, _criterion, _entries = decided
    settings.RUBRICS_AMBIGUITY = {"min_adjudicated": 4}
    assert selectors.work_list(campaign.version.dataset, kind="adjudicated") == []


def test_the_criterion_page_lists_its_faq_entries_cases_and_causes(cast, decided, client_for):
    campaign, criterion, _entries = decided
    create_faq_entry(
        author=cast.author,
        dataset=campaign.version.dataset,
        content=FaqContent(question="这条怎么判？", answer="a", criteria=[criterion.lineage_id]),
    )
    create_case(
        author=cast.reviewer,
        criterion=criterion,
        content=CaseContent(title="隐含的共情", excerpt="e", hit=True, reasoning="r", cause="ambiguous_criterion"),
    )
    page = client_for(cast.author).get(f"/rubrics/criteria/{criterion.lineage_id}/history/").content.decode()
    assert "这条怎么判？" in page and "隐含的共情" in page
    assert "Ambiguous criterion: 3" in page and "Rater error" not in page  # the unit decided twice counts by its newest cause
    assert "3 decided units of this criterion" in page
    assert f"/work/library/faq/new/?dataset=demo&amp;criterion={criterion.lineage_id}" in page


def test_decisions_on_responses_of_a_campaign_the_viewer_rates_in_are_not_counted(cast, decided, client_for):
    campaign, criterion, _entries = decided
    dual = make_user("rita_dual", Role.RUBRIC_AUTHOR, Role.EXPERT)
    campaign.experts.add(dual)  # the campaign is still open: its decisions are closed to a rater of it
    assert selectors.work_list(campaign.version.dataset, kind="adjudicated", leave_out=blind_scope(dual).response_ids) == []
    page = client_for(dual).get(f"/rubrics/criteria/{criterion.lineage_id}/history/").content.decode()
    assert "No adjudication decision on this criterion yet." in page
    assert Case.objects.count() == 0
