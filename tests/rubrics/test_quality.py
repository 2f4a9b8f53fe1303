import pytest
from django.urls import reverse

from rubrics import services
from rubrics.selectors import quality_signals, work_list
from tests.factories import demo_responses
from tests.rubrics.conftest import human_judgments, judge


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
