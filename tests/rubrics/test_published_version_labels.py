"""A published version's label reaches URLs and file names: a bad one is refused, naming the label, and nothing is published."""

import pytest

from heartbench_core.models import DatasetVersion
from rubrics.models import CriterionRevision
from tests.rubrics.conftest import approve_by_panel, edit


@pytest.mark.parametrize("label", ["v2/rubric", "v2\r\nrubric", 'v2"'])
def test_the_publish_api_refuses_a_bad_label_and_publishes_nothing(cast, client_for, version, criterion, label):
    approve_by_panel(edit(cast, criterion, weight=4), cast.reviewers)
    response = client_for(cast.author).post(
        "/api/v1/rubrics/publish/", {"dataset": version.dataset.name, "label": label}, content_type="application/json"
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["label"]
    assert DatasetVersion.objects.count() == 1
    assert not CriterionRevision.objects.filter(published_in__isnull=False).exists()


def test_the_publish_page_says_why_a_label_was_refused(cast, client_for, version, criterion):
    approve_by_panel(edit(cast, criterion, weight=4), cast.reviewers)
    client = client_for(cast.author)
    response = client.post(f"/rubrics/d/{version.dataset.name}/publish/", {"label": "v2/rubric"}, follow=True)
    assert response.status_code == 200
    assert "Nothing was published" in response.content.decode() and "must not contain" in response.content.decode()
    assert DatasetVersion.objects.count() == 1
