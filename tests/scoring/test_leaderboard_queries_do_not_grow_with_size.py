"""The leaderboard page and API cost as many queries at three times the runs and verdicts as at one (stored scores)."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from heartbench_core.services.judging import import_judge_verdicts
from tests.factories import FIXTURES
from tests.scoring.conftest import DEMO_MODELS

PAGE = "/datasets/demo/v/v1/leaderboard/"
API = "/api/v1/scores/leaderboard/?dataset=demo"


def counts(client) -> tuple[int, int]:
    client.get(PAGE)  # the first view after an import scores the new runs and stores them
    with CaptureQueriesContext(connection) as page:
        assert client.get(PAGE).status_code == 200
    with CaptureQueriesContext(connection) as api:
        assert client.get(API).status_code == 200
    return len(page.captured_queries), len(api.captured_queries)


def test_the_same_queries_for_three_times_the_runs_and_verdicts(judged_demo, cast, client_for):
    client = client_for(cast.admin)
    small = counts(client)
    for judge in ("second-judge", "third-judge"):
        for model in DEMO_MODELS:
            import_judge_verdicts(source=FIXTURES / "verdicts" / f"{model}.jsonl", dataset_name="demo", model_name=model, judge=judge)
    big = counts(client)
    assert small == big
    assert len(client.get(API).json()["models"]) == 9


def test_the_api_reads_no_verdict_once_scores_are_stored(judged_demo, cast, client_for):
    client = client_for(cast.author)
    client.get(API)
    with CaptureQueriesContext(connection) as ctx:
        client.get(API, {"subset": "hard"})
    assert not any("judgeverdict" in q["sql"] for q in ctx.captured_queries)
