"""A platform run that judges more questions later adds verdicts to the same judge run: its stored scores are not reused."""

import pytest
from django.core.management import call_command

from heartbench_core.models import JudgeRun, StoredScores
from heartbench_core.services.scoring import rubric_frame, score_frame, score_model
from heartbench_core.verdict_sources import load_verdicts

pytestmark = pytest.mark.django_db


def _judge(capsys, **extra):
    args = ["judge", "--dataset", "demo", "--model", "demo-model-aurora", "--endpoint", "judge-a", "--run", "grow"]
    for k, v in extra.items():
        args += [f"--{k}", v]
    call_command(*args)
    return capsys.readouterr().out


def _fresh():
    from heartbench_core.models import Dataset

    verdicts = load_verdicts("judge", dataset=Dataset.objects.get(name="demo"), model="demo-model-aurora", run="grow")
    return score_frame(rubric_frame(verdicts.version), criterion_id=verdicts.criterion_id, hit=verdicts.hit).result().as_json()


def test_scores_after_more_questions_are_judged_count_the_new_verdicts(demo, fake, judge_endpoint, capsys):
    _judge(capsys, questions="dm0001,dm0002")
    first, _ = score_model(dataset_name="demo", model_name="demo-model-aurora", run="grow")
    assert first.questions_scored == 2 and StoredScores.objects.count() == 1
    _judge(capsys)  # the other questions, into the same judge run
    assert JudgeRun.objects.filter(label="grow").count() == 1
    assert not StoredScores.objects.exists()  # the runner forgot the run's stored scores when it wrote verdicts
    after, _ = score_model(dataset_name="demo", model_name="demo-model-aurora", run="grow")
    assert after.questions_scored == 6 and after.as_json() == _fresh()
