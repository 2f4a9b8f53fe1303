"""The judge–model risk alert labels units by the campaign's k, as the golden standard and the report do.

It used to label with k = 3 whatever the campaign: at k = 2 no unit ever had a label, so a model the
judge got wrong on 60% of the criteria raised nothing; at k = 4 it labelled units after 3 ratings.
"""

import pytest

from annotation.models import AdminAlert, Campaign
from annotation.services.risks import check_risks
from tests.factories import demo_responses, demo_version
from tests.validation.builders import as_file, judge_vectors, judge_verdicts
from validation import risks
from validation.services.imports import import_judgments

pytestmark = pytest.mark.django_db

WRONG_MODEL = "demo-model-aurora"


def expert_lines(annotators):
    """Every annotator judges every response as the judge did, except on 2 of 5 criteria of WRONG_MODEL (all of them alike)."""
    lines = []
    for (qid, model), vec in sorted(judge_vectors().items()):
        detail = [int(v) ^ int(model == WRONG_MODEL and i % 5 in (0, 2)) for i, v in enumerate(vec)]
        for annotator in annotators:
            lines.append({"question_id": qid, "model": model, "annotator": annotator, "detail": detail})
    return lines


def running_blind_test(experts, *, overlap=None):
    demo_version()
    demo_responses()
    judge_verdicts()
    campaign = import_judgments(
        source=as_file(expert_lines([e.username for e in experts])), dataset_name="demo", campaign_name="blind-k"
    ).campaign
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.ACTIVE, **({"overlap": overlap} if overlap else {}))
    return Campaign.objects.get(pk=campaign.pk)


def judge_alerts():
    return list(AdminAlert.objects.filter(kind=AdminAlert.Kind.JUDGE_DISAGREES_ON_MODEL))


def test_at_k_2_a_model_the_judge_gets_wrong_raises_the_alert(cast):
    campaign = running_blind_test(cast.experts[:2])
    assert campaign.overlap == 2
    check_risks()
    (alert,) = judge_alerts()
    d = alert.details
    assert d["model"] == WRONG_MODEL and alert.language_model.name == WRONG_MODEL
    assert d["units"] >= risks.JUDGE_MIN_UNITS and d["value"] < risks.JUDGE_MIN_AGREEMENT and d["without_majority"] == 0


def test_at_k_4_units_with_3_ratings_have_no_majority_yet_and_raise_nothing(cast):
    running_blind_test(cast.experts, overlap=4)
    check_risks()
    assert judge_alerts() == []


def test_at_k_3_the_same_judgments_raise_it(cast):
    campaign = running_blind_test(cast.experts)
    assert campaign.overlap == 3
    check_risks()
    assert [a.details["model"] for a in judge_alerts()] == [WRONG_MODEL]
