"""A NUL character in any text a page or the API posts is a 400 naming the field; never a 500, nothing saved.

PostgreSQL refuses NUL in text (DataError, a 500 before); SQLite stores it. Run on both.
"""

import pytest
from django.urls import reverse

from annotation.models import CorrectionRequest, DiscussionComment, Judgment, UnclearCriterionReport
from rubrics.models import RevisionComment
from tests.annotation.workspace.conftest import judge_fully, workspace  # noqa: F401 (fixture)
from tests.rubrics.conftest import criterion, edit, version  # noqa: F401 (fixtures)

NUL = "a rationale with a NUL \x00 inside it"


@pytest.fixture
def reserved(workspace, cast):  # noqa: F811
    return workspace.reserve(cast.expert, "dm0001")


def _criteria(assignment):
    return list(assignment.campaign_response.item.criteria.order_by("position").values_list("pk", flat=True))


def _refused(response, field: str):
    assert response.status_code == 400, response.status_code
    assert field in response.content.decode() and "NUL" in response.content.decode()


def test_autosave_of_the_judging_page_says_the_rationale_was_not_saved(reserved, cast, client_for):
    first = _criteria(reserved)[0]
    response = client_for(cast.expert).post(
        reverse("annotation:judge_draft", args=[reserved.public_id]),
        {f"rationale-{first}": NUL, f"hit-{first}": "hit"},
        HTTP_HX_REQUEST="true",
    )
    # The save-status partial, as for any refused autosave: the page keeps its indicator and the text.
    assert response.status_code == 409
    body = response.content.decode()
    assert 'id="save-status"' in body and "Not saved" in body and "NUL" in body
    assert not Judgment.objects.filter(assignment=reserved).exists()


def test_the_save_draft_button_without_javascript_says_so_too(reserved, cast, client_for):
    first = _criteria(reserved)[0]
    response = client_for(cast.expert).post(
        reverse("annotation:judge_draft", args=[reserved.public_id]), {f"rationale-{first}": NUL}, follow=True
    )
    assert response.status_code == 200 and "NUL character" in response.content.decode()
    assert not Judgment.objects.filter(assignment=reserved).exists()


def test_submitting_the_judging_page_with_a_nul_shows_the_error_on_that_criterion(reserved, cast, client_for):
    data = {}
    for pk in _criteria(reserved):
        data[f"rationale-{pk}"], data[f"hit-{pk}"] = "A considered rationale", "miss"
    data[f"rationale-{pk}"] = NUL
    response = client_for(cast.expert).post(reverse("annotation:judge_submit", args=[reserved.public_id]), data)
    assert response.status_code == 400
    card = next(row for row in response.context["page"].rows if row.criterion.pk == pk)
    assert any("NUL character" in message for message in card.errors)
    reserved.refresh_from_db()
    assert reserved.status == "reserved" and not Judgment.objects.filter(assignment=reserved).exists()


def test_a_correction_whose_rationale_has_a_nul_is_refused(workspace, cast, client_for):  # noqa: F811
    submitted = judge_fully(workspace.reserve(cast.expert, "dm0002"))
    pk = _criteria(submitted)[0]
    url = reverse("annotation:judge_correction", args=[submitted.public_id])
    _refused(
        client_for(cast.expert).post(url, {"reason": "The second look changed it.", f"rationale-{pk}": NUL, f"hit-{pk}": "hit"}),
        f"rationale-{pk}",
    )
    assert not CorrectionRequest.objects.exists()


def test_an_unclear_criterion_report_with_a_nul_is_refused(reserved, cast, client_for):
    url = reverse("annotation:judge_unclear", args=[reserved.public_id, _criteria(reserved)[0]])
    _refused(client_for(cast.expert).post(url, {"comment": NUL}), "comment")
    assert not UnclearCriterionReport.objects.exists()


def test_a_correction_reason_with_a_nul_is_refused(workspace, cast, client_for):  # noqa: F811
    submitted = judge_fully(workspace.reserve(cast.expert, "dm0002"))
    url = reverse("annotation:judge_correction", args=[submitted.public_id])
    _refused(client_for(cast.expert).post(url, {"reason": NUL}), "reason")
    assert not CorrectionRequest.objects.exists()


def test_a_discussion_comment_with_a_nul_is_refused(workspace, cast, client_for):  # noqa: F811
    submitted = judge_fully(workspace.reserve(cast.expert, "dm0002"))
    url = reverse("annotation:discussion_comment", args=[submitted.public_id])
    _refused(client_for(cast.expert).post(url, {"body": NUL}), "body")
    assert not DiscussionComment.objects.exists()


def test_a_comment_on_a_rubric_revision_with_a_nul_is_refused(cast, client_for, criterion):  # noqa: F811
    revision = edit(cast, criterion, weight=4)
    _refused(client_for(cast.author).post(reverse("rubrics:comment", args=[revision.pk]), {"body": NUL}), "body")
    assert not RevisionComment.objects.exists()


def test_a_rubric_edit_whose_reason_has_a_nul_is_refused(cast, client_for, criterion):  # noqa: F811
    url = reverse("rubrics:edit", args=[criterion.lineage_id])
    data = {"text": criterion.text, "ability": criterion.ability, "weight": criterion.weight, "reason": NUL}
    _refused(client_for(cast.author).post(url, data), "reason")


@pytest.mark.parametrize(
    ("path", "field", "body"),
    [
        ("draft/", "rationale", {"judgments": [{"criterion": 0, "rationale": NUL}]}),
        ("unclear/", "comment", {"criterion": 0, "comment": NUL}),
        ("problem/", "comment", {"comment": NUL}),
    ],
)
def test_the_api_refuses_a_nul_with_a_400_naming_the_field(reserved, cast, client_for, path, field, body):
    first = _criteria(reserved)[0]
    for entry in body.get("judgments", []):
        entry["criterion"] = first
    if "criterion" in body:
        body["criterion"] = first
    response = client_for(cast.expert).post(
        f"/api/v1/annotation/assignments/{reserved.public_id}/{path}", body, content_type="application/json"
    )
    assert response.status_code == 400 and field in str(response.json())
    assert not Judgment.objects.filter(assignment=reserved).exists() and not UnclearCriterionReport.objects.exists()
