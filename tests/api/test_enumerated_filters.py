"""Enumerated and UUID filters of the API lists: a value outside the set is a 400 naming the parameter.

Free-text filters (a dataset name, a question id) match nothing when nothing has that value;
a filter with a fixed set of values tells the caller they mistyped it instead of answering
an empty (or, before, an unfiltered or 500) list.
"""

import pytest

from tests.factories import demo_version

pytestmark = pytest.mark.django_db

BAD = [
    ("admin", "/api/v1/items/?difficulty=medium", "difficulty"),
    ("admin", "/api/v1/annotation/manage/campaigns/?kind=survey", "kind"),
    ("admin", "/api/v1/annotation/manage/assignments/?status=done", "status"),
    ("expert", "/api/v1/annotation/assignments/?status=expired", "status"),
    ("admin", "/api/v1/rubrics/revisions/?status=pending", "status"),
    ("admin", "/api/v1/rubrics/revisions/?key=not-a-uuid", "key"),
]


@pytest.mark.parametrize("who, path, param", BAD)
def test_a_value_outside_the_set_is_a_400_naming_the_parameter(client_for, cast, who, path, param):
    response = client_for(getattr(cast, who)).get(path)
    assert response.status_code == 400
    assert param in response.json()


def test_golden_labels_refuse_an_unknown_provenance(client_for, cast):
    from tests.security.world import build_world

    world = build_world(cast)
    path = f"/api/v1/validation/campaigns/{world.objects['campaign'].pk}/golden-labels/"
    assert client_for(cast.admin).get(path, {"provenance": "majority"}).status_code == 200
    response = client_for(cast.admin).get(path, {"provenance": "guess"})
    assert response.status_code == 400 and "provenance" in response.json()


def test_a_value_in_the_set_filters(client_for, cast):
    demo_version()
    client = client_for(cast.admin)
    everything = client.get("/api/v1/items/").json()["count"]
    hard = client.get("/api/v1/items/", {"difficulty": "hard"}).json()
    assert all(i["difficulty"] == "hard" for i in hard["results"]) and hard["count"] <= everything
    assert client.get("/api/v1/items/", {"difficulty": ""}).json()["count"] == everything


@pytest.mark.parametrize("datasets", [1, 3])
def test_the_criteria_list_finds_the_latest_versions_in_one_query_whatever_the_number_of_datasets(
    client_for, cast, django_assert_num_queries, datasets
):
    for n in range(datasets):
        demo_version(dataset_name=f"demo{n}")
    client = client_for(cast.admin)
    client.get("/api/v1/rubrics/criteria/")
    with django_assert_num_queries(5):
        assert client.get("/api/v1/rubrics/criteria/").status_code == 200
