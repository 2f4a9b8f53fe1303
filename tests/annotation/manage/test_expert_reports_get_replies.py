"""An admin replies to an expert's report and resolves it; the expert reads the reply on "My reports"."""

import pytest
from django.urls import reverse

from annotation.models import ItemProblemReport, UnclearCriterionReport
from annotation.services.assignment import assign_next_response
from annotation.services.workspace import report_item_problem, report_unclear_criterion
from heartbench_core.models import Dataset
from rubrics.selectors import work_list

from .helpers import demo_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def reports(cast):
    campaign = demo_campaign(cast)
    mine = assign_next_response(expert=cast.expert, campaign=campaign)
    problem = report_item_problem(assignment=mine, expert=cast.expert, comment="The response stops mid-sentence.")
    criterion = mine.campaign_response.item.criteria.order_by("position").first()
    unclear = report_unclear_criterion(assignment=mine, expert=cast.expert, criterion_id=criterion.pk, comment="Does a question count?")
    return problem, unclear


def test_the_admin_sees_the_comment_and_the_response_it_is_about(cast, client_for, reports):
    problem, _unclear = reports
    page = client_for(cast.admin).get(reverse("annotation:report", args=["problem", problem.pk])).content.decode()
    entry = problem.assignment.campaign_response
    assert "The response stops mid-sentence." in page and entry.response.model.name in page and entry.item.question_id in page


def test_replying_resolves_it_and_the_expert_reads_the_reply(cast, client_for, reports):
    problem, _unclear = reports
    response = client_for(cast.admin).post(
        reverse("annotation:report", args=["problem", problem.pk]), {"reply": "Fixed: judge the text as shown."}
    )
    assert response.status_code == 302
    problem.refresh_from_db()
    assert problem.resolved_at is not None and problem.resolved_by == cast.admin and problem.reply == "Fixed: judge the text as shown."

    expert = client_for(cast.expert)
    assert 'My reports <span class="tag warn" aria-label="1 new reply">1</span>' in expert.get(reverse("annotation:home")).content.decode()
    page = expert.get(reverse("annotation:my_reports")).content.decode()
    assert "Fixed: judge the text as shown." in page and "The response stops mid-sentence." in page
    # Opened once, the reply is no longer new.
    assert "new reply" not in expert.get(reverse("annotation:home")).content.decode()


def test_a_reply_is_required_and_a_report_is_resolved_once(cast, client_for, reports):
    problem, _unclear = reports
    c = client_for(cast.admin)
    url = reverse("annotation:report", args=["problem", problem.pk])
    response = c.post(url, {"reply": "   "})
    assert response.status_code == 400 and "This field is required." in response.content.decode()
    c.post(url, {"reply": "Thanks."})
    response = c.post(url, {"reply": "Again."})
    assert response.status_code == 400 and "This report is already resolved." in response.content.decode()
    problem.refresh_from_db()
    assert problem.reply == "Thanks."


def test_only_admins_open_or_resolve_a_report(cast, client_for, reports):
    problem, unclear = reports
    for user in (cast.expert, cast.author, cast.reviewer, cast.outsider):
        c = client_for(user)
        assert c.get(reverse("annotation:report", args=["problem", problem.pk])).status_code == 403
        assert c.post(reverse("annotation:report", args=["unclear", unclear.pk]), {"reply": "x"}).status_code == 403
    assert client_for(cast.admin).get(reverse("annotation:report", args=["other", problem.pk])).status_code == 404
    assert not ItemProblemReport.objects.filter(resolved_at__isnull=False).exists()


def test_an_expert_sees_only_their_own_reports(cast, client_for, reports):
    assert "The response stops mid-sentence." not in client_for(cast.experts[1]).get(reverse("annotation:my_reports")).content.decode()
    for user in (cast.admin, cast.author, cast.outsider):
        assert client_for(user).get(reverse("annotation:my_reports")).status_code == 403


def test_resolving_an_unclear_report_here_takes_it_off_the_rubric_work_list(cast, client_for, reports):
    _problem, unclear = reports
    dataset = Dataset.objects.get(name="demo")
    assert [w.object_id for w in work_list(dataset, kind="unclear")] == [unclear.pk]
    client_for(cast.admin).post(reverse("annotation:report", args=["unclear", unclear.pk]), {"reply": "Yes, a question counts."})
    assert work_list(dataset, kind="unclear") == []


def test_resolving_it_from_the_rubric_work_list_takes_it_off_the_home_too(cast, client_for, reports):
    _problem, unclear = reports
    client_for(cast.author).post(reverse("rubrics:resolve", args=["unclear", unclear.pk]), {"note": "reworded"})
    unclear.refresh_from_db()
    assert unclear.resolved_at is not None
    assert "Does a question count?" not in client_for(cast.admin).get(reverse("annotation:needs_action")).content.decode()
    page = client_for(cast.expert).get(reverse("annotation:my_reports")).content.decode()
    assert "resolved without a reply" in page
    assert UnclearCriterionReport.objects.get().reply == ""
