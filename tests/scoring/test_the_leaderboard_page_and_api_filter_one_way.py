"""The leaderboard page and its API read their filters (judge, scene, catastrophic rule, a search) through one FilterSet.

The same search finds the same models on both; a bad value is the field's error on the page (the
board then scores by the paper's rule, never a 500) and a 400 naming the parameter in the API.
"""

PAGE = "/datasets/demo/v/v1/leaderboard/"
API = "/api/v1/scores/leaderboard/"


def test_a_search_finds_the_same_models_on_the_page_and_in_the_api(judged_demo, cast, client_for):
    client = client_for(cast.admin)
    page = client.get(PAGE, {"q": " BOREAL "}).content.decode()
    assert "demo-model-borealis" in page and "demo-model-aurora" not in page
    listed = client.get(API, {"dataset": "demo", "q": " BOREAL "}).json()["models"]
    assert [m["model"] for m in listed] == ["demo-model-borealis"]


def test_a_bad_catastrophic_rule_is_the_fields_error_on_the_page_and_a_400_naming_it_in_the_api(judged_demo, cast, client_for):
    client = client_for(cast.admin)
    page = client.get(PAGE, {"catastrophic": "lenient"})
    assert page.status_code == 200 and "demo-model-aurora" in page.content.decode()
    assert "Catastrophic rule: invalid value “lenient”; choose one of: paper, upstream." in page.content.decode()
    response = client.get(API, {"dataset": "demo", "catastrophic": "lenient"})
    assert response.status_code == 400 and response.json() == {"catastrophic": ["'lenient' is not one of: paper, upstream."]}
    assert client.get(API, {"subset": "all"}).json() == {"dataset": ["This field is required."]}
