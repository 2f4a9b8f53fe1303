"""A team judging with the released HeartBench prompt unchanged: its judge answers in the prompt's own format
(`'reason'（String）: … 'detail'（array of Integer）: […]`, neither JSON nor Python), which is read at the first answer,
strictly — a wrong length is still asked again, then failed (SQLite and PostgreSQL)."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from heartbench_core.judging.models import RunQuestion
from heartbench_core.judging.services.endpoints import add_template_revision
from heartbench_core.models import JudgeVerdict
from tests.fake_openai import Reply, alternating, criteria_count, released_prompt_answer

pytestmark = pytest.mark.django_db

# The released prompt's placeholders taken by the platform's, and its answer format as it spells it.
RELEASED_STYLE = """你是一个专业、严苛的评分专家，请根据对话历史与待测AI的回复，逐条判断每条rubric是否命中。

对话历史：
$dialogue
待测AI回复：
$response
rubric：
$criteria
rubric条数：
$count

直接按照以下格式输出，不要输出markdown或者其他内容。
输出格式：
{
  'reason'（String）:（说出具体的评分过程，文本内容里不要用引号，用「」）
  'detail'（array of Integer）:[1,0,1,....](按顺序给出rubric命中情况，命中置1，未命中置0，元素个数与rubric条数一致)
}"""

JUDGE = ["judge", "--dataset", "demo", "--model", "demo-model-aurora", "--endpoint", "judge-a", "--template", "released"]


@pytest.fixture
def released_template(db):
    return add_template_revision(name="released", system="", user=RELEASED_STYLE, change_note="the released prompt")


def test_a_judge_answering_in_the_released_prompt_s_own_format_is_read_at_the_first_answer(demo, fake, judge_endpoint, released_template):
    fake.behaviour = lambda body, attempt: Reply(released_prompt_answer(alternating(criteria_count(body))))
    call_command(*JUDGE, stdout=StringIO())
    questions = RunQuestion.objects.all()
    assert questions.count() == 6 and all(q.status == "done" and q.requests == 1 for q in questions)
    verdicts = JudgeVerdict.objects.all()
    assert verdicts.count() == sum(i.criteria.count() for i in demo.items.all())
    assert {v.rationale for v in verdicts} == {"回复接住了情绪，用「我明白」回应"}
    assert {v.raw["shape"] for v in verdicts} == {"released"} and {v.raw["template"] for v in verdicts} == {"released"}
    first = [v.hit for v in verdicts.filter(criterion__item__question_id="dm0001").order_by("criterion__position")]
    assert first == [bool(h) for h in alternating(len(first))]


def test_an_answer_in_that_format_with_one_verdict_too_many_is_asked_again_then_failed(demo, fake, judge_endpoint, released_template):
    fake.behaviour = lambda body, attempt: Reply(released_prompt_answer(alternating(criteria_count(body) + 1)))
    with pytest.raises(CommandError, match="6 questions failed"):
        call_command(*JUDGE, stdout=StringIO())
    assert not JudgeVerdict.objects.exists()
    q = RunQuestion.objects.first()
    assert q.status == "failed" and q.problem["code"] == "wrong_length" and q.requests == 1 + judge_endpoint.max_retries
