"""The alerts filter one way, page and API: one FilterSet, applied in the read model.

`?all=1` shows resolved alerts too; a value that is neither true nor false is the field's error on the
page (open alerts only, never a 500) and a 400 naming `all` in the API.
"""

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import AdminAlert

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation/manage/alerts/"


def test_resolved_alerts_show_with_all_and_a_bad_value_is_the_fields_error(cast, client_for):
    AdminAlert.objects.create(kind="gold_accuracy", expert=cast.expert, message="still open")
    AdminAlert.objects.create(kind="gold_accuracy", expert=cast.expert, message="long resolved", resolved_at=timezone.now())
    c = client_for(cast.admin)
    page = c.get(reverse("annotation:alerts")).content.decode()
    assert "still open" in page and "long resolved" not in page
    assert "long resolved" in c.get(reverse("annotation:alerts"), {"all": "1"}).content.decode()
    bad = c.get(reverse("annotation:alerts"), {"all": "maybe"})
    text = bad.content.decode()
    assert bad.status_code == 200 and "still open" in text and "long resolved" not in text
    assert "Show resolved too: invalid value “maybe”; choose one of: yes, no." in text
    assert [a["message"] for a in c.get(API, {"all": "1"}).json()["results"]] == ["long resolved", "still open"]
    assert [a["message"] for a in c.get(API).json()["results"]] == ["still open"]
    response = c.get(API, {"all": "maybe"})
    assert response.status_code == 400 and response.json() == {"all": ["'maybe' is not one of: true, false."]}
