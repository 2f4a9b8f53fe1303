"""The scheduled risk check flags a criterion the experts split on, in a blind test of 2 or 3 models.

A criterion belongs to one item, so it has one response per model. The check used to need
Krippendorff's alpha over 5 responses and never fired with fewer than 5 models. It now counts the
responses the experts split on (at the campaign's k) against the other criteria's split rate.
"""

import pytest
from django.utils import translation

from annotation.manage.needs_action_selectors import alert_text
from annotation.models import AdminAlert, Campaign
from annotation.services.risks import check_risks
from heartbench_core.models import Criterion
from tests.factories import demo_responses, demo_version
from tests.validation.builders import MODELS, as_file, judge_vectors
from validation.services.imports import import_judgments

pytestmark = pytest.mark.django_db

SPLIT = ("dm0003", 1)  # question, position (0-based) of the criterion the experts split on


def lines(annotators, models):
    """Experts agree on every criterion of these models' responses, except SPLIT: there the last one disagrees."""
    out = []
    for (qid, model), vec in sorted(judge_vectors().items()):
        if model not in models:
            continue
        for n, annotator in enumerate(annotators):
            detail = [int(v) ^ int((qid, i) == SPLIT and n == len(annotators) - 1) for i, v in enumerate(vec)]
            out.append({"question_id": qid, "model": model, "annotator": annotator, "detail": detail})
    return out


def running_blind_test(cast, models):
    demo_version()
    demo_responses()
    campaign = import_judgments(
        source=as_file(lines([e.username for e in cast.experts], models)), dataset_name="demo", campaign_name="blind-split"
    ).campaign
    Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.ACTIVE)
    return campaign


@pytest.mark.parametrize("models", [MODELS[:2], MODELS], ids=["2 models", "3 models"])
def test_a_criterion_split_on_every_response_is_flagged(cast, models):
    campaign = running_blind_test(cast, models)
    check_risks()
    (alert,) = AdminAlert.objects.filter(kind=AdminAlert.Kind.CRITERION_LOW_ALPHA)
    criterion = Criterion.objects.get(pk=alert.criterion_id)
    assert (criterion.item.question_id, criterion.position) == SPLIT and alert.campaign_id == campaign.pk
    d = alert.details
    assert d["signal"] == "split" and d["split"] == d["units"] == len(models) and d["ratings"] == 3 * len(models)
    assert d["others_rate"] == 0.0 and d["p_value"] == 0.0 and d["threshold"] == 0.05
    assert alert_text(alert).startswith(
        f"Experts of blind-split split on criterion {SPLIT[1] + 1} of {SPLIT[0]}: on {len(models)} of {len(models)} responses"
    )
    with translation.override("zh-hans"):
        assert "专家" in alert_text(alert)


def test_a_single_split_response_raises_nothing(cast):
    running_blind_test(cast, MODELS[:1])
    check_risks()
    assert not AdminAlert.objects.filter(kind=AdminAlert.Kind.CRITERION_LOW_ALPHA).exists()
