"""GET /api/v1/scores/leaderboard/ lists its models a page at a time, ranked from the stored overall scores: the pages,
ranks, search and `top` are those of the whole ranking, and a page costs the same queries whatever the number of runs."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from heartbench_core.models import StoredScores
from heartbench_core.selectors import scenes_of
from heartbench_core.services.judging import import_judge_verdicts
from heartbench_core.services.scoring import score_models
from tests.factories import FIXTURES
from tests.scoring.conftest import DEMO_MODELS

URL = "/api/v1/scores/leaderboard/"


@pytest.fixture
def two_a_page(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "PAGE_SIZE": 2}


def more_judges(*judges: str) -> None:
    """The same verdicts under other judges: every model's score appears once per judge, ties broken by judge."""
    for judge in judges:
        for model in DEMO_MODELS:
            import_judge_verdicts(source=FIXTURES / "verdicts" / f"{model}.jsonl", dataset_name="demo", model_name=model, judge=judge)


def every_page(client, **query) -> list[dict]:
    rows, page = [], client.get(URL, {"dataset": "demo", **query}).json()
    rows += page["models"]
    while page["next"]:
        page = client.get(page["next"]).json()
        rows += page["models"]
    return rows


def as_before(**query) -> list[tuple]:
    """The ranking every model's scores give (`score_models`, which scores them all)."""
    return [(r.rank, r.model, r.verdicts.meta["judge"], r.result.overall) for r in score_models(dataset_name="demo", **query)]


def shown(rows: list[dict]) -> list[tuple]:
    return [(m["rank"], m["model"], m["judge"], m["scores"]["overall"]) for m in rows]


@pytest.mark.parametrize("subset", ["all", "hard", "normal"])
def test_the_pages_together_are_the_whole_ranking_ties_included(judged_demo, cast, client_for, two_a_page, subset):
    more_judges("b-judge", "a-judge")
    client = client_for(cast.admin)
    first = client.get(URL, {"dataset": "demo", "subset": subset}).json()
    assert (first["count"], first["ranked"], len(first["models"]), first["previous"]) == (9, 9, 2, None)
    assert "page=2" in first["next"]
    assert shown(every_page(client, subset=subset)) == as_before(subset=subset)


def test_a_search_keeps_the_ranks_of_all_and_pages_what_it_finds(judged_demo, cast, client_for, two_a_page):
    more_judges("b-judge", "a-judge")
    client = client_for(cast.admin)
    found = every_page(client, q="BOREAL")
    assert shown(found) == [row for row in as_before() if row[1] == "demo-model-borealis"]
    body = client.get(URL, {"dataset": "demo", "q": "BOREAL", "page": 2}).json()
    assert (body["count"], body["ranked"], len(body["models"]), body["next"]) == (3, 9, 1, None)
    assert "page=1" in body["previous"]


def test_top_cuts_the_list_before_it_is_paged(judged_demo, cast, client_for, two_a_page):
    more_judges("b-judge")
    client = client_for(cast.admin)
    body = client.get(URL, {"dataset": "demo", "top": 3}).json()
    assert body["count"] == 3 and len(every_page(client, top=3)) == 3
    assert shown(every_page(client, top=3)) == as_before()[:3]
    assert client.get(URL, {"dataset": "demo", "top": 3, "page": 3}).status_code == 404
    assert client.get(URL, {"dataset": "demo", "page": 0}).status_code == 400


def test_rows_stored_before_the_overall_columns_are_filled_on_first_use(judged_demo, cast, client_for):
    client = client_for(cast.admin)
    before = client.get(URL, {"dataset": "demo"}).json()["models"]
    StoredScores.objects.update(overall=None, overall_hard=None, overall_normal=None, overalls_stored=False)
    assert client.get(URL, {"dataset": "demo"}).json()["models"] == before
    assert not StoredScores.objects.filter(run__isnull=False, overalls_stored=False).exists()
    assert all(row.overall is not None for row in StoredScores.objects.all())


def test_a_scene_still_ranks_as_before(judged_demo, cast, client_for, two_a_page):
    more_judges("b-judge")
    client = client_for(cast.admin)
    scene = scenes_of(judged_demo)[0]
    assert shown(every_page(client, scene=scene)) == as_before(scene=scene)


def page_queries(client, **query) -> int:
    client.get(URL, {"dataset": "demo", **query})  # new runs are scored and stored on the first call
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(URL, {"dataset": "demo", **query}).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.parametrize("query", [{}, {"page": 2}, {"q": "aurora", "page": 2}, {"subset": "hard", "top": 5, "page": 2}])
def test_a_page_costs_the_same_queries_at_three_times_the_runs(judged_demo, cast, client_for, two_a_page, query):
    client = client_for(cast.admin)
    more_judges("b-judge", "c-judge")  # 3 runs a model: page 2 exists with a search too
    small = page_queries(client, **query)
    more_judges(*(f"{n}-judge" for n in "defghi"))  # 3 times the runs
    assert page_queries(client, **query) == small
