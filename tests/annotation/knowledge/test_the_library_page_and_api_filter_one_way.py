"""The library's page and API filter FAQ entries by criterion one way: one FilterSet, `key` in the API and
`criterion` (its alias) in the page's links; a bad value is the field's error on the page (the list ignores
it) and a 400 naming the parameter in the API."""

import pytest
from django.urls import reverse

from tests.annotation.knowledge.conftest import published_faq

pytestmark = pytest.mark.django_db

API = "/api/v1/annotation/library/faq/"


def test_criterion_and_key_narrow_the_page_and_the_api_alike(cast, library, client_for):
    criterion = library.criterion("dm0001", 1)
    on_it = published_faq(cast, criterion.item.version.dataset, question="这一条呢？", criteria=[str(criterion.lineage_id)])
    published_faq(cast, criterion.item.version.dataset, question="别的呢？")
    client = client_for(cast.author)
    for name in ("criterion", "key"):
        page = client.get(reverse("annotation:library"), {name: str(criterion.lineage_id)})
        assert [e.pk for e in page.context["page"].object_list] == [on_it.pk], name
        listed = client.get(API, {name: str(criterion.lineage_id)}).json()["results"]
        assert [e["id"] for e in listed] == [on_it.pk], name
    bad = client.get(reverse("annotation:library"), {"criterion": "not-a-uuid"})
    assert bad.status_code == 200 and len(bad.context["page"].object_list) == 2
    assert "Criterion: &#x27;not-a-uuid&#x27; is not a UUID." in bad.content.decode()
    response = client.get(API, {"key": "not-a-uuid"})
    assert response.status_code == 400 and response.json() == {"key": ["'not-a-uuid' is not a UUID."]}
