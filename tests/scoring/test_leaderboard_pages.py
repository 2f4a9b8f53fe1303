"""The leaderboard pages: ranked models, the ability chart, the drill-down, and who may see them."""

import pytest

from heartbench_core.services.judging import import_judge_verdicts
from tests.factories import FIXTURES

URL = "/datasets/demo/v/v1/leaderboard/"


def test_admins_and_rubric_authors_see_the_models_ranked(judged_demo, cast, client_for):
    for user in (cast.admin, cast.author):
        response = client_for(user).get(URL)
        assert response.status_code == 200
        html = response.content.decode()
        assert html.index("demo-model-aurora") < html.index("demo-model-cirrus") < html.index("demo-model-borealis")
        assert "<svg" in html and 'role="img"' in html and "Emotional Perception" in html
        assert "1 left out" in html  # cirrus has no verdict on dm0006


@pytest.mark.parametrize("who", ["expert", "reviewer", "outsider"])
def test_experts_reviewers_and_outsiders_are_refused(judged_demo, cast, client_for, who):
    client = client_for(getattr(cast, who))
    assert client.get(URL).status_code == 403
    assert client.get(URL + "demo-model-aurora/").status_code == 403


def test_anonymous_visitors_are_sent_to_log_in(judged_demo, client):
    assert client.get(URL).status_code == 302


def test_the_version_page_links_the_leaderboard_for_authors_only(judged_demo, cast, client_for):
    assert URL in client_for(cast.author).get("/datasets/demo/v/v1/").content.decode()
    assert URL not in client_for(cast.reviewer).get("/datasets/demo/v/v1/").content.decode()


def test_the_drill_down_lists_per_question_scores_and_flags_catastrophe(judged_demo, cast, client_for):
    client = client_for(cast.admin)
    html = client.get(URL + "demo-model-borealis/").content.decode()
    assert html.count("/datasets/demo/v/v1/items/dm000") == 6 and "catastrophic</span>" in html
    html = client.get(URL + "demo-model-borealis/?catastrophic=upstream").content.decode()
    assert "catastrophic</span>" not in html
    hard = client.get(URL + "demo-model-borealis/?subset=hard", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in hard and "/items/dm0001/" not in hard and "/items/dm0002/" in hard


def test_a_model_without_a_run_is_404(judged_demo, cast, client_for):
    assert client_for(cast.admin).get(URL + "no-such-model/").status_code == 404


def test_htmx_filters_return_the_body_only(judged_demo, cast, client_for):
    response = client_for(cast.admin).get(URL + "?judge=demo-judge&catastrophic=upstream", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert "<html" not in html and "Ranking" in html and "upstream" in html


def test_an_empty_version_says_how_to_import_runs(db, cast, client_for):
    from tests.factories import demo_version

    demo_version()
    html = client_for(cast.admin).get(URL).content.decode()
    assert "No judge run has been imported" in html


def test_the_leaderboard_query_count_does_not_grow_with_runs(judged_demo, cast, client_for, django_assert_max_num_queries):
    client = client_for(cast.admin)
    client.get(URL)
    # 14: the runs not yet stored (none), the count, the page's runs ranked by their stored overall score, their stored
    # arrays and the questions they are laid out by, and the judges' calibrated scores (one query).
    with django_assert_max_num_queries(14):
        client.get(URL)
    for model in ("demo-model-aurora", "demo-model-borealis"):
        import_judge_verdicts(source=FIXTURES / "verdicts" / f"{model}.jsonl", dataset_name="demo", model_name=model, judge="second-judge")
    client.get(URL)  # the first view after an import scores the new runs and stores their scores
    with django_assert_max_num_queries(14):
        html = client.get(URL).content.decode()
    assert html.count("second-judge") >= 2


def test_the_ranking_is_paged_and_searched_by_model_name(judged_demo, cast, client_for, monkeypatch):
    from heartbench_core.leaderboard import selectors

    monkeypatch.setattr(selectors, "ROWS_PER_PAGE", 2)
    monkeypatch.setattr(selectors, "CHART_SERIES", 1)
    client = client_for(cast.admin)
    first = client.get(URL).content.decode()
    assert "demo-model-aurora" in first and "demo-model-cirrus" in first and "demo-model-borealis" not in first
    assert "page 1 of 2 · 3 runs listed" in first and "The chart draws the first model of this page" in first
    second = client.get(URL, {"page": 2}).content.decode()
    assert "demo-model-borealis" in second and "demo-model-aurora" not in second
    assert '<td class="num">3</td>' in second  # ranked over every run, not over the page
    found = client.get(URL, {"q": "BOREAL"}).content.decode()
    assert "demo-model-borealis" in found and "demo-model-cirrus" not in found and "page 1 of" not in found
    assert "No model name contains “nothing-like-it”." in client.get(URL, {"q": "nothing-like-it"}).content.decode()
