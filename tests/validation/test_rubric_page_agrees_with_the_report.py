"""The rubric page's judge–human agreement of a criterion equals the agreement report's figure for it.

They once disagreed (0.5 on the page, 1.0 in the report) on the same data: the page took the
majority of any two or more judgments, so a response whose third expert had not yet submitted
already counted with the two who had; the report waits for all k = 3 ratings of the blind test.
Both now call the same majority rule and agreement function of `heartbench_core.lib.agreement`.
"""

import pytest
from django.urls import reverse

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
    row = next(r for r in report.result["by_criterion"] if r["key"] == str(criterion.lineage_id))
    assert (page_figure.value, page_figure.n) == (row["item_agreement_rate"], row["pairs"]) == (1.0, 1)
    assert page_figure.extra["incomplete"] == 1 and report.result["units"]["incomplete"] >= 1


def test_the_editor_page_and_the_api_show_the_report_s_figure(cast, client_for, criterion_data):
    _, criterion = criterion_data
    client = client_for(cast.author)
    editor = client.get(reverse("rubrics:editor", args=["demo", "dm0001"])).content.decode()
    assert "judge–human 100% <small>n=1</small>" in editor
    api = client.get("/api/v1/rubrics/quality/", {"dataset": "demo", "question_id": "dm0001"}).json()
    signal = api["criteria"][str(criterion.lineage_id)]["judge_human"]
    assert (signal["value"], signal["n"], signal["without_majority"]) == (1.0, 1, 1)
