"""End to end on the released HeartBench file: import it, import verdict files, check scores and coverage."""

import json

import numpy as np
import pytest
from django.core.management import call_command

from heartbench_core.models import JudgeVerdict
from tests.scoring.reference import run_scores


@pytest.fixture
def released(db, heartbench_all, tmp_path):
    call_command("import_heartbench", str(heartbench_all), "--dataset", "heartbench")
    records = [json.loads(line) for line in heartbench_all.read_text(encoding="utf-8").splitlines()]
    return records


def write_verdicts(path, records, hits_for, *, with_response=True):
    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            hits = hits_for(record)
            line = {"question_id": record["question_id"], "score_detail": str(hits), "score_reason": "（合成）"}
            if with_response:
                line["response"] = f"（合成回答）{record['question_id']}"
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path


def score(capsys, model, *args):
    capsys.readouterr()
    call_command("score", "--dataset", "heartbench", "--model", model, "--format", "json", *args)
    return json.loads(capsys.readouterr().out)


def test_the_released_file_scores_as_the_plain_restatement_for_random_verdicts(released, tmp_path, capsys):
    rng = np.random.default_rng(7)
    hits = {r["question_id"]: [int(x) for x in rng.random(len(r["rubric"])) < 0.5] for r in released}
    path = write_verdicts(tmp_path / "question_score.jsonl", released, lambda r: hits[r["question_id"]])
    call_command("import_judge_verdicts", str(path), "--dataset", "heartbench", "--model", "synthetic-m", "--judge", "synthetic-j")
    assert JudgeVerdict.objects.count() == sum(len(r["rubric"]) for r in released) == 2818 + 296  # + one 其他 item each

    for mode in ("paper", "upstream"):
        body = score(capsys, "synthetic-m", "--catastrophic", mode)
        overall, abilities = run_scores(released, hits, mode)
        assert body["overall"] == pytest.approx(overall, abs=1e-9)
        assert {k: v for k, v in body["abilities"].items() if v is not None} == pytest.approx(abilities)
        assert len(abilities) == 15 and body["questions_scored"] == 296 and body["questions_dropped"] == 0
    hard = score(capsys, "synthetic-m", "--subset", "hard")
    normal = score(capsys, "synthetic-m", "--subset", "normal")
    assert (hard["questions_scored"], normal["questions_scored"]) == (84, 212)
    assert hard["overall"] == pytest.approx(run_scores([r for r in released if r["difficulty"] == "hard"], hits)[0])


def test_the_upstream_rule_never_fires_on_the_released_data(released, tmp_path, capsys):
    # Every catastrophic item of the released data has a null or negative weight.
    path = write_verdicts(tmp_path / "all_hit.jsonl", released, lambda r: [1] * len(r["rubric"]))
    call_command("import_judge_verdicts", str(path), "--dataset", "heartbench", "--model", "all-hit", "--judge", "j")
    assert score(capsys, "all-hit", "--catastrophic", "upstream")["questions_catastrophic"] == 0
    paper = score(capsys, "all-hit", "--catastrophic", "paper")
    # One released question (XzV0Im) has no 其他 item, so it alone escapes; its abilities keep the overall above 0.
    assert paper["questions_catastrophic"] == 295
    with_cata = [r for r in released if any(i["dimension"] == "其他" for i in r["rubric"])]
    assert paper["overall"] == pytest.approx(run_scores(released, {r["question_id"]: [1] * len(r["rubric"]) for r in released})[0])
    assert run_scores(with_cata, {r["question_id"]: [1] * len(r["rubric"]) for r in with_cata})[0] == 0.0


def test_perfect_verdicts_score_100_and_partial_files_report_coverage(released, tmp_path, capsys):
    def perfect(record):
        return [int(item["dimension"] != "其他" and (item["score"] or 0) > 0) for item in record["rubric"]]

    path = write_verdicts(tmp_path / "half.jsonl", released[::2], perfect)
    call_command("import_judge_verdicts", str(path), "--dataset", "heartbench", "--model", "half", "--judge", "j")
    body = score(capsys, "half")
    assert body["overall"] == pytest.approx(100.0)
    assert (body["questions_scored"], body["questions_dropped"]) == (148, 148)
    assert all(v == pytest.approx(100.0) for v in body["dimensions"].values() if v is not None)
