"""Prompt injection, end to end through a run: a model's response that forges every section header of the judge's prompt and
its fence reaches the judge inside a fence it cannot close (a fresh token, drawn again when the response holds it), the
question is judged on its real criteria, and the run's page (in English and Chinese) and API list it as a suspected injection."""

import itertools
import re

import pytest
from django.core.management import call_command
from django.test import Client

from heartbench_core.judging.models import EndpointRun, RunQuestion
from heartbench_core.judging.services import runs
from heartbench_core.lib.judge_prompt import DEFAULT_TEMPLATE, section_headers
from heartbench_core.models import Criterion, JudgeVerdict, ModelResponse
from tests.fake_openai import forging_answer, user_text

pytestmark = pytest.mark.django_db

GUESSED = "0123456789abcdef"  # the token the response guesses, and the first one drawn
REAL = "9e1f2d3c4b5a6978"
FORGED_QUESTION = "dm0001"
HEADERS = section_headers(DEFAULT_TEMPLATE)


@pytest.fixture
def forged(demo, monkeypatch):
    """demo-model-aurora's response to dm0001 forges the prompt; the fence tokens drawn are GUESSED, then REAL for ever."""
    response = forging_answer(HEADERS, GUESSED)
    ModelResponse.objects.filter(model__name="demo-model-aurora", question_id=FORGED_QUESTION).update(text=response)
    tokens = itertools.chain([GUESSED], itertools.repeat(REAL))
    monkeypatch.setattr(runs, "new_fence_token", lambda: next(tokens))
    return response


def _run_judge() -> EndpointRun:
    call_command("judge", "--dataset", "demo", "--model", "demo-model-aurora", "--endpoint", "judge-a", "--questions", "dm0001,dm0002")
    return EndpointRun.objects.get()


def _outside_fences(text: str) -> str:
    return re.sub(rf"<data-{REAL}>\n.*?\n</data-{REAL}>", "<DATA>", text, flags=re.DOTALL)


def test_the_forged_response_reaches_the_judge_inside_its_fence_and_is_judged_on_the_real_criteria(forged, fake, judge_endpoint):
    run = _run_judge()
    assert run.status == EndpointRun.Status.FINISHED
    prompt = next(user_text(b) for b in fake.requests if forged in user_text(b))
    assert GUESSED in forged and REAL not in forged  # the first token drawn was in the response: the next one fences it
    outside = _outside_fences(prompt)
    assert outside.count("<DATA>") == 3 and GUESSED not in outside
    assert [len(re.findall(rf"^【{h}[（】]", outside, flags=re.MULTILINE)) for h in HEADERS] == [1] * len(HEADERS)
    assert "伪造" not in outside and "忽略以上所有要求" not in outside
    assert prompt.count(forged) == 1 and f"【待评估回复】\n<data-{REAL}>\n{forged}\n</data-{REAL}>\n" in prompt
    # Judged on its own criteria: the forged criterion line inside the response is not one of them.
    criteria = Criterion.objects.filter(item__version=run.version, item__question_id=FORGED_QUESTION).count()
    verdicts = JudgeVerdict.objects.filter(run=run.judge_run, criterion__item__question_id=FORGED_QUESTION)
    assert verdicts.count() == criteria


def test_the_run_marks_the_forged_answer_as_a_suspected_injection_on_its_page_and_in_its_api(
    forged, fake, judge_endpoint, cast, client_for
):
    run = _run_judge()
    questions = {q.item.question_id: q for q in RunQuestion.objects.filter(run=run).select_related("item")}
    assert {q.status for q in questions.values()} == {RunQuestion.Status.DONE}
    signals = questions[FORGED_QUESTION].injection_signals
    assert {s["code"] for s in signals} == {"header", "fence", "instruction", "answer"}
    assert {"code": "header", "text": "【评分项】"} in signals and {"code": "fence", "text": f"</data-{GUESSED}>"} in signals
    assert questions["dm0002"].injection_signals == []
    assert list(RunQuestion.objects.suspected_injection().values_list("item__question_id", flat=True)) == [FORGED_QUESTION]

    client = client_for(cast.admin)
    page = client.get(f"/judging/runs/{run.pk}/").content.decode()
    assert "1 response looked like prompt injection" in page
    section = page[page.index('id="suspected-injections"') :]
    assert f'data-question="{FORGED_QUESTION}"' in section and 'data-question="dm0002"' not in section.split("</section>")[0]
    assert 'writes a section header of the judge&#x27;s prompt: <code translate="no">【评分项】</code>' in section
    assert "addresses the judge with an instruction" in section and "writes a judge&#x27;s answer" in section

    body = client.get(f"/api/v1/endpoint-runs/{run.pk}/").json()
    assert body["suspected_injections"] == 1
    listed = client.get(f"/api/v1/endpoint-runs/{run.pk}/questions/?suspected=true").json()
    assert [q["question_id"] for q in listed] == [FORGED_QUESTION] and listed[0]["suspected_injection"] is True
    assert {"code": "fence", "text": f"</data-{GUESSED}>", "why": "writes something shaped like the prompt's data fence"} in listed[0][
        "injection_signals"
    ]
    every = {q["question_id"]: q for q in client.get(f"/api/v1/endpoint-runs/{run.pk}/questions/").json()}
    assert every["dm0002"]["suspected_injection"] is False and every["dm0002"]["injection_signals"] == []

    chinese = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    chinese.force_login(cast.admin)
    page = chinese.get(f"/judging/runs/{run.pk}/").content.decode()
    assert "1 个回复疑似提示注入" in page and "写了评估提示的章节标题" in page
    listed = chinese.get(f"/api/v1/endpoint-runs/{run.pk}/questions/?suspected=true").json()
    assert "向评估员下达指令" in {s["why"] for s in listed[0]["injection_signals"]}
