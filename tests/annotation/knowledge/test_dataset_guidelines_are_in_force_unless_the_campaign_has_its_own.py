"""A dataset's guidelines are in force in its campaigns, a campaign's own override them, and a submission records which."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from annotation.knowledge.models import DatasetGuidelines
from annotation.models import Assignment
from annotation.services.guidelines import guidelines_in_force, publish_dataset_guidelines, publish_guidelines
from tests.annotation.workspace.conftest import judge_fully

pytestmark = pytest.mark.django_db


def test_admins_and_rubric_authors_publish_dataset_guidelines_as_revisions(cast, library):
    first = publish_dataset_guidelines(dataset=library.dataset, body="# 总则\n先写理由。", change_note="初版", author=cast.admin)
    second = publish_dataset_guidelines(dataset=library.dataset, body="# 总则\n先写理由，再判定。", author=cast.author)
    assert (first.revision, second.revision) == (1, 2)
    with pytest.raises(ValidationError):
        publish_dataset_guidelines(dataset=library.dataset, body="# 总则\n先写理由，再判定。", author=cast.author)
    for other in (cast.reviewer, cast.expert):
        with pytest.raises(PermissionDenied):
            publish_dataset_guidelines(dataset=library.dataset, body="x", author=other)
    assert DatasetGuidelines.objects.filter(dataset=library.dataset).count() == 2


def test_the_campaigns_own_guidelines_override_the_datasets(cast, library, django_assert_num_queries):
    assert guidelines_in_force(library.campaign) is None
    publish_dataset_guidelines(dataset=library.dataset, body="数据集的准则", author=cast.admin)
    with django_assert_num_queries(1):
        in_force = guidelines_in_force(library.campaign)
    assert (in_force.source, in_force.revision, in_force.body) == ("dataset", 1, "数据集的准则")
    publish_guidelines(campaign=library.campaign, body="本次活动的准则", author=cast.admin)
    with django_assert_num_queries(1):
        in_force = guidelines_in_force(library.campaign)
    assert (in_force.source, in_force.revision, in_force.body) == ("campaign", 1, "本次活动的准则")
    assert in_force.created_at is not None and in_force.created_at.tzinfo is not None


def test_the_judging_page_and_its_api_show_the_dataset_guidelines_when_the_campaign_has_none(cast, library, client_for):
    publish_dataset_guidelines(dataset=library.dataset, body="**数据集准则**：先写理由。", author=cast.admin)
    assignment = Assignment.objects.create(campaign_response=library.entry(), expert=cast.expert)
    client = client_for(cast.expert)
    page = client.get(reverse("annotation:judge", args=[assignment.public_id])).content.decode()
    assert "<strong>数据集准则</strong>" in page
    api = client.get(f"/api/v1/annotation/assignments/{assignment.public_id}/").json()
    assert api["guidelines"]["source"] == "dataset" and api["guidelines"]["revision"] == 1


def test_a_submission_records_the_guidelines_the_expert_worked_under(cast, library):
    first = Assignment.objects.create(campaign_response=library.entry("dm0001"), expert=cast.expert)
    judge_fully(first)
    first.refresh_from_db()
    assert (first.guidelines_source, first.guidelines_revision) == ("", None)
    publish_dataset_guidelines(dataset=library.dataset, body="数据集的准则", author=cast.admin)
    second = Assignment.objects.create(campaign_response=library.entry("dm0002"), expert=cast.expert)
    judge_fully(second)
    second.refresh_from_db()
    assert (second.guidelines_source, second.guidelines_revision) == ("dataset", 1)
    publish_guidelines(campaign=library.campaign, body="活动准则一", author=cast.admin)
    publish_guidelines(campaign=library.campaign, body="活动准则二", author=cast.admin)
    third = Assignment.objects.create(campaign_response=library.entry("dm0003"), expert=cast.expert)
    judge_fully(third)
    third.refresh_from_db()
    assert (third.guidelines_source, third.guidelines_revision) == ("campaign", 2)
