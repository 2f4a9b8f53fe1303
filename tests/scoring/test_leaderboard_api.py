"""GET /api/v1/scores/leaderboard/: every model of a version and source in one call, as GET scores/ gives each one."""

import pytest

from heartbench_core.services.judging import import_judge_verdicts
from tests.factories import FIXTURES
from tests.validation.builders import blind_test
from validation.services.agreement_reports import create_agreement_report

URL = "/api/v1/scores/leaderboard/"
MODELS = {"demo-model-aurora", "demo-model-borealis", "demo-model-cirrus"}


def test_it_lists_every_run_of_the_version_ranked_with_what_scores_gives_each(judged_demo, cast, client_for):
    client = client_for(cast.author)
    body = client.get(URL, {"dataset": "demo", "subset": "hard"}).json()
    assert body["version"] == "v1" and body["source"] == "judge" and body["subset"] == "hard"
    assert {m["model"] for m in body["models"]} == MODELS
    overall = [m["scores"]["overall"] for m in body["models"]]
    assert overall == sorted(overall, reverse=True) and [m["rank"] for m in body["models"]] == [1, 2, 3]
    for row in body["models"]:
        one = client.get("/api/v1/scores/", {"dataset": "demo", "model": row["model"], "subset": "hard"}).json()
        assert row["scores"] == one and (row["judge"], row["run"]) == ("demo-judge", "default")


def test_judge_and_run_filters_pick_the_runs(judged_demo, cast, client_for):
    import_judge_verdicts(
        source=FIXTURES / "verdicts" / "demo-model-aurora.jsonl", dataset_name="demo", model_name="demo-model-aurora", judge="j2"
    )
    client = client_for(cast.admin)
    both = client.get(URL, {"dataset": "demo"}).json()["models"]
    assert len(both) == 4
    only = client.get(URL, {"dataset": "demo", "judge": "j2"}).json()["models"]
    assert [(m["model"], m["judge"]) for m in only] == [("demo-model-aurora", "j2")]


def test_the_consensus_source_lists_the_models_of_the_newest_blind_test(cast, client_for):
    campaign = blind_test(cast)
    create_agreement_report(campaign=campaign, resamples=10)
    client = client_for(cast.admin)
    body = client.get(URL, {"dataset": "demo", "source": "consensus"}).json()
    assert {m["model"] for m in body["models"]} == MODELS and all(m["run"] == campaign.name for m in body["models"])
    for row in body["models"]:
        one = client.get("/api/v1/scores/", {"dataset": "demo", "model": row["model"], "source": "consensus"}).json()
        assert row["scores"] == one


def test_no_source_to_score_is_a_clear_400(judged_demo, cast, client_for):
    client = client_for(cast.admin)
    response = client.get(URL, {"dataset": "demo", "source": "consensus"})
    assert response.status_code == 400 and "no human golden standard exists" in response.content.decode()
    assert client.get(URL, {"dataset": "nope"}).status_code == 400
    assert client.get(URL, {"dataset": "demo", "judge": "nobody"}).status_code == 400


@pytest.mark.parametrize("who", ["expert", "reviewer", "outsider"])
def test_everyone_but_admins_and_rubric_authors_is_refused_without_a_model_name(judged_demo, cast, client_for, who):
    response = client_for(getattr(cast, who)).get(URL, {"dataset": "demo"})
    assert response.status_code == 403 and "demo-model" not in response.content.decode()


def test_anonymous_callers_are_refused(judged_demo, client):
    assert client.get(URL, {"dataset": "demo"}).status_code in (401, 403)


# An expert of an open campaign on the dataset, whatever their staff roles, is refused with the reason, and served
# once the campaign closes: the route is in tests/security/test_dual_roles_are_blind.py.


def test_the_leaderboard_api_keeps_the_top_models_or_those_a_search_finds(judged_demo, cast, client_for):
    client = client_for(cast.admin)
    everyone = client.get("/api/v1/scores/leaderboard/", {"dataset": "demo"}).json()
    assert everyone["ranked"] == len(everyone["models"]) == 3
    top = client.get("/api/v1/scores/leaderboard/", {"dataset": "demo", "top": 2}).json()
    assert top["ranked"] == 3 and top["models"] == everyone["models"][:2]
    found = client.get("/api/v1/scores/leaderboard/", {"dataset": "demo", "q": "BOREAL"}).json()
    assert [m["model"] for m in found["models"]] == ["demo-model-borealis"]
    assert found["models"][0]["rank"] == next(m["rank"] for m in everyone["models"] if m["model"] == "demo-model-borealis")
    assert client.get("/api/v1/scores/leaderboard/", {"dataset": "demo", "top": 0}).status_code == 400
