import math

import pytest
from django.urls import reverse

from rubrics import quality, services
from rubrics.selectors import quality_signals, work_list
from tests.factories import demo_responses
from tests.rubrics.conftest import human_judgments, judge


def test_hit_rate_marks_a_criterion_hit_by_every_model_as_saturated():
    s = quality.hit_rate([(1, "a", True), (2, "b", True), (3, "c", True)])
    assert (s.value, s.n, s.extra["saturated"]) == (1.0, 3, True)
    assert quality.hit_rate([(1, "a", True), (2, "b", False)]).extra["saturated"] is False
    assert quality.hit_rate([(1, "a", True)]).extra["saturated"] is False  # one model cannot saturate
    empty = quality.hit_rate([])
    assert empty.value is None and empty.n == 0 and empty.reason


def test_pairwise_agreement_counts_agreeing_pairs_over_units_with_two_or_more_ratings():
    rows = [("u1", "e1", True), ("u1", "e2", True), ("u1", "e3", False), ("u2", "e1", False), ("u2", "e2", False), ("u3", "e1", True)]
    s = quality.pairwise_agreement(rows)
    assert s.n == 2 and s.extra["pairs"] == 4 and s.value == pytest.approx(2 / 4)
    assert quality.pairwise_agreement([("u1", "e1", True)]).value is None


def test_krippendorff_alpha_is_none_with_a_reason_when_undefined():
    same = quality.krippendorff_alpha([("u1", "e1", True), ("u1", "e2", True)])
    assert same.value is None and "undefined" in same.reason and same.n == 1
    perfect = quality.krippendorff_alpha([("u1", "e1", True), ("u1", "e2", True), ("u2", "e1", False), ("u2", "e2", False)])
    assert perfect.value == pytest.approx(1.0) and perfect.n == 2
    mixed = quality.krippendorff_alpha([("u1", "e1", True), ("u1", "e2", False), ("u2", "e1", False), ("u2", "e2", False)])
    assert mixed.value < 0.5 and not math.isnan(mixed.value)


def test_judge_human_agreement_uses_the_majority_of_two_or_more_judgments():
    s = quality.judge_human_agreement([(True, [True, True, False]), (False, [True, True]), (True, [True, False]), (True, [True])])
    assert (s.value, s.n, s.extra["without_majority"]) == (0.5, 2, 2)
    assert quality.judge_human_agreement([(True, [True, False])]).value is None


def test_an_ambiguous_criterion_needs_enough_units():
    rule = quality.AmbiguityRule(threshold=0.75, min_units=2)
    assert rule.is_ambiguous(quality.Signal(0.5, 2))
    assert not rule.is_ambiguous(quality.Signal(0.5, 1))
    assert not rule.is_ambiguous(quality.Signal(None, 0, "undefined"))


@pytest.mark.django_db
def test_signals_from_real_rows_land_in_the_editor_and_the_work_list(cast, client_for, version, criterion, settings):
    settings.RUBRICS_AMBIGUITY = {"threshold": 0.75, "min_units": 2}
    demo_responses()
    judge(version, "dm0001", {m: {0: True, 1: True} for m in ("demo-model-aurora", "demo-model-borealis", "demo-model-cirrus")})
    for model in ("demo-model-aurora", "demo-model-borealis"):
        human_judgments(version, "dm0001", model, cast.experts, [{0: True, 1: True}, {0: False, 1: True}, {0: True, 1: False}])
    signals = quality_signals(version.dataset)
    s0 = signals[criterion.lineage_id]
    assert s0["hit_rate"].extra["saturated"] and s0["hit_rate"].n == 3
    assert s0["agreement"].value == pytest.approx(1 / 3) and s0["agreement"].n == 2 and s0["ambiguous"]
    assert s0["judge_human"].value == 1.0 and s0["judge_human"].n == 2
    from annotation.models import Assignment, UnclearCriterionReport

    UnclearCriterionReport.objects.create(assignment=Assignment.objects.first(), criterion=criterion, comment="“无力感”指什么？")
    services.flag_criterion(lineage=criterion.lineage, reason="adjudicators split", source="adjudication")
    kinds = sorted(w.kind for w in work_list(version.dataset))
    assert kinds == ["ambiguous", "ambiguous", "flag", "saturated", "saturated", "unclear"]
    client = client_for(cast.author)
    index = client.get(reverse("rubrics:index")).content.decode()
    assert "“无力感”指什么？" in index and "adjudicators split" in index
    editor = client.get(reverse("rubrics:editor", args=["demo", "dm0001"])).content.decode()
    assert "saturated" in editor and "ambiguous" in editor and "judge–human 100%" in editor
    api = client.get("/api/v1/rubrics/quality/", {"dataset": "demo", "question_id": "dm0001"}).json()
    assert api["criteria"][str(criterion.lineage_id)]["agreement"]["n"] == 2
    assert "demo-model" not in str(api)
