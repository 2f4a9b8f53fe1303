"""The scoring API: judge runs, verdict import, scores — admins and rubric authors only."""

import io
import json

import pytest

from heartbench_core.models import JudgeRun
from tests.factories import FIXTURES, demo_responses, demo_version


def upload(name, text):
    f = io.BytesIO(text.encode("utf-8"))
    f.name = name
    return f


def test_judge_runs_are_listed_and_filtered(judged_demo, cast, client_for):
    client = client_for(cast.author)
    body = client.get("/api/v1/judge-runs/?model=demo-model-cirrus").json()
    rows = body["results"] if isinstance(body, dict) else body
    assert [(r["model"], r["judge"], r["question_count"], r["version"]) for r in rows] == [("demo-model-cirrus", "demo-judge", 5, "v1")]
    all_rows = client.get("/api/v1/judge-runs/?dataset=demo&judge=demo-judge").json()
    assert len(all_rows["results"] if isinstance(all_rows, dict) else all_rows) == 3
    verdicts = client.get(f"/api/v1/judge-runs/{rows[0]['id']}/verdicts/").json()
    assert len(verdicts) == 34 and {"question_id", "position", "hit", "rationale"} <= set(verdicts[0])


def test_verdicts_are_imported_through_the_api(db, cast, client_for):
    demo_version()
    demo_responses()
    text = (FIXTURES / "verdicts" / "demo-model-aurora.jsonl").read_text(encoding="utf-8")
    data = {"file": upload("question_score.jsonl", text), "dataset": "demo", "model": "demo-model-aurora", "judge": "j1"}
    response = client_for(cast.admin).post("/api/v1/import/verdicts/", data)
    assert response.status_code == 201 and response.json()["verdict_count"] == 56
    again = client_for(cast.admin).post(
        "/api/v1/import/verdicts/",
        {"file": upload("question_score.jsonl", text), "dataset": "demo", "model": "demo-model-aurora", "judge": "j1"},
    )
    assert again.status_code == 200 and again.json()["created"] is False


def test_a_bad_file_gets_the_commands_errors_as_json_and_writes_nothing(judged_demo, cast, client_for):
    text = json.dumps({"question_id": "dm0001", "score_detail": "[1, 0]"}) + "\n"
    response = client_for(cast.author).post(
        "/api/v1/import/verdicts/",
        {"file": upload("bad.jsonl", text), "dataset": "demo", "model": "demo-model-aurora", "judge": "j2"},
    )
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert (error["file"], error["line"], error["field"]) == ("bad.jsonl", 1, "score_detail")
    assert not JudgeRun.objects.filter(judge="j2").exists()


def test_scores_match_the_command(judged_demo, cast, client_for, capsys):
    from django.core.management import call_command

    call_command("score", "--dataset", "demo", "--model", "demo-model-borealis", "--subset", "hard", "--format", "json")
    expected = json.loads(capsys.readouterr().out)
    body = (
        client_for(cast.admin)
        .get("/api/v1/scores/", {"dataset": "demo", "model": "demo-model-borealis", "subset": "hard", "questions": "true"})
        .json()
    )
    assert body["overall"] == pytest.approx(expected["overall"]) and body["abilities"] == expected["abilities"]
    assert len(body["questions"]) == body["questions_scored"] == 3 and body["source"] == "judge demo-judge/default"


def test_scores_without_a_golden_standard_are_a_clear_400(judged_demo, cast, client_for):
    response = client_for(cast.admin).get("/api/v1/scores/", {"dataset": "demo", "model": "demo-model-aurora", "source": "consensus"})
    assert response.status_code == 400 and "no human golden standard exists" in json.dumps(response.json(), ensure_ascii=False)


@pytest.mark.parametrize("who", ["expert", "reviewer", "outsider"])
def test_everyone_else_is_refused(judged_demo, cast, client_for, who):
    client = client_for(getattr(cast, who))
    assert client.get("/api/v1/judge-runs/").status_code == 403
    assert client.get("/api/v1/scores/", {"dataset": "demo", "model": "demo-model-aurora"}).status_code == 403
    response = client.post("/api/v1/import/verdicts/", {"file": upload("x.jsonl", "{}"), "dataset": "demo", "model": "m", "judge": "j"})
    assert response.status_code == 403


@pytest.mark.parametrize("said, listed", [("yes", True), ("0", False), ("", False)])
def test_per_question_scores_are_asked_for_with_a_boolean(judged_demo, cast, client_for, said, listed):
    query = {"dataset": "demo", "model": "demo-model-borealis", "questions": said}
    body = client_for(cast.admin).get("/api/v1/scores/", query).json()
    assert bool(body.get("questions")) is listed


def test_a_value_that_is_neither_true_nor_false_is_a_400_naming_the_parameter(judged_demo, cast, client_for):
    response = client_for(cast.admin).get("/api/v1/scores/", {"dataset": "demo", "model": "demo-model-borealis", "questions": "maybe"})
    assert response.status_code == 400 and "questions" in response.json()
