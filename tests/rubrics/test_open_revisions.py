"""Open revisions are the drafts and those awaiting review: the dataset page counts them per item and the editor shows each criterion's one."""

import pytest
from django.urls import reverse

from heartbench_core.models import Criterion
from rubrics import services
from rubrics.models import CriterionRevision
from tests.rubrics.conftest import approve_by_panel, edit

pytestmark = pytest.mark.django_db


@pytest.fixture
def one_of_each(cast, version, criterion):
    """On dm0001: a superseded draft, a draft, a submitted, a rejected and an approved revision (each on its own criterion)."""
    superseded = edit(cast, criterion, weight=4)
    draft = edit(cast, criterion, weight=5, base_revision=superseded.number)
    others = list(
        Criterion.objects.select_related("lineage").filter(item__version=version, item__question_id="dm0001").order_by("position")[1:4]
    )
    submitted = services.submit_revision(revision=edit(cast, others[0], text=others[0].text + "。"), user=cast.author)
    rejected = edit(cast, others[1], text=others[1].text + "。")
    services.submit_revision(revision=rejected, user=cast.author)
    rejected = services.review_revision(revision=rejected, reviewer=cast.reviewer, verdict="reject", comment="not clearer")
    approved = approve_by_panel(edit(cast, others[2], text=others[2].text + "。"), cast.reviewers[: version.dataset.review_panel_size])
    return {"superseded": superseded, "draft": draft, "submitted": submitted, "rejected": rejected, "approved": approved}


def test_open_revisions_are_the_drafts_and_those_awaiting_review(one_of_each):
    assert dict(CriterionRevision.objects.values_list("pk", "status")) == {
        one_of_each["superseded"].pk: "superseded",
        one_of_each["draft"].pk: "draft",
        one_of_each["submitted"].pk: "submitted",
        one_of_each["rejected"].pk: "rejected",
        one_of_each["approved"].pk: "approved",
    }
    assert set(CriterionRevision.objects.open()) == {one_of_each["draft"], one_of_each["submitted"]}


def test_the_dataset_page_counts_the_open_revisions_of_each_item(cast, client_for, one_of_each):
    page = client_for(cast.author).get(reverse("rubrics:dataset", args=["demo"]))
    assert page.status_code == 200 and page.context["pending"] == {"dm0001": 2}


def test_the_editor_shows_each_criterion_with_its_open_revision_only(cast, client_for, one_of_each):
    page = client_for(cast.author).get(reverse("rubrics:editor", args=["demo", "dm0001"]))
    open_by_position = {row.criterion.position: row.open_revision for row in page.context["rows"] if row.open_revision is not None}
    assert open_by_position == {0: one_of_each["draft"], 1: one_of_each["submitted"]}
