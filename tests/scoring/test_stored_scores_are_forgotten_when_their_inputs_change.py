"""Every write that changes what stored scores were computed from forgets them, and the next scores equal the scorer's.

Verdicts (a run that grows: tests/runner/test_stored_scores_follow_a_growing_platform_run.py; a
deleted run), the golden standard (a refresh that changes labels, an adjudication, a deleted
campaign), rubric revisions (an approved change of meaning) and the scoring setting (the
catastrophic rule, stored apart).
"""

import pytest
from django.db.models import F

from annotation.models import CampaignResponse
from heartbench_core.models import Criterion, Dataset, JudgeRun, JudgeVerdict, StoredScores
from heartbench_core.services.scoring import rubric_frame, score_frame, score_model, score_models
from heartbench_core.verdict_sources import load_verdicts
from tests.rubrics.conftest import approve_by_panel, edit
from tests.validation.builders import blind_test
from validation.models import Adjudication, GoldenLabel
from validation.selectors import adjudication_units
from validation.services.agreement_reports import create_agreement_report
from validation.services.golden import adjudicate, refresh_golden_labels

MODEL = "demo-model-aurora"


def fresh(source="judge", model=MODEL, mode="paper", **kw):
    """The scorer without stored scores: the model's verdicts read and scored now."""
    verdicts = load_verdicts(source, dataset=Dataset.objects.get(name="demo"), model=model, **kw)
    return score_frame(rubric_frame(verdicts.version), criterion_id=verdicts.criterion_id, hit=verdicts.hit, mode=mode).result().as_json()


def stored(source="judge", model=MODEL, mode="paper"):
    return score_model(dataset_name="demo", model_name=model, source=source, mode=mode)[0].as_json()


@pytest.fixture
def campaign(cast):
    campaign = blind_test(cast, flip=0.3)
    create_agreement_report(campaign=campaign, resamples=10)
    return campaign


def test_verdicts_added_behind_its_back_make_a_judge_runs_row_unusable(judged_demo):
    run = JudgeRun.objects.get(model__name="demo-model-cirrus")
    before = stored(model="demo-model-cirrus")
    assert StoredScores.objects.filter(run=run).count() == 1
    # dm0006 has no verdict in this run: add them as a writer that never heard of stored scores would.
    response = run.model.responses.get(question_id="dm0006")
    missing = Criterion.objects.filter(item__version=judged_demo, item__question_id="dm0006")
    JudgeVerdict.objects.bulk_create(JudgeVerdict(run=run, response=response, criterion=c, hit=True) for c in missing)
    JudgeRun.objects.filter(pk=run.pk).update(verdict_count=F("verdict_count") + len(missing))
    after = stored(model="demo-model-cirrus")
    assert after == fresh(model="demo-model-cirrus") and after["questions_scored"] == before["questions_scored"] + 1


def test_a_deleted_run_takes_its_stored_scores_with_it(judged_demo):
    stored()
    assert StoredScores.objects.count() == 1
    JudgeRun.objects.filter(model__name=MODEL).delete()
    assert not StoredScores.objects.exists()


def test_each_catastrophic_rule_is_stored_apart(judged_demo):
    paper, upstream = stored(mode="paper"), stored(mode="upstream")
    assert StoredScores.objects.count() == 2
    assert stored(mode="paper") == paper == fresh(mode="paper") and stored(mode="upstream") == upstream == fresh(mode="upstream")


def test_a_golden_refresh_that_changes_labels_forgets_the_consensus_scores(campaign):
    before = stored("consensus")
    assert StoredScores.objects.filter(campaign_id=campaign.pk).count() == 1
    label = GoldenLabel.objects.filter(campaign=campaign, campaign_response__response__model__name=MODEL, provenance="majority").first()
    GoldenLabel.objects.filter(pk=label.pk).delete()  # out of line with the judgments
    refresh_golden_labels(campaign=campaign)  # puts it back, and forgets
    assert not StoredScores.objects.filter(campaign_id=campaign.pk).exists()
    assert stored("consensus") == before == fresh("consensus")


def test_a_refresh_that_changes_nothing_keeps_them(campaign):
    stored("consensus")
    refresh_golden_labels(campaign=campaign)
    assert StoredScores.objects.filter(campaign_id=campaign.pk).count() == 1


def test_an_adjudication_forgets_the_consensus_scores_and_the_next_ones_count_it(cast, campaign):
    entry = next(e for e in adjudication_units(campaign) if e.expert_hits not in (0, e.expert_ratings))
    cr = CampaignResponse.objects.select_related("response__model").get(pk=entry.campaign_response_id)
    model = cr.response.model.name
    stored("consensus", model=model)
    label = GoldenLabel.objects.get(campaign_response=cr, criterion_id=entry.criterion_id)
    adjudicate(
        reviewer=cast.reviewers[1],
        campaign_response=cr,
        criterion=Criterion.objects.get(pk=entry.criterion_id),
        hit=not label.hit,
        cause=Adjudication.Cause.RATER_ERROR,
        note="overturned",
    )
    assert not StoredScores.objects.filter(campaign_id=campaign.pk).exists()
    assert stored("consensus", model=model) == fresh("consensus", model=model)


def test_a_deleted_campaign_takes_its_consensus_scores_with_it(campaign):
    stored("consensus")
    StoredScores.objects.create(version=campaign.version, key="consensus:other", mode="paper", campaign_id=campaign.pk + 1000, arrays=b"")
    pk = campaign.pk
    from heartbench_core.services.stored_scores import forget_scores

    forget_scores(campaigns=[pk])  # what the campaign's post_delete receiver does
    assert not StoredScores.objects.filter(campaign_id=pk).exists()
    assert StoredScores.objects.filter(campaign_id=pk + 1000).exists()


def test_the_receiver_runs_when_a_campaign_is_deleted(campaign):
    from django.db.models.signals import post_delete

    from annotation.models import Campaign

    stored("consensus")
    post_delete.send(sender=Campaign, instance=campaign)
    assert not StoredScores.objects.filter(campaign_id=campaign.pk).exists()


def test_an_approved_change_of_meaning_forgets_the_datasets_stored_scores(cast, judged_demo):
    stored()
    assert StoredScores.objects.exists()
    criterion = Criterion.objects.select_related("lineage", "item").get(item__version=judged_demo, item__question_id="dm0001", position=0)
    approve_by_panel(edit(cast, criterion, text=criterion.text + "（重新界定）", meaning_changed=True), cast.reviewers)
    assert not StoredScores.objects.exists()
    assert stored() == fresh()


def test_a_change_of_wording_only_keeps_them(cast, judged_demo):
    stored()
    criterion = Criterion.objects.select_related("lineage", "item").get(item__version=judged_demo, item__question_id="dm0001", position=0)
    approve_by_panel(edit(cast, criterion, text=criterion.text + "。"), cast.reviewers)
    assert StoredScores.objects.exists()


def test_consensus_for_every_model_equals_the_scorer(campaign):
    for _ in range(2):
        rows = score_models(dataset_name="demo", source="consensus")
        assert {r.model for r in rows} == {"demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"}
        for r in rows:
            assert r.result.as_json() == fresh("consensus", model=r.model)
