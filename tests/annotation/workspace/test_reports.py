"""Unclear-criterion and item-problem reports from the judging page."""

from django.urls import reverse

from annotation.models import ItemProblemReport, UnclearCriterionReport

from .conftest import judge_fully


def test_an_unclear_criterion_report_lands_with_its_comment(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    criterion = assignment.campaign_response.item.criteria.order_by("position")[2]
    response = client_for(cast.expert).post(
        reverse("annotation:judge_unclear", args=[assignment.public_id, criterion.pk]),
        {"comment": "Does 'understanding' need explicit words?"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and "rubric authors" in response.content.decode()
    report = UnclearCriterionReport.objects.get()
    assert (report.assignment, report.criterion, report.comment) == (assignment, criterion, "Does 'understanding' need explicit words?")
    page = client_for(cast.expert).get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    assert "Reported as unclear" in page


def test_an_empty_report_is_refused_with_a_reason_and_writes_nothing(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    criterion = assignment.campaign_response.item.criteria.first()
    response = client_for(cast.expert).post(
        reverse("annotation:judge_unclear", args=[assignment.public_id, criterion.pk]), {"comment": "  "}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400 and "required" in response.content.decode()
    assert not UnclearCriterionReport.objects.exists()


def test_a_criterion_of_another_item_cannot_be_reported(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert, "dm0001")
    foreign = workspace.response_of("dm0003").item.criteria.first()
    response = client_for(cast.expert).post(
        reverse("annotation:judge_unclear", args=[assignment.public_id, foreign.pk]), {"comment": "hmm"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400
    assert not UnclearCriterionReport.objects.exists()


def test_a_problem_with_the_item_is_reported_without_javascript_too(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    response = client_for(cast.expert).post(
        reverse("annotation:judge_problem", args=[assignment.public_id]), {"comment": "The response is cut off."}
    )
    assert response.status_code == 302 and response.url == reverse("annotation:judge", args=[assignment.public_id])
    assert ItemProblemReport.objects.get().comment == "The response is cut off."


def test_submitted_work_can_still_report_an_unclear_criterion(workspace, cast, client_for):
    assignment = judge_fully(workspace.reserve(cast.expert))
    criterion = assignment.campaign_response.item.criteria.first()
    client_for(cast.expert).post(reverse("annotation:judge_unclear", args=[assignment.public_id, criterion.pk]), {"comment": "ambiguous"})
    assert UnclearCriterionReport.objects.filter(assignment=assignment).count() == 1


def test_another_expert_cannot_report_on_my_work(workspace, cast, client_for):
    assignment = workspace.reserve(cast.expert)
    response = client_for(cast.experts[1]).post(reverse("annotation:judge_problem", args=[assignment.public_id]), {"comment": "x"})
    assert response.status_code == 404
    assert not ItemProblemReport.objects.exists()
